package host

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestRecoverNeverFollowsALinkedLock: `baton recover` takes state.lock as a window does
// (TryFolderLock): a state.lock that is a symbolic link is refused (ELOOP), and nothing is
// made where it points.
func TestRecoverNeverFollowsALinkedLock(t *testing.T) {
	home, outside := t.TempDir(), filepath.Join(t.TempDir(), "elsewhere.lock")
	if err := os.Symlink(outside, filepath.Join(home, LockName)); err != nil {
		t.Fatal(err)
	}
	_, err := RecoverHome(home, time.Now())
	if !errors.Is(err, syscall.ELOOP) {
		t.Fatalf("recover of a home whose state.lock is a link: %v, want ELOOP", err)
	}
	if _, err := os.Lstat(outside); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("recover made the file state.lock points to: %v", err)
	}
}

// TestTryFolderLock: busy is a *FolderBusyError naming the path; with create false a
// missing state.lock is os.ErrNotExist and is not made; the file made is 0600.
func TestTryFolderLock(t *testing.T) {
	home := t.TempDir()
	path := filepath.Join(home, LockName)
	if _, err := TryFolderLock(home, false); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("no state.lock, create false: %v, want ErrNotExist", err)
	}
	if _, err := os.Lstat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("create false made state.lock: %v", err)
	}
	hold, err := TryFolderLock(home, true)
	if err != nil {
		t.Fatal(err)
	}
	defer hold.Close()
	if fi, err := os.Lstat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("state.lock made as %v, %v; want 0600", fi.Mode(), err)
	}
	_, err = TryFolderLock(home, false)
	var busy *FolderBusyError
	if !errors.As(err, &busy) || busy.Path != path || !strings.Contains(err.Error(), path) {
		t.Fatalf("state.lock held: %v, want a *FolderBusyError naming %s", err, path)
	}
	if _, err := RecoverHome(home, time.Now()); !errors.Is(err, ErrRecoverLocked) || !strings.Contains(err.Error(), path) {
		t.Fatalf("recover with state.lock held: %v", err)
	}
}
