package host

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/gofrs/flock"
	"github.com/google/uuid"

	"baton/store"
	"baton/workflow/proc"
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

// lockInstance creates and flocks dir/<id>.lock (dir is home/instances, or the private
// folder of a window on a home it cannot write) for the life of the window.
func lockInstance(dir string, self store.Owner) (*flock.Flock, error) {
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
		if err == nil {
			err = errors.New("held by another process")
		}
		return nil, fmt.Errorf("lock own instance file %s: %w", tmp, err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, self.Instance+".lock")); err != nil {
		_ = fl.Close()
		_ = os.Remove(tmp)
		return nil, fmt.Errorf("lock own instance file: %w", err)
	}
	return fl, nil
}

// cannotWrite reports whether err says the home's file system, or the home folder itself,
// cannot be written: the window then only reads (see lockOwnInstance).
func cannotWrite(err error) bool {
	return errors.Is(err, syscall.EROFS) || errors.Is(err, syscall.EACCES) || errors.Is(err, syscall.EPERM)
}

// lockOwnInstance locks this window's liveness file: instances/<id>.lock in the home or,
// when the home cannot hold it (a read-only mount: a backup snapshot, an image), in a
// private folder of this user outside it (privateInstanceDir). It returns the lock, the
// folder it is in and, for the second case, why the window only reads.
//
// Nothing but this window needs the evidence of a window that cannot write its home: it
// can never take state.lock (it cannot even open it for writing), so it never writes,
// never owns a run, is never named by a hand-over (asking for one writes a request file
// into the home) and never forwards a request (same). Every check of another window's
// liveness (ownerAlive, instanceGone, the cleaner) is about a writer, a run's owner, a
// hand-over's target or a requester, all of which could write the home and so keep their
// evidence in it. The private folder only keeps this window's identity as unique and
// locked as any other's.
func lockOwnInstance(home string, self store.Owner) (fl *flock.Flock, dir, readOnly string, err error) {
	dir = filepath.Join(home, InstancesDir)
	fl, err = lockInstance(dir, self)
	if err == nil || !cannotWrite(err) {
		return fl, dir, "", err
	}
	why := "the home folder " + home + " cannot be written"
	if errors.Is(err, syscall.EROFS) {
		why = "the home folder " + home + " is on a read-only file system"
	}
	pdir, perr := privateInstanceDir(home)
	if perr != nil {
		return nil, "", "", fmt.Errorf("%s, and no private folder can hold this window's liveness file: %w (%w)", why, perr, err)
	}
	if fl, err = lockInstance(pdir, self); err != nil {
		return nil, "", "", err
	}
	cleanInstanceDir(pdir, self)
	return fl, pdir, why + ": this window only reads", nil
}

// privateInstanceDir is where the windows of this user on a home they cannot write keep
// their liveness files: $XDG_RUNTIME_DIR/baton/<home hash>, else the user cache folder's
// baton/<home hash>; 0700 and this user's (a symlink or another's folder is refused).
func privateInstanceDir(home string) (string, error) {
	base := os.Getenv("XDG_RUNTIME_DIR")
	if base == "" {
		var err error
		if base, err = os.UserCacheDir(); err != nil {
			return "", err
		}
	}
	sum := sha256.Sum256([]byte(home))
	top := filepath.Join(base, "baton")
	dir := filepath.Join(top, "instances-"+hex.EncodeToString(sum[:8]))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	for _, p := range []string{top, dir} {
		fi, err := os.Lstat(p)
		if err == nil {
			err = checkOwned(p, fi, true)
		}
		if err == nil && fi.Mode().Perm()&0o022 != 0 {
			err = fmt.Errorf("%w: %s is writable by others (mode %04o); run: chmod go-w %s", ErrUnsafeHome, p, fi.Mode().Perm(), p)
		}
		if err != nil {
			return "", err
		}
	}
	return dir, nil
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
// The deletion rule (workflow/README.md, "Who may delete what"): remove only what is proven
// abandoned. instances/<id>.lock exists only locked (it is renamed into place while its
// window holds its flock), so a lock this cleaner wins belongs to a window that is gone,
// and no live process can be creating that name again (instance ids are never reused).
// A temp name (.<tag>.<id>.tmp) may be a starting window's file between its creation and
// its flock, where a free lock proves nothing: it goes only when the process named by its
// tag is gone.
func cleanInstances(home string, self store.Owner) {
	cleanInstanceDir(filepath.Join(home, InstancesDir), self)
}

// cleanInstanceDir is cleanInstances on a folder of instance files.
func cleanInstanceDir(dir string, self store.Owner) {
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
