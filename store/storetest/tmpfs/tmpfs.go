// Package tmpfs gives tests a small file system of their own to fill: a tmpfs of a given
// size mounted on a temporary folder, so that a full disk is a real ENOSPC from the
// kernel, not a mock. Mounting needs root (CAP_SYS_ADMIN); without it the test is skipped,
// saying so.
package tmpfs

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// Mount mounts a tmpfs of size bytes on a new folder and returns it; it is unmounted when
// the test ends (lazily, if a process of the test still holds a file in it). A test not
// run as root is skipped with a message that says so.
func Mount(t testing.TB, size int64) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("skipped: this test mounts a small tmpfs to fill it, which needs root; run it as root (CI does)")
	}
	dir := filepath.Join(t.TempDir(), "tmpfs")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	mount(t, dir, size)
	return dir
}

// Fill writes a file of zeros named name in dir until the file system refuses more
// (ENOSPC) and returns its path; removing it frees the space again.
func Fill(t testing.TB, dir, name string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 4096)
	for {
		if _, err := f.Write(buf); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatalf("fill %s: %v", path, err)
			}
			return path
		}
	}
}
