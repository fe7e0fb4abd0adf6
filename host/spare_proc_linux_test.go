package host

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"baton/workflow"
)

// A writer keeps one spare supervisor started ahead of its next run (workflow/spare.go).
// These tests prove that the spare never outlives its writer's role: kill -9 of the
// window, its graceful close, or its hand-over to another window each leave no spare.

// spareOf waits until window pid has a spare supervisor (a child running
// `__supervise --spare`) and returns its pid. A window starts its spare in the background
// once it is the writer; no event says so, so /proc is polled.
func spareOf(t *testing.T, pid int) int {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; {
		if sp := childrenWithArgs(pid, workflow.SuperviseArg, workflow.SpareArg); len(sp) > 0 {
			return sp[0]
		}
		if time.Now().After(deadline) {
			t.Fatalf("window %d has no spare supervisor after 30s", pid)
		}
		time.Sleep(2 * time.Millisecond) // starting a process has no event to wait on
	}
}

// childrenWithArgs lists the live children of parent whose arguments after the program
// are args.
func childrenWithArgs(parent int, args ...string) []int {
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		cmdline, err2 := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		if err != nil || err2 != nil {
			continue
		}
		f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
		argv := strings.Split(strings.TrimRight(string(cmdline), "\x00"), "\x00")
		if len(f) > 1 && f[1] == strconv.Itoa(parent) && len(argv) == len(args)+1 && strings.Join(argv[1:], " ") == strings.Join(args, " ") {
			out = append(out, pid)
		}
	}
	return out
}

// waitProcGone waits, on the kernel's word (a pidfd turns readable when its process
// exits), until pid is gone; it fails the test after d.
func waitProcGone(t *testing.T, pid int, d time.Duration, what string) {
	t.Helper()
	fd, err := unix.PidfdOpen(pid, 0)
	if errors.Is(err, unix.ESRCH) {
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	deadline := time.Now().Add(d)
	for {
		n, err := unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}, int(time.Until(deadline).Milliseconds()))
		if n == 1 {
			return
		}
		if (err != nil && err != unix.EINTR) || time.Now().After(deadline) {
			t.Fatalf("%s: spare %d still alive after %s (%v)", what, pid, d, err)
		}
	}
}

// TestSpareGoesWithKilledWriter: kill -9 of the writer leaves no spare: the spare exits by
// itself when its socket's other end closes with the window.
func TestSpareGoesWithKilledWriter(t *testing.T) {
	t.Parallel()
	w := startChild(t, t.TempDir())
	w.waitWriter(10 * time.Second)
	spare := spareOf(t, w.pid)
	w.kill9()
	waitProcGone(t, spare, 30*time.Second, "writer killed -9")
}

// TestSpareGoesWithClosedWindow: a writer closed gracefully leaves no spare.
func TestSpareGoesWithClosedWindow(t *testing.T) {
	t.Parallel()
	w := startChild(t, t.TempDir())
	w.waitWriter(10 * time.Second)
	spare := spareOf(t, w.pid)
	if err := w.close(); err != nil {
		t.Fatal(err)
	}
	waitProcGone(t, spare, 30*time.Second, "window closed")
}

// TestSpareGoesWithHandOver: a writer that hands over and stays open as a reader has
// stopped its spare (while it lives: no EOF helps here), and the new writer has its own.
func TestSpareGoesWithHandOver(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	a := startChild(t, home)
	a.waitWriter(10 * time.Second)
	spare := spareOf(t, a.pid)
	b := startChild(t, home)
	b.initialRole()
	na := a.nEvents()
	if r := b.ok(map[string]any{"op": "request_write"}); r["role"] != "writer" {
		t.Fatalf("request_write replied %v", r)
	}
	a.waitEvent(na, 10*time.Second, eventIs("role", "role", "reader"))
	waitProcGone(t, spare, 30*time.Second, "hand-over")
	if st := a.ok(map[string]any{"op": "status"}); st["role"] != "reader" {
		t.Fatalf("the old writer is %v, want a reader that stays open", st["role"])
	}
	spareOf(t, b.pid)
	if left := childrenWithArgs(a.pid, workflow.SuperviseArg, workflow.SpareArg); len(left) > 0 {
		t.Fatalf("the reader keeps spares %v", left)
	}
}

// waitSpareWaiting waits until window pid's spare supervisor has started up and waits for
// a run (one of its threads is in recvmsg(2)), as a person's next run finds it. Starting
// up has no event to wait on, so /proc is polled.
func waitSpareWaiting(tb testing.TB, pid int) {
	tb.Helper()
	recvmsg := map[string]string{"amd64": "47", "arm64": "212"}[runtime.GOARCH]
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(time.Millisecond) {
		for _, sp := range childrenWithArgs(pid, workflow.SuperviseArg, workflow.SpareArg) {
			calls, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/syscall", sp))
			for _, c := range calls {
				if b, _ := os.ReadFile(c); strings.HasPrefix(string(b), recvmsg+" ") {
					return
				}
			}
		}
		if time.Now().After(deadline) {
			tb.Fatalf("window %d has no spare supervisor waiting for a run after 30s", pid)
		}
	}
}
