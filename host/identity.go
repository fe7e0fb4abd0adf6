package host

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gofrs/flock"
	"github.com/google/uuid"

	"baton/store"
	"baton/workflow"
)

// InstancesDir holds one lock file per window: instances/<id>.lock, flocked by its window
// for its whole life. "TryLock succeeds" means "that window is dead", immune to pid reuse.
const InstancesDir = "instances"

// bootID returns the kernel's boot id, which tells start times of two boots apart.
func bootID() string {
	b, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// newIdentity describes this process.
func newIdentity() (store.Owner, error) {
	pid := os.Getpid()
	start, err := workflow.ProcStart(pid)
	if err != nil {
		return store.Owner{}, fmt.Errorf("read own start time: %w", err)
	}
	return store.Owner{PID: pid, Start: start, Boot: bootID(), Instance: uuid.NewString(), Since: time.Now().UTC()}, nil
}

// lockInstance creates and flocks instances/<id>.lock for the life of the window.
func lockInstance(home string, self store.Owner) (*flock.Flock, error) {
	dir := filepath.Join(home, InstancesDir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create %s: %w", dir, err)
	}
	// The file is locked under a temp name and only then renamed into place, so a file at
	// instances/<id>.lock is locked from the moment it exists: "no file" and "a free lock"
	// both mean that window is gone, with no window of doubt while it starts.
	tmp := filepath.Join(dir, "."+self.Instance+".tmp")
	fl := flock.New(tmp, flock.SetPermissions(0o600))
	ok, err := fl.TryLock()
	if err != nil || !ok {
		return nil, fmt.Errorf("lock own instance file %s: %v", tmp, err)
	}
	if err := os.Rename(tmp, instancePath(home, self.Instance)); err != nil {
		_ = fl.Close()
		_ = os.Remove(tmp)
		return nil, fmt.Errorf("lock own instance file: %w", err)
	}
	return fl, nil
}

func instancePath(home, id string) string {
	return filepath.Join(home, InstancesDir, id+".lock")
}

// ownerAlive decides from evidence whether window o is alive: its instance lock is held
// (alive), or free (dead). Without an instance file, a live process with the same pid,
// start time and boot is alive. It never looks at how old anything is.
func ownerAlive(home string, self store.Owner, o store.Owner) (bool, string) {
	if o.Instance == self.Instance {
		return true, "this window"
	}
	path := instancePath(home, o.Instance)
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) || o.Instance == "" {
		// Instance files exist locked from birth and are removed only once free: no file
		// means the window is gone (or this identity was retired after losing the lock).
		return false, fmt.Sprintf("no instance lock for pid %d: that window is gone", o.PID)
	}
	fl := flock.New(path, flock.SetFlag(os.O_RDONLY))
	ok, err := fl.TryLock()
	if err != nil {
		// Cannot tell: assume alive. Never reap on doubt.
		return true, fmt.Sprintf("instance lock of pid %d cannot be checked: %v", o.PID, err)
	}
	if !ok {
		// The kernel releases a killed process's locks one file at a time; state.lock may
		// be free while the instance lock is still held by a process that is already dying.
		if o.Boot == self.Boot && workflow.Exiting(o.PID, o.Start) {
			return false, fmt.Sprintf("pid %d is exiting (its instance lock not yet released)", o.PID)
		}
		return true, fmt.Sprintf("instance lock of pid %d is held", o.PID)
	}
	_ = fl.Close()
	state := "gone"
	if o.Boot == self.Boot && workflow.Alive(o.PID, o.Start) {
		state = "alive, but that identity ended (closing, or retired after losing the lock)"
	}
	return false, fmt.Sprintf("instance lock of pid %d is free; pid %d is %s", o.PID, o.PID, state)
}

// cleanInstances removes the instance files of dead windows. Only the writer calls it.
func cleanInstances(home string, self store.Owner) {
	dir := filepath.Join(home, InstancesDir)
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		name := e.Name()
		stale := strings.HasSuffix(name, ".lock") || (strings.HasPrefix(name, ".") && strings.HasSuffix(name, ".tmp"))
		if !stale || name == self.Instance+".lock" {
			continue
		}
		fl := flock.New(filepath.Join(dir, name), flock.SetFlag(os.O_RDONLY))
		if ok, err := fl.TryLock(); err == nil && ok {
			_ = os.Remove(fl.Path())
			_ = fl.Close()
		}
	}
}
