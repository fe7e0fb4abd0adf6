package host

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"syscall"

	"github.com/gofrs/flock"

	"baton/store"
	"baton/workflow"
)

// The folder's implementations of the home seams that host owns (see store/home.go and
// workflow/seams.go): the writer lock, state.lock with flock(2), and the liveness of
// windows and runs, by instance locks, run locks and journals.

// writerLock is the writer lock of the window's home: state.lock in the folder, unless
// Options.Lock gives another kind of home's.
func (w *Core) writerLock() store.WriterLock {
	if w.etcd != nil { // the election, its value naming this window as it is now
		return w.etcd.home.WriterLock(w.etcd.identity(w.Self()))
	}
	if w.opts.Lock != nil {
		return w.opts.Lock
	}
	return folderLock{path: w.lockPath}
}

// folderLock is store.WriterLock on the folder: state.lock at path. Each TryLock or Lock
// opens a handle of its own; the handle that wins is the hold, and the file is never
// deleted or replaced by Baton. It opens state.lock as every taker of it does: a symbolic
// link is never followed (O_NOFOLLOW), and a missing file is made 0600 unless noCreate
// (then TryLock fails with an error wrapping os.ErrNotExist).
type folderLock struct {
	path     string
	noCreate bool
}

func (l folderLock) handle() *flock.Flock {
	flag := os.O_RDWR | syscall.O_NOFOLLOW
	if !l.noCreate {
		flag |= os.O_CREATE
	}
	return flock.New(l.path, flock.SetFlag(flag), flock.SetPermissions(0o600))
}

// TryFolderLock takes the writer lock of the home folder dir (its state.lock) without
// waiting, as a window takes it (folderLock), for a command that changes the home with no
// window open: `baton recover`, `baton migrate`. With create false a missing state.lock is
// not made: the error wraps os.ErrNotExist. When a window (or another command) holds it,
// the error is a *FolderBusyError naming that window's pid when the home's document names
// its writer. The caller closes the hold; it never blocks.
func TryFolderLock(dir string, create bool) (store.LockHold, error) {
	l := folderLock{path: filepath.Join(dir, LockName), noCreate: !create}
	hold, ok, err := l.TryLock()
	if err != nil {
		return nil, err
	}
	if !ok {
		busy := &FolderBusyError{Path: l.path}
		if d, err := store.ReadHome(dir); err == nil {
			for _, o := range []*store.Owner{d.HandoverTo, d.Writer} {
				if o != nil {
					busy.PID = o.PID
					break
				}
			}
		}
		return nil, busy
	}
	return hold, nil
}

// FolderBusyError is returned by TryFolderLock when another process holds state.lock at
// Path: a window, whose pid is PID when the home's document names its writer (else 0).
type FolderBusyError struct {
	Path string
	PID  int
}

func (e *FolderBusyError) Error() string {
	if e.PID != 0 {
		return fmt.Sprintf("a window (the home names window pid %d as its writer) holds %s", e.PID, e.Path)
	}
	return "a window holds " + e.Path
}

func (l folderLock) TryLock() (store.LockHold, bool, error) {
	fl := l.handle()
	ok, err := fl.TryLock()
	if err != nil {
		_ = fl.Close()
		return nil, false, fmt.Errorf("%s: %w", l.path, err)
	}
	if !ok {
		_ = fl.Close()
		return nil, false, nil
	}
	return l.hold(fl), true, nil
}

// Lock blocks in flock(2), which wakes the moment the holder's descriptor closes (by
// exit, crash or kill -9). The wait cannot be interrupted: a ctx that ended meanwhile
// makes it let go of what it won.
func (l folderLock) Lock(ctx context.Context) (store.LockHold, error) {
	fl := l.handle()
	if err := fl.Lock(); err != nil {
		_ = fl.Close()
		return nil, fmt.Errorf("%s: %w", l.path, err)
	}
	if err := ctx.Err(); err != nil {
		_ = fl.Close()
		return nil, err
	}
	return l.hold(fl), nil
}

// hold is the hold of handle fl, which won the lock, with the identity of the file it is on.
func (l folderLock) hold(fl *flock.Flock) *folderHold {
	h := &folderHold{fl: fl, path: l.path}
	if fi, err := fl.Stat(); err == nil {
		if st, ok := fi.Sys().(*syscall.Stat_t); ok {
			h.held, h.known = *st, true
		}
	}
	return h
}

// folderHold is store.LockHold on the folder: the flock handle that won state.lock and
// the identity (device, inode) of the file it is on, which never changes.
type folderHold struct {
	fl       *flock.Flock
	path     string
	held     syscall.Stat_t
	known    bool        // held could be read (else the hold proves nothing: Check fails)
	released atomic.Bool // Release or Close let the lock go: the hold is not the lock any more
}

// Check: the hold must not have been let go, and the file locked must be the file at
// state.lock's path now, not removed or replaced, or a second writer could start beside
// this one.
func (h *folderHold) Check() error {
	var now syscall.Stat_t
	if h.released.Load() || !h.known || syscall.Stat(h.path, &now) != nil || h.held.Ino != now.Ino || h.held.Dev != now.Dev || now.Nlink == 0 {
		return lockLostError{path: h.path}
	}
	return nil
}

func (h *folderHold) Release() error { h.released.Store(true); return h.fl.Unlock() }
func (h *folderHold) Close() error   { h.released.Store(true); return h.fl.Close() }

// lockLostError is ErrLockLost (and store.ErrLockLost) for the lock at path.
type lockLostError struct{ path string }

func (e lockLostError) Error() string { return fmt.Sprintf("%v: %s", ErrLockLost, e.path) }
func (e lockLostError) Is(target error) bool {
	return target == ErrLockLost || target == store.ErrLockLost
}

// evidence is how the window's home proves windows and runs dead or alive: the folder's
// instance and run locks. A second kind of home gives its own here.
func (w *Core) evidence() workflow.Evidence {
	if w.etcd != nil {
		return etcdEvidence{folderEvidence{home: w.home}, w.etcd}
	}
	return folderEvidence{home: w.home}
}

// runFiles keeps the run files of the window's home: runs/ in the folder.
func (w *Core) runFiles() workflow.RunFiles { return workflow.FolderRuns(w.home) }

// folderEvidence is workflow.Evidence on the home folder home: windows by their instance
// locks (ownerAlive), runs by their supervisors' run locks and journals (SupervisionOf).
type folderEvidence struct{ home string }

func (e folderEvidence) OwnerAlive(self, o store.Owner) (bool, string) {
	return ownerAlive(e.home, self, o)
}

func (e folderEvidence) Supervision(id string) workflow.Supervision {
	return workflow.SupervisionOf(e.home, id)
}

var (
	_ store.WriterLock  = folderLock{}
	_ store.LockHold    = (*folderHold)(nil)
	_ workflow.Evidence = folderEvidence{}
)
