//go:build cgo

package proc

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The child mode of these tests: a stand-in for a window that takes a flock after
// DetachTeardown (when asked), makes some memory resident, optionally leaves a long
// child process behind (as a window leaves supervisors), and reports its keeper's pid.
func TestMain(m *testing.M) {
	if lockPath := os.Getenv("PROC_TEST_HOLDER"); lockPath != "" {
		holder(lockPath)
		return
	}
	os.Exit(m.Run())
}

func holder(lockPath string) {
	keeper := 0
	if os.Getenv("PROC_TEST_KEEPER") == "1" {
		k, err := DetachTeardown()
		if err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		keeper = k
	}
	f, err := os.OpenFile(lockPath, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil || syscall.Flock(int(f.Fd()), syscall.LOCK_EX) != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	mb, _ := strconv.Atoi(os.Getenv("PROC_TEST_MB"))
	mem := make([]byte, mb<<20)
	for i := 0; i < len(mem); i += 4096 {
		mem[i] = 1
	}
	child := 0
	if os.Getenv("PROC_TEST_CHILD") == "1" {
		c := exec.Command("sleep", "300")
		if err := c.Start(); err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		child = c.Process.Pid
	}
	fmt.Println("ready", keeper, child)
	if os.Getenv("PROC_TEST_EXIT") == "1" {
		os.Exit(0)
	}
	for {
		time.Sleep(time.Hour)
		runtime.KeepAlive(f) // the lock's file must not be finalized (closed) while held
	}
}

type holderProc struct {
	cmd           *exec.Cmd
	keeper, child int
	lock          string
}

func startHolder(t testing.TB, keeper bool, mb int, child bool, exit bool) *holderProc {
	t.Helper()
	h := &holderProc{lock: filepath.Join(t.TempDir(), "state.lock")}
	h.cmd = exec.Command(os.Args[0], "-test.run=^$")
	flag := func(b bool) string {
		if b {
			return "1"
		}
		return "0"
	}
	h.cmd.Env = append(os.Environ(), "PROC_TEST_HOLDER="+h.lock, "PROC_TEST_KEEPER="+flag(keeper),
		"PROC_TEST_MB="+strconv.Itoa(mb), "PROC_TEST_CHILD="+flag(child), "PROC_TEST_EXIT="+flag(exit))
	out, err := h.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := h.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.cmd.Process.Kill(); _ = h.cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	var word string
	if _, err2 := fmt.Sscan(line, &word, &h.keeper, &h.child); err != nil || err2 != nil || word != "ready" {
		t.Fatalf("holder said %q (%v, %v)", line, err, err2)
	}
	if h.child != 0 {
		t.Cleanup(func() { _ = syscall.Kill(h.child, syscall.SIGKILL) })
	}
	return h
}

// waitGone waits until pid is no longer a live process (gone or a zombie).
func waitGone(t testing.TB, pid int, what string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for Alive(pid, 0) {
		if time.Now().After(deadline) {
			t.Fatalf("%s (pid %d) still alive after 10 s", what, pid)
		}
		time.Sleep(time.Millisecond)
	}
}

// The keeper holds nothing but its pipe: it can never keep state.lock (or any lock,
// socket or file of the window) held. It closes the rest of its copy of the file table
// as its first act, which on a loaded machine may come a moment after DetachTeardown
// returned: the test waits for it (10 s at most), then checks what is left.
func TestKeeperHoldsOnlyItsPipe(t *testing.T) {
	h := startHolder(t, true, 0, false, false)
	if h.keeper <= 0 {
		t.Fatalf("no keeper pid: %d", h.keeper)
	}
	var targets []string
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", h.keeper))
		if err != nil {
			t.Fatal(err)
		}
		targets = targets[:0]
		for _, fd := range fds {
			l, _ := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", h.keeper, fd.Name()))
			targets = append(targets, l)
		}
		if len(targets) == 1 || time.Now().After(deadline) {
			break
		}
	}
	if len(targets) != 1 || !strings.HasPrefix(targets[0], "pipe:") {
		t.Fatalf("keeper's open files: %q, want one pipe", targets)
	}
}

