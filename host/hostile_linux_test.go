package host

// Linux only: RLIMIT_FSIZE is set on a child with prlimit(2).

import (
	"baton/store"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"unsafe"
)

// setFileSizeLimit sets RLIMIT_FSIZE of process pid (prlimit). A write past it fails with
// EFBIG: a full disk that works for root too, where chmod does not stop writes.
func setFileSizeLimit(t *testing.T, pid int, max uint64) {
	t.Helper()
	lim := syscall.Rlimit{Cur: max, Max: ^uint64(0)}
	_, _, e := syscall.RawSyscall6(syscall.SYS_PRLIMIT64, uintptr(pid), uintptr(syscall.RLIMIT_FSIZE),
		uintptr(unsafe.Pointer(&lim)), 0, 0, 0)
	if e != 0 {
		t.Fatalf("prlimit: %v", e)
	}
}

// TestFullDiskRefusesWritesCleanly: when a save cannot be written (the file size limit
// stands in for a full disk), the write fails with a clear error, the window's state is
// not advanced past the disk, nothing is lost, and writes work again once there is room.
func TestFullDiskRefusesWritesCleanly(t *testing.T) {
	home := t.TempDir()
	a := startChild(t, home)
	a.initialRole()
	a.ok(addWF("small", 1, "fail"))
	fi, err := os.Stat(filepath.Join(home, store.FileName))
	if err != nil {
		t.Fatal(err)
	}
	setFileSizeLimit(t, a.pid, uint64(fi.Size())+300)
	before := readDisk(t, home)
	big := strings.Repeat("x", 4000)
	r := a.do(addWF("big", 1, "fail", "echo", big))
	if r["ok"] != false || !strings.Contains(fmt.Sprint(r["error"]), "file too large") || !strings.Contains(fmt.Sprint(r["error"]), store.FileName) {
		t.Fatalf("write on a full disk: %v", r)
	}
	st := a.ok(map[string]any{"op": "status"})
	if st["role"] != "writer" || uint64(toF(st["generation"])) != before.Generation {
		t.Fatalf("after the failed save: %v, disk generation %d", st, before.Generation)
	}
	if names := a.snapshot().names(); contains(names, "big") {
		t.Fatal("the window shows a write that is not on disk")
	}
	after := readDisk(t, home)
	if after.Generation != before.Generation || after.Workflow("small") == nil {
		t.Fatalf("disk changed by a failed save: generation %d", after.Generation)
	}
	if temps, _ := filepath.Glob(filepath.Join(home, ".baton-tmp-*")); len(temps) > 0 {
		t.Fatalf("failed save left %v", temps)
	}
	setFileSizeLimit(t, a.pid, ^uint64(0))
	a.ok(addWF("big", 1, "fail", "echo", big))
	if d := readDisk(t, home); d.Workflow("big") == nil || d.Workflow("small") == nil {
		t.Fatal("writes after the disk has room again are missing")
	}
}
