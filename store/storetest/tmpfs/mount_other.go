//go:build !linux

package tmpfs

import "testing"

func mount(t testing.TB, dir string, size int64) {
	t.Skip("skipped: this test mounts a tmpfs, which it does on Linux only")
}
