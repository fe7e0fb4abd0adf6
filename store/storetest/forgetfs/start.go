package forgetfs

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// Start mounts a forgetting view of a new empty folder for the test t and returns it; the
// test is skipped, saying why, where FUSE cannot be used. The mount is removed when the test
// ends unless a power cut removed it first.
func Start(t testing.TB) *FS {
	t.Helper()
	if err := Available(); err != nil {
		t.Skipf("this test needs a FUSE mount (a forgetting file system): %v", err)
	}
	base := t.TempDir()
	backing, mnt := filepath.Join(base, "disk"), filepath.Join(base, "mnt")
	for _, d := range []string{backing, mnt} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	f, err := Mount(backing, mnt)
	if errors.Is(err, ErrUnavailable) {
		t.Skipf("this test needs a FUSE mount (a forgetting file system): %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := f.Unmount(); err != nil {
			t.Error(err)
		}
	})
	return f
}

// Backing returns the backing folder: after a power cut it holds what survived.
func (f *FS) Backing() string { return f.backing }

// Remount mounts the backing folder again at the same mount point, after a power cut: what
// it holds now is durable. It ends with the test.
func (f *FS) Remount(t testing.TB) *FS {
	t.Helper()
	g, err := Mount(f.backing, f.mnt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := g.Unmount(); err != nil {
			t.Error(err)
		}
	})
	return g
}
