package host

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"baton/store"
)

func TestRoleStateMachine(t *testing.T) {
	legal := [][2]Role{{RoleReader, RolePromoting}, {RolePromoting, RoleWriter}, {RolePromoting, RoleReader},
		{RoleWriter, RoleReader}, {RoleReader, RoleClosed}, {RoleWriter, RoleClosed}, {RolePromoting, RoleClosed}}
	illegal := [][2]Role{{RoleReader, RoleWriter}, {RoleClosed, RoleReader}, {RoleClosed, RoleWriter}, {RoleWriter, RolePromoting}}
	for _, m := range legal {
		if !canMove(m[0], m[1]) {
			t.Errorf("%v -> %v should be legal", m[0], m[1])
		}
	}
	for _, m := range illegal {
		if canMove(m[0], m[1]) {
			t.Errorf("%v -> %v must be illegal (BecomeWriter is the only road to writer)", m[0], m[1])
		}
	}
}

func openStarted(t *testing.T, home string) *Window {
	t.Helper()
	w, err := Open(home, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	return w
}

func waitRole(t *testing.T, w *Window, r Role) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for w.Role() != r {
		if time.Now().After(deadline) {
			t.Fatalf("role %v, want %v", w.Role(), r)
		}
		time.Sleep(time.Millisecond)
	}
}

func TestReaderRefusesWritesAndTakesOverOnClose(t *testing.T) {
	home := t.TempDir()
	a := openStarted(t, home)
	if a.Role() != RoleWriter {
		t.Fatalf("first window: %v", a.Role())
	}
	b := openStarted(t, home)
	if b.Role() != RoleReader {
		t.Fatalf("second window: %v", b.Role())
	}
	_, err := b.AddWorkflow(store.Workflow{Name: "x", Steps: []store.Step{{Argv: []string{"true"}}}})
	var ro *ReadOnlyError
	if !errors.As(err, &ro) || ro.WriterPID != os.Getpid() || !strings.Contains(err.Error(), "is the writer") {
		t.Fatalf("reader write: %v", err)
	}
	if _, err := a.AddWorkflow(store.Workflow{Name: "a", Steps: []store.Step{{Argv: []string{"true"}}}}); err != nil {
		t.Fatal(err)
	}
	a.Close()
	if _, err := a.AddWorkflow(store.Workflow{Name: "late", Steps: []store.Step{{Argv: []string{"true"}}}}); !errors.Is(err, ErrClosed) {
		t.Fatalf("closed window write: %v", err)
	}
	waitRole(t, b, RoleWriter)
	if _, err := b.AddWorkflow(store.Workflow{Name: "b", Steps: []store.Step{{Argv: []string{"true"}}}}); err != nil {
		t.Fatal(err)
	}
	if d := b.Snapshot(); d.Workflow("a") == nil || d.Workflow("b") == nil || d.Epoch != 2 {
		t.Fatalf("after takeover: %+v", d)
	}
	if tk := b.LastTakeover(); len(tk.Steps) != 7 || tk.Steps[1].Name != "2.reread" || tk.OldOwner == nil {
		t.Fatalf("takeover steps: %+v", tk)
	}
}

func TestUnreadableFileBlocksTakeoverUntilFixed(t *testing.T) {
	home := t.TempDir()
	path := filepath.Join(home, store.FileName)
	os.WriteFile(path, []byte("{not json"), 0o600)
	w := openStarted(t, home)
	if w.Role() != RoleReader {
		t.Fatalf("role %v over an unreadable file, want reader", w.Role())
	}
	st := w.Status()
	if !strings.Contains(st.Problem, "not valid JSON") {
		t.Fatalf("problem %q", st.Problem)
	}
	_, err := w.AddWorkflow(store.Workflow{Name: "x", Steps: []store.Step{{Argv: []string{"true"}}}})
	if !errors.Is(err, ErrReadOnly) || !strings.Contains(err.Error(), "unreadable") {
		t.Fatalf("write over unreadable file: %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "{not json" {
		t.Fatal("unreadable file was changed")
	}
	// The person fixes the file: the window (holding the lock) takes over by itself.
	store.WriteFileAtomic(path, []byte(`{"schema":1,"generation":4,"epoch":2}`), nil)
	waitRole(t, w, RoleWriter)
	if d := w.Snapshot(); d.Generation != 5 || d.Epoch != 3 {
		t.Fatalf("after fix: gen %d epoch %d", d.Generation, d.Epoch)
	}
}

func TestUnsafeHomeRefused(t *testing.T) {
	base := t.TempDir()
	real := filepath.Join(base, "real")
	os.Mkdir(real, 0o700)
	link := filepath.Join(base, "link")
	os.Symlink(real, link)
	if _, err := Open(link, Options{}); !errors.Is(err, ErrUnsafeHome) || !strings.Contains(err.Error(), "symlink") {
		t.Fatalf("symlink home: %v", err)
	}
	open := filepath.Join(base, "open")
	os.Mkdir(open, 0o777)
	os.Chmod(open, 0o777)
	if _, err := Open(open, Options{}); !errors.Is(err, ErrUnsafeHome) || !strings.Contains(err.Error(), "writable by others") {
		t.Fatalf("world-writable home: %v", err)
	}
	fresh := filepath.Join(base, "new", "home")
	if _, err := PrepareHome(fresh); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(fresh); fi.Mode().Perm() != 0o700 {
		t.Fatalf("new home mode %v", fi.Mode().Perm())
	}
}

func TestLockFileReplacedStopsWriting(t *testing.T) {
	home := t.TempDir()
	w := openStarted(t, home)
	lock := filepath.Join(home, LockName)
	os.Remove(lock)
	os.WriteFile(lock, nil, 0o600)
	_, err := w.AddWorkflow(store.Workflow{Name: "x", Steps: []store.Step{{Argv: []string{"true"}}}})
	if !errors.Is(err, ErrLockLost) {
		t.Fatalf("write with a replaced lock: %v", err)
	}
	waitRole(t, w, RoleReader)
	if d, _ := store.New(home, store.Options{}).Reload(); d.Workflow("x") != nil {
		t.Fatal("write reached the disk with a replaced lock")
	}
}
