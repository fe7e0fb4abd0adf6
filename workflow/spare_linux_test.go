package workflow

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"baton/store"
	"baton/workflow/proc"
)

// init lets this test binary be a spare supervisor (`__supervise --spare`), as the baton
// binary is: the engines of these tests keep spares started from os.Executable(). With
// BATON_TEST_SPARE_OWNER=1 it is a window that keeps a spare, prints its pid and waits to
// be killed.
func init() {
	if len(os.Args) > 1 && os.Args[1] == SuperviseArg {
		os.Exit(SuperviseMain(os.Args[2:]))
	}
	if os.Getenv("BATON_TEST_SPARE_OWNER") == "1" {
		os.Exit(spareOwnerMain())
	}
}

func spareOwnerMain() int {
	p := &sparePool{}
	<-p.refill()
	if p.idle == nil {
		fmt.Fprintln(os.Stderr, "no spare:", p.failed)
		return 1
	}
	fmt.Println(p.idle.sup.PID)
	select {} // not synchronisation: the test kills this process
}

// readySpare starts a spare and waits until it is ready; at the end of the test it is
// stopped if it is still idle.
func readySpare(t testing.TB) *spare {
	t.Helper()
	p := &sparePool{}
	t.Cleanup(p.close)
	<-p.refill()
	sp := p.take()
	if sp == nil {
		t.Fatalf("no spare: %v", p.failed)
	}
	return sp
}

// waitGone waits, on the kernel's word (a pidfd becomes readable when its process exits),
// until pid is gone, and fails the test after d.
func waitGone(t testing.TB, pid int, d time.Duration) {
	t.Helper()
	fd, err := unix.PidfdOpen(pid, 0)
	if errors.Is(err, unix.ESRCH) {
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	for deadline := time.Now().Add(d); ; {
		n, err := unix.Poll(fds, int(time.Until(deadline).Milliseconds()))
		if n == 1 {
			return
		}
		if err != nil && err != unix.EINTR {
			t.Fatal(err)
		}
		if time.Now().After(deadline) {
			t.Fatalf("process %d still alive after %s", pid, d)
		}
	}
}

// heldFiles lists what pid has open under dir.
func heldFiles(t testing.TB, pid int, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		t.Fatal(err)
	}
	var held []string
	for _, e := range ents {
		if target, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, e.Name())); err == nil && strings.HasPrefix(target, dir) {
			held = append(held, target)
		}
	}
	return held
}

// TestSpareRunsARun: a spare handed a run is its supervisor as a started one is: the run's
// lock names it as the holder, it journals under its own pid, the step's output goes to
// the run log, the step holds neither the run's lock nor the hand-over socket, and the run
// ends.
func TestSpareRunsARun(t *testing.T) {
	spec := svSpec(t, svStep("one", `echo "one fd3=$(test -e /proc/self/fd/3 && echo open || echo closed) ready=${`+readyEnv+`-unset}"; ls -l /proc/self/fd`))
	sp := readySpare(t)
	if err := checkStart(spec); err != nil {
		t.Fatal(err)
	}
	sup, err := sp.handOff(spec)
	if err != nil {
		t.Fatal(err)
	}
	if h, ok := lockHolder(spec.Home, spec.RunID); !ok || h.PID != sup.PID || h.Start != sup.Start {
		t.Errorf("the run's lock names %+v (%v), want the spare %d/%d", h, ok, sup.PID, sup.Start)
	}
	j := svEnded(t, spec)
	if code := svExit(t, sup); code != 0 {
		t.Fatalf("spare exit code %d", code)
	}
	if j.SupervisorPID != sup.PID || j.Status != store.StatusSucceeded || len(j.Steps) != 1 {
		t.Fatalf("journal %+v, want succeeded under the spare %d", j, sup.PID)
	}
	log, _ := os.ReadFile(spec.Log)
	if !strings.Contains(string(log), "one fd3=closed ready=unset") || strings.Contains(string(log), filepath.Base(lockPath(spec.Home, spec.RunID))) {
		t.Errorf("run log (the step must see neither the socket nor the lock):\n%s", log)
	}
}

