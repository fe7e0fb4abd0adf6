package tmpfs

import (
	"errors"
	"fmt"
	"syscall"
	"testing"
)

func mount(t testing.TB, dir string, size int64) {
	t.Helper()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", syscall.MS_NOSUID|syscall.MS_NODEV, fmt.Sprintf("size=%d,mode=0700", size)); err != nil {
		if errors.Is(err, syscall.EPERM) {
			t.Skipf("skipped: mounting a tmpfs was refused (%v): this test needs root with CAP_SYS_ADMIN", err)
		}
		t.Fatalf("mount a tmpfs on %s: %v", dir, err)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(dir, 0); err != nil {
			_ = syscall.Unmount(dir, syscall.MNT_DETACH)
		}
	})
}
