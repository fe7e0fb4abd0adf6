package view

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"baton/host"
	"baton/store"
)

// A window on a home on a read-only file system opens read-only, and its role bar and
// disabled controls say why: the file system is read-only (host's
// TestReadOnlyHomeCanBeRead covers the commands and the headless window).
func TestReadOnlyFileSystemSaidInTheWindow(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to mount a read-only view of a home (mount --bind, remount ro)")
	}
	src := t.TempDir()
	w, err := host.Open(src, host.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Intents().AddWorkflow(context.Background(), store.Workflow{Name: "w", Steps: []store.Step{{Argv: []string{"true"}}}}); err != nil {
		t.Fatal(err)
	}
	w.Close()
	ro := filepath.Join(t.TempDir(), "ro")
	if err := os.Mkdir(ro, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount(src, ro, "", syscall.MS_BIND, ""); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Unmount(ro, syscall.MNT_DETACH) })
	if err := syscall.Mount("", ro, "", syscall.MS_REMOUNT|syscall.MS_BIND|syscall.MS_RDONLY, ""); err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	r, err := host.Open(ro, host.Options{})
	if err != nil {
		t.Fatalf("a window cannot open on a read-only home: %v", err)
	}
	defer r.Close()
	if err := r.Start(); err != nil {
		t.Fatalf("a window cannot start on a read-only home: %v", err)
	}
	st := r.Status()
	bar, reason := RoleText(st, host.Takeover{}, r.Snapshot(), time.Now()), ReadOnlyReason(st)
	for _, s := range []string{bar, reason} {
		if !strings.HasPrefix(s, "Read-only: ") || !strings.Contains(s, "read-only file system") {
			t.Errorf("the window says %q; want it to say the file system is read-only", s)
		}
	}
	t.Logf("role bar: %s", bar)
	if r.Snapshot().Workflow("w") == nil {
		t.Fatal("the read-only window does not show the home's workflows")
	}
}
