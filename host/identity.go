package host

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/gofrs/flock"
	"github.com/google/uuid"

	"baton/host/proc"
	"baton/store"
)

// InstancesDir holds one lock file per window: instances/<id>.lock, flocked by its window
// for its whole life. "TryLock succeeds" means "that window is dead", immune to pid reuse.
const InstancesDir = "instances"

// newIdentity describes this process.
func newIdentity() (store.Owner, error) {
	pid := os.Getpid()
	start, err := proc.Start(pid)
	if err != nil {
		return store.Owner{}, fmt.Errorf("read own start time: %w", err)
	}
	return store.Owner{PID: pid, Start: start, Boot: proc.BootID(), Instance: uuid.NewString(), Since: time.Now().UTC()}, nil
}

// lockInstance creates and flocks instances/<id>.lock for the life of the window.
func lockInstance(home string, self store.Owner) (*flock.Flock, error) {
	dir := filepath.Join(home, InstancesDir)
	if err := store.MkdirDurable(dir); err != nil {
		return nil, fmt.Errorf("create %s: %w", dir, err)
	}
	// The file is locked under a temp name and only then renamed into place, so a file at
	// instances/<id>.lock is locked from the moment it exists: "no file" and "a free lock"
	// both mean that window is gone. The temp name carries this process's tag, so no
	// cleaner removes it while this process lives (see cleanInstances).
	tmp := filepath.Join(dir, "."+procTag(self)+"."+self.Instance+".tmp")
	fl := flock.New(tmp, flock.SetFlag(os.O_CREATE|os.O_RDONLY|syscall.O_NOFOLLOW), flock.SetPermissions(0o600))
	ok, err := fl.TryLock()
	if err != nil || !ok {
		_ = fl.Close()
		return nil, fmt.Errorf("lock own instance file %s: %v", tmp, err)
	}
	if err := os.Rename(tmp, instancePath(home, self.Instance)); err != nil {
		_ = fl.Close()
		_ = os.Remove(tmp)
		return nil, fmt.Errorf("lock own instance file: %w", err)
	}
	return fl, nil
}

// procTag names process o in the names of the temp files it creates (proc.Tag).
func procTag(o store.Owner) string { return proc.Tag(o.PID, o.Start, o.Boot) }

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
	fl := flock.New(path, flock.SetFlag(os.O_RDONLY|syscall.O_NOFOLLOW))
	ok, err := fl.TryLock()
	if err != nil {
		// Cannot tell: assume alive. Never reap on doubt.
		return true, fmt.Sprintf("instance lock of pid %d cannot be checked: %v", o.PID, err)
	}
	if !ok {
		// The kernel releases a killed process's locks one file at a time; state.lock may
		// be free while the instance lock is still held by a process that is already dying.
		if o.Boot == self.Boot && proc.Exiting(o.PID, o.Start) {
			return false, fmt.Sprintf("pid %d is exiting (its instance lock not yet released)", o.PID)
		}
		return true, fmt.Sprintf("instance lock of pid %d is held", o.PID)
	}
	_ = fl.Close()
	state := "gone"
	if o.Boot == self.Boot && proc.Alive(o.PID, o.Start) {
		state = "alive, but that identity ended (closing, or retired after losing the lock)"
	}
	return false, fmt.Sprintf("instance lock of pid %d is free; pid %d is %s", o.PID, o.PID, state)
}

// cleanInstances removes the instance files of dead windows. Only the writer calls it.
//
// The deletion rule (DESIGN.md, "Who may delete what"): remove only what is proven
// abandoned. instances/<id>.lock exists only locked (it is renamed into place while its
// window holds its flock), so a lock this cleaner wins belongs to a window that is gone,
// and no live process can be creating that name again (instance ids are never reused).
// A temp name (.<tag>.<id>.tmp) may be a starting window's file between its creation and
// its flock, where a free lock proves nothing: it goes only when the process named by its
// tag is gone.
func cleanInstances(home string, self store.Owner) {
	dir := filepath.Join(home, InstancesDir)
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		name := e.Name()
		p := filepath.Join(dir, name)
		switch {
		case name == self.Instance+".lock":
		case strings.HasSuffix(name, ".lock"):
			fl := flock.New(p, flock.SetFlag(os.O_RDONLY|syscall.O_NOFOLLOW))
			if ok, err := fl.TryLock(); err == nil && ok {
				_ = os.Remove(p)
			}
			_ = fl.Close()
		case strings.HasPrefix(name, ".") && strings.HasSuffix(name, ".tmp"):
			if tag, ok := instanceTempTag(name); ok && proc.TagGone(tag) {
				_ = os.Remove(p)
			}
		}
	}
}

// instanceTempTag returns the process tag in the name of an instance temp file
// (.<pid>.<start>.<boot>.<id>.tmp).
func instanceTempTag(name string) (string, bool) {
	f := strings.Split(strings.TrimSuffix(strings.TrimPrefix(name, "."), ".tmp"), ".")
	if len(f) != 4 {
		return "", false
	}
	return strings.Join(f[:3], "."), true
}