// TestSpareIdleIsNoRunsSupervisor: an idle spare holds nothing in the home and carries no
// run's marker, so a reaper killing what a run left (KillRuns) or a cleaner never takes it
// for a run's supervisor; it stays ready.
func TestSpareIdleIsNoRunsSupervisor(t *testing.T) {
	spec := svSpec(t, store.Step{Argv: []string{"true"}})
	if err := os.MkdirAll(runsDir(spec.Home), 0o700); err != nil {
		t.Fatal(err)
	}
	t.Setenv(EnvHome, spec.Home) // the window's own environment, which the spare inherits
	sp := readySpare(t)
	if held := heldFiles(t, sp.sup.PID, spec.Home); len(held) > 0 {
		t.Errorf("idle spare holds %v", held)
	}
	if _, gone := KillRuns(spec.Home, []*store.Run{{ID: spec.RunID}}, 5*time.Second); !gone {
		t.Fatal("KillRuns: not gone")
	}
	if sv := SupervisionOf(spec.Home, spec.RunID); sv.Alive || sv.Journal != nil {
		t.Errorf("the run has a supervisor: %+v", sv)
	}
	if !proc.Alive(sp.sup.PID, sp.sup.Start) {
		t.Fatal("the reaper killed the idle spare")
	}
	if _, err := sp.handOff(spec); err != nil {
		t.Fatalf("the spare is not ready after the reaper passed: %v", err)
	}
	svEnded(t, spec)
}

// TestSpareHandOffSeenByReaper: from the instant the run is sent, before the spare has
// read it, the run's lock is held and names the spare, so a reaper that finds the window
// dead then kills it (KillRuns) and the run runs nothing more.
func TestSpareHandOffSeenByReaper(t *testing.T) {
	spec := svSpec(t, svStep("one", `sleep 300`))
	sp := readySpare(t)
	if err := syscall.Kill(sp.sup.PID, syscall.SIGSTOP); err != nil { // it reads nothing yet
		t.Fatal(err)
	}
	if err := checkStart(spec); err != nil {
		t.Fatal(err)
	}
	lock, err := lockRun(spec.Home, spec.RunID, proc.SelfTag(), holder{PID: sp.sup.PID, Start: sp.sup.Start, Boot: proc.BootID()})
	if err != nil {
		t.Fatal(err)
	}
	if err := sendWithFile(sp.conn, lock, []byte(`{"run_id":"`+spec.RunID+`"}`+"\n")); err != nil {
		t.Fatal(err)
	}
	_ = lock.Close() // the window's part ends: it dies here
	if alive, why := SupervisorAlive(spec.Home, spec.RunID); !alive {
		t.Fatalf("run sent to a spare that has not read it: %s", why)
	}
	killed, gone := KillRuns(spec.Home, []*store.Run{{ID: spec.RunID}}, 10*time.Second)
	if !gone || !slicesContain(killed, -sp.sup.PID) {
		t.Fatalf("KillRuns signalled %v (gone %v), want the spare's group %d", killed, gone, sp.sup.PID)
	}
	<-sp.sup.Exited()
	if alive, why := SupervisorAlive(spec.Home, spec.RunID); alive {
		t.Fatalf("after the reaper: %s", why)
	}
	if _, err := ReadJournal(spec.Home, spec.RunID); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the killed spare began the run: %v", err)
	}
}

func slicesContain(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// TestSpareGoneRunStartsItsOwn: a spare that died idle is not handed the run: the engine
// starts a supervisor of its own, which can take the run's lock.
func TestSpareGoneRunStartsItsOwn(t *testing.T) {
	spec := svSpec(t, store.Step{Argv: []string{"true"}})
	sp := readySpare(t)
	sp.sup.kill()
	if err := checkStart(spec); err != nil {
		t.Fatal(err)
	}
	if _, err := sp.handOff(spec); !errors.Is(err, errSpareGone) {
		t.Fatalf("hand-over to a dead spare: %v, want errSpareGone", err)
	}
	sup := svStart(t, spec)
	if j := svEnded(t, spec); j.SupervisorPID != sup.PID || j.Status != store.StatusSucceeded {
		t.Fatalf("journal %+v", j)
	}
}

// TestSpareExitsWithItsWindow: the spare of a window killed with -9 exits by itself (its
// socket's other end closes with the window).
func TestSpareExitsWithItsWindow(t *testing.T) {
	owner := exec.Command(os.Args[0], "-test.run=^$")
	owner.Env = append(os.Environ(), "BATON_TEST_SPARE_OWNER=1")
	out, err := owner.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := owner.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = owner.Process.Kill(); _ = owner.Wait() }()
	line, err := bufio.NewReader(out).ReadString('\n')
	pid, _ := strconv.Atoi(strings.TrimSpace(line))
	if err != nil || pid <= 0 {
		t.Fatalf("the window printed %q (%v), want its spare's pid", line, err)
	}
	if err := owner.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = owner.Wait()
	waitGone(t, pid, 30*time.Second)
}