// A window killed with -9 takes its keeper with it, even when it leaves a child
// process running (as windows leave supervisors): the keeper's pipe end is close-on-exec.
func TestKeeperEndsWithItsWindow(t *testing.T) {
	for _, c := range []struct {
		name        string
		child, exit bool
	}{{"kill -9", false, false}, {"kill -9 leaving a child", true, false}, {"normal exit", false, true}} {
		t.Run(c.name, func(t *testing.T) {
			h := startHolder(t, true, 16, c.child, c.exit)
			if !c.exit {
				_ = h.cmd.Process.Kill()
			}
			_ = h.cmd.Wait()
			waitGone(t, h.keeper, "the keeper of a dead window")
			if c.child && !Alive(h.child, 0) {
				t.Fatal("the window's child died too: the test proves nothing about it")
			}
		})
	}
}

// The lock of a window killed with -9 is free while its memory is still in use: with
// the keeper stopped (so the address space cannot be freed) the waiter still wins the
// lock, and the keeper, once let go, ends. Were the lock's file in the keeper's table,
// or the keeper sharing the window's file table, the waiter would never win here.
func TestKeeperFreesTheLockBeforeTheMemory(t *testing.T) {
	h := startHolder(t, true, 64, false, false)
	if err := syscall.Kill(h.keeper, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	defer syscall.Kill(h.keeper, syscall.SIGCONT)
	f, err := os.OpenFile(h.lock, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got := make(chan error, 1)
	go func() { got <- syscall.Flock(int(f.Fd()), syscall.LOCK_EX) }()
	_ = h.cmd.Process.Kill()
	select {
	case err := <-got:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the dead window's lock is still held while its keeper is stopped")
	}
	if !Alive(h.keeper, 0) {
		t.Fatal("the stopped keeper is gone: the test proves nothing")
	}
	_ = syscall.Kill(h.keeper, syscall.SIGCONT)
	_ = h.cmd.Wait()
	waitGone(t, h.keeper, "the keeper")
}

// BenchmarkKillToLockFree measures kill -9 of a process holding a flock until a waiter in
// this process wins it, with and without a teardown keeper, for a small and a
// desktop-sized resident set:
//
//	go test -run '^$' -bench KillToLockFree -benchtime 20x ./workflow/proc/
func BenchmarkKillToLockFree(b *testing.B) {
	for _, mb := range []int{16, 180} {
		for _, keeper := range []bool{false, true} {
			b.Run(fmt.Sprintf("resident=%dMB,keeper=%v", mb, keeper), func(b *testing.B) {
				var took []time.Duration
				for i := 0; i < b.N; i++ {
					h := startHolder(b, keeper, mb, false, false)
					f, err := os.OpenFile(h.lock, os.O_RDWR, 0)
					if err != nil {
						b.Fatal(err)
					}
					got := make(chan time.Time)
					go func() { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_EX); got <- time.Now() }()
					waitWaiter(b, os.Getpid())
					t0 := time.Now()
					_ = h.cmd.Process.Kill()
					took = append(took, (<-got).Sub(t0))
					_ = h.cmd.Wait()
					f.Close()
				}
				slices.Sort(took)
				b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "p50-ms")
				b.ReportMetric(float64(took[len(took)*99/100].Microseconds())/1000, "p99-ms")
			})
		}
	}
}

// waitWaiter waits until process pid waits for a flock (/proc/locks marks waiters "->").
func waitWaiter(b testing.TB, pid int) {
	want := " " + strconv.Itoa(pid) + " "
	for {
		data, _ := os.ReadFile("/proc/locks")
		for _, l := range strings.Split(string(data), "\n") {
			if strings.Contains(l, "->") && strings.Contains(l, want) {
				return
			}
		}
		time.Sleep(100 * time.Microsecond)
	}
}