// TestSpareStopsWithItsEngine: an engine's spare is gone once Stop returns, and once its
// writer term ends without Stop.
func TestSpareStopsWithItsEngine(t *testing.T) {
	for _, how := range []string{"Stop", "Detach", "end of term"} {
		home := t.TempDir()
		st := store.New(home, store.Options{})
		st.Reload()
		st.BeginEpoch()
		ctx, cancel := context.WithCancel(context.Background())
		e := NewEngine(ctx, st.Update, store.Owner{PID: os.Getpid(), Instance: "test"}, home, nil)
		if _, err := e.Kick(); err != nil {
			t.Fatal(err)
		}
		<-e.spares.refill()
		e.spares.mu.Lock()
		sp := e.spares.idle
		e.spares.mu.Unlock()
		if sp == nil {
			t.Fatalf("%s: no spare: %v", how, e.spares.failed)
		}
		switch how {
		case "Stop":
			e.Stop("test")
		case "Detach":
			e.Detach()
		default:
			cancel()
		}
		select {
		case <-sp.sup.Exited():
		case <-time.After(30 * time.Second):
			t.Fatalf("%s: spare %d still running", how, sp.sup.PID)
		}
		cancel()
	}
}

// TestFirstSpareWaitsForTheTerm: a new writer term starts no spare during its first
// spareDelay (the takeover's time), then starts one by itself, without another Kick.
func TestFirstSpareWaitsForTheTerm(t *testing.T) {
	defer func(d time.Duration) { spareDelay = d }(spareDelay)
	spareDelay = 300 * time.Millisecond
	home := t.TempDir()
	st := store.New(home, store.Options{})
	st.Reload()
	st.BeginEpoch()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	t0 := time.Now()
	e := NewEngine(ctx, st.Update, store.Owner{PID: os.Getpid(), Instance: "test"}, home, nil)
	defer e.Stop("test")
	if _, err := e.Kick(); err != nil {
		t.Fatal(err)
	}
	<-e.spares.refill()
	idle := func() (*spare, bool) {
		e.spares.mu.Lock()
		defer e.spares.mu.Unlock()
		return e.spares.idle, e.spares.starting != nil
	}
	if sp, starting := idle(); (sp != nil || starting) && time.Since(t0) < spareDelay {
		t.Fatalf("a spare started %v into the term, before spareDelay", time.Since(t0))
	}
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if sp, _ := idle(); sp != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no spare 20 s into the term: %v", e.spares.failed)
		}
	}
	if took := time.Since(t0); took < spareDelay {
		t.Fatalf("spare ready %v into the term, before spareDelay %v", took, spareDelay)
	}
}

// BenchmarkSpareStart is BenchmarkSupervisorStart for a run handed to a ready spare
// (its checks, lock and hand-over included): p50_ms and p99_ms to the first step's
// process running, ready_ to handOff's return.
func BenchmarkSpareStart(b *testing.B) {
	var toStep, toReady []time.Duration
	for b.Loop() {
		b.StopTimer()
		spec := svSpec(b, store.Step{Argv: []string{"true"}})
		sp := readySpare(b)
		b.StartTimer()
		t0 := time.Now()
		if err := checkStart(spec); err != nil {
			b.Fatal(err)
		}
		sup, err := sp.handOff(spec)
		if err != nil {
			b.Fatal(err)
		}
		toReady = append(toReady, time.Since(t0))
		j := svStepStarted(b, spec, 0)
		toStep = append(toStep, j.Steps[0].Started.Sub(t0))
		if code := svExit(b, sup); code != 0 {
			b.Fatalf("supervisor exit %d", code)
		}
	}
	reportPercentiles(b, toStep, "")
	reportPercentiles(b, toReady, "ready_")
}
