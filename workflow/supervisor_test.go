package workflow

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"baton/store"
	"baton/workflow/proc"
)

// Supervisors with real processes: the test binary re-runs itself as the supervisor
// (main_test.go). Every wait is on the journal, the lock or a process, never a sleep.

// TestSupervisorRunsStepsAndJournals: two steps run in order, each in its own group, with
// the run's markers and a redacted secret; the journal tells the supervisor, each step's
// pid and group and exit, and the end; workflows.json is never touched.
func TestSupervisorRunsStepsAndJournals(t *testing.T) {
	two := svStep("two", `echo "two $API_TOKEN ready=${`+readyEnv+`-unset}"`)
	two.Env = map[string]string{"API_TOKEN": "hunter22"}
	spec := svSpec(t, svStep("one", `echo "one run=$BATON_RUN_ID home=$BATON_HOME"; grep SigIgn /proc/self/status`), two)
	direct, err := exec.Command("grep", "SigIgn", "/proc/self/status").Output()
	if err != nil {
		t.Fatal(err)
	}
	doc := filepath.Join(spec.Home, "workflows.json")
	if err := os.WriteFile(doc, []byte(`{"sentinel":1}`), 0o600); err != nil {
		t.Fatal(err)
	}
	before, _ := os.Stat(doc)
	sup := svStart(t, spec)
	j := svEnded(t, spec)
	if code := svExit(t, sup); code != 0 {
		t.Fatalf("supervisor exit code %d, want 0", code)
	}
	if j.SupervisorPID != sup.PID || j.SupervisorStart != sup.Start || j.Boot != proc.BootID() {
		t.Errorf("start record names pid %d start %d boot %q; the supervisor is %d/%d", j.SupervisorPID, j.SupervisorStart, j.Boot, sup.PID, sup.Start)
	}
	if j.Status != store.StatusSucceeded || j.Exit == nil || *j.Exit != 0 || j.Error != "" || len(j.Steps) != 2 {
		t.Fatalf("journal %+v, want succeeded with exit 0 after 2 steps", j)
	}
	for i, st := range j.Steps {
		if st.Index != i || st.PID <= 0 || st.PGID != st.PID || st.Start == 0 || !st.Ended || st.Exit == nil || *st.Exit != 0 {
			t.Errorf("step %d: %+v", i, st)
		}
	}
	if !j.Steps[0].EndedAt.After(j.Started) || j.Steps[1].Started.Before(j.Steps[0].EndedAt) {
		t.Errorf("steps not in order: %+v", j)
	}
	log, _ := os.ReadFile(spec.Log)
	for _, want := range []string{
		`== step 1 of 2 (one): ["sh" "-c"`, "one run=" + spec.RunID + " home=" + spec.Home,
		`== step 2 of 2 (two): ["sh" "-c"`, "two " + SecretMask + " ready=unset",
		string(direct), // the steps ignore the signals a command started by the test does
	} {
		if !strings.Contains(string(log), want) {
			t.Errorf("log lacks %q:\n%s", want, log)
		}
	}
	if strings.Contains(string(log), "hunter22") {
		t.Errorf("the secret is in the log:\n%s", log)
	}
	if after, _ := os.Stat(doc); !after.ModTime().Equal(before.ModTime()) || after.Size() != before.Size() {
		t.Errorf("the supervisor touched workflows.json")
	}
	if alive, why := SupervisorAlive(spec.Home, spec.RunID); alive {
		t.Errorf("SupervisorAlive after the supervisor exited: %s", why)
	}
}

// TestStartSupervisorReturnsWhenReady: when StartSupervisor returns, the lock is held and
// the start record is written, naming the process it started.
func TestStartSupervisorReturnsWhenReady(t *testing.T) {
	spec := svSpec(t, store.Step{Argv: []string{"sleep", "300"}}) // killed at cleanup
	sup := svStart(t, spec)
	alive, why := SupervisorAlive(spec.Home, spec.RunID)
	j, err := ReadJournal(spec.Home, spec.RunID)
	if err != nil || j.SupervisorPID != sup.PID || j.SupervisorStart != sup.Start {
		t.Errorf("at return: journal %+v, %v; want a start record for pid %d", j, err, sup.PID)
	}
	if !alive {
		t.Errorf("at return the supervisor's lock was not held: %s", why)
	}
}

// TestSupervisorFailingStep: a step that exits 3 fails the run with that code and the
// next step never starts.
func TestSupervisorFailingStep(t *testing.T) {
	spec := svSpec(t, svStep("boom", "exit 3"), store.Step{Argv: []string{"true"}})
	sup := svStart(t, spec)
	j := svEnded(t, spec)
	if j.Status != store.StatusFailed || j.Exit == nil || *j.Exit != 3 || j.Error != "step 1 (boom) exited with code 3" {
		t.Fatalf("journal %+v, want failed with exit 3 naming step 1", j)
	}
	if len(j.Steps) != 1 || j.Steps[0].Exit == nil || *j.Steps[0].Exit != 3 {
		t.Fatalf("steps %+v: want only step 1, exit 3", j.Steps)
	}
	if code := svExit(t, sup); code != 0 {
		t.Fatalf("supervisor exit code %d, want 0 (the run's end is recorded)", code)
	}
}

// TestSupervisorStepTimeoutKillsGroup: a step over its timeout fails the run naming the
// timeout, and every process of its group (a background child included) is gone.
func TestSupervisorStepTimeoutKillsGroup(t *testing.T) {
	bg := filepath.Join(t.TempDir(), "bg")
	step := svStep("slow", `sleep 300 & echo $! > "$0.tmp"; mv "$0.tmp" "$0"; wait`, bg)
	step.Timeout = store.Duration(time.Second)
	spec := svSpec(t, step)
	svStart(t, spec)
	j := svEnded(t, spec)
	if j.Status != store.StatusFailed || !strings.Contains(j.Error, "timed out after 1s") {
		t.Fatalf("journal %+v, want failed naming the 1s timeout", j)
	}
	if st := j.Steps[0]; st.Exit != nil || !strings.Contains(st.Error, "timed out") {
		t.Errorf("step record %+v, want no exit code and the timeout", st)
	}
	if proc.GroupAlive(j.Steps[0].PGID) {
		t.Errorf("group %d of the timed-out step is still alive", j.Steps[0].PGID)
	}
	if b, err := os.ReadFile(bg); err == nil { // the shell got as far as starting it
		if pid, _ := strconv.Atoi(strings.TrimSpace(string(b))); proc.Alive(pid, 0) {
			t.Errorf("the step's background child %d survived the timeout", pid)
		}
	}
}

// TestSupervisorCancel: the cancel file plus SIGTERM ends the run cancelled with the
// reason, and the step's group is gone.
func TestSupervisorCancel(t *testing.T) {
	spec := svSpec(t, svStep("wait", "sleep 300 & wait"), store.Step{Argv: []string{"true"}})
	sup := svStart(t, spec)
	pgid := svStepStarted(t, spec, 0).Steps[0].PGID
	if err := RequestCancel(spec.Home, spec.RunID, "stopped by a test"); err != nil {
		t.Fatal(err)
	}
	j := svEnded(t, spec)
	if j.Status != store.StatusCancelled || j.Error != "stopped by a test" || len(j.Steps) != 1 {
		t.Fatalf("journal %+v, want cancelled with the reason after one step", j)
	}
	if !strings.Contains(j.Steps[0].Error, "cancelled: stopped by a test") {
		t.Errorf("step record %+v does not say it was cancelled", j.Steps[0])
	}
	if proc.GroupAlive(pgid) {
		t.Errorf("group %d of the cancelled step is still alive", pgid)
	}
	if code := svExit(t, sup); code != 0 {
		t.Fatalf("supervisor exit code %d, want 0", code)
	}
	if err := RequestCancel(spec.Home, spec.RunID, "again"); err != nil {
		t.Errorf("cancelling an ended run: %v, want nil", err)
	}
}

// TestSupervisorKill9: kill -9 of the supervisor while a step runs closes the watch
// channel (its lock is released by the kernel), leaves the journal with a step_start and
// no end, and leaves the step running for the writer's reaper. A torn line appended as a
// crash mid-append would leave it is ignored.
func TestSupervisorKill9(t *testing.T) {
	spec := svSpec(t, svStep("wait", "sleep 300 & wait"))
	sup := svStart(t, spec)
	step := svStepStarted(t, spec, 0).Steps[0]
	t.Cleanup(func() {
		KillRun(spec.Home, &store.Run{ID: spec.RunID, PGID: step.PGID, StepStart: step.Start}, 10*time.Second)
	})
	dead, stop := WatchSupervisor(spec.Home, spec.RunID)
	defer stop()
	svWatchBlocked(t, spec)
	if alive, why := SupervisorAlive(spec.Home, spec.RunID); !alive {
		t.Fatalf("supervisor reported dead while it runs: %s", why)
	}
	select {
	case <-dead:
		t.Fatal("the watch fired while the supervisor lives")
	default:
	}
	t0 := time.Now()
	if err := syscall.Kill(sup.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	select {
	case <-dead:
		t.Logf("watch woke %s after kill -9", time.Since(t0))
	case <-time.After(30 * time.Second):
		t.Fatal("the watch did not notice the supervisor's death")
	}
	if alive, why := SupervisorAlive(spec.Home, spec.RunID); alive {
		t.Errorf("SupervisorAlive after kill -9: %s", why)
	}
	if !proc.Alive(step.PID, step.Start) {
		t.Errorf("the step %d died with its supervisor; it should be left for the reaper", step.PID)
	}
	f, err := os.OpenFile(journalPath(spec.Home, spec.RunID), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = f.WriteString(`{"type":"step_end","at":"20`)
	_ = f.Close()
	j, err := ReadJournal(spec.Home, spec.RunID)
	if err != nil || j.Ended || !j.Torn || len(j.Steps) != 1 || j.Steps[0].Ended || j.Steps[0].PID != step.PID {
		t.Fatalf("journal after the crash: %+v, %v; want step 1 started, not ended, torn tail ignored", j, err)
	}
}

// TestSupervisorOutlivesStarter: the supervisor is in its own session, so killing its
// starter's whole process group (a window dying with its group) leaves the run going to
// its end.
func TestSupervisorOutlivesStarter(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "go")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	spec := svSpec(t, svStep("wait", `cat "$0" >/dev/null`, fifo))
	specFile := filepath.Join(t.TempDir(), "spec.json")
	b, _ := json.Marshal(spec)
	if err := os.WriteFile(specFile, b, 0o600); err != nil {
		t.Fatal(err)
	}
	starter := exec.Command(os.Args[0], "-test.run=^$")
	starter.Env = append(os.Environ(), "BATON_TEST_ROLE=starter", "BATON_TEST_SPEC="+specFile)
	starter.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := starter.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(-starter.Process.Pid, syscall.SIGKILL); _ = starter.Wait() })
	pid := 0
	j := svJournal(t, spec, "the step's start", func(j Journal) bool { return len(j.Steps) == 1 })
	// The starter writes the pid once StartSupervisor returned, which may be after the
	// step's start is journaled: wait for the file that says it.
	for deadline := time.Now().Add(10 * time.Second); pid == 0 && time.Now().Before(deadline); {
		if b, err := os.ReadFile(specFile + ".pid"); err == nil {
			pid, _ = strconv.Atoi(string(b))
		}
		if pid == 0 {
			time.Sleep(5 * time.Millisecond)
		}
	}
	if pid == 0 || pid != j.SupervisorPID {
		t.Fatalf("starter reported supervisor pid %d, journal says %d", pid, j.SupervisorPID)
	}
	start, _ := proc.Start(pid)
	t.Cleanup(func() {
		if proc.Alive(pid, start) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		KillRun(spec.Home, &store.Run{ID: spec.RunID}, 10*time.Second)
	})
	if sid, mine := svProcField(t, pid, 6), svProcField(t, os.Getpid(), 6); sid != pid || sid == mine {
		t.Fatalf("supervisor %d is in session %d (the test's is %d); want its own", pid, sid, mine)
	}
	if err := syscall.Kill(-starter.Process.Pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = starter.Wait()
	if !proc.Alive(pid, start) || !proc.Alive(j.Steps[0].PID, j.Steps[0].Start) {
		t.Fatalf("killing the starter's group killed the supervisor (%v) or its step (%v)", proc.Alive(pid, start), proc.Alive(j.Steps[0].PID, j.Steps[0].Start))
	}
	w, err := os.OpenFile(fifo, os.O_WRONLY, 0) // lets the step finish
	if err != nil {
		t.Fatal(err)
	}
	_ = w.Close()
	if j := svEnded(t, spec); j.Status != store.StatusSucceeded {
		t.Fatalf("journal %+v, want the run to succeed without its starter", j)
	}
}

// TestStartSupervisorOnePerRun: a second supervisor for a run whose supervisor lives is
// refused before it starts anything or touches the run's spec, and so is removing the
// run's files; once that supervisor is dead (kill -9), its files are removed and the run
// id can be started again.
func TestStartSupervisorOnePerRun(t *testing.T) {
	spec := svSpec(t, svStep("wait", "sleep 300 & wait"))
	first := svStart(t, spec)
	step := svStepStarted(t, spec, 0).Steps[0]
	other := spec
	other.Steps = []store.Step{{Argv: []string{"false"}}}
	_, err := StartSupervisor(other)
	if !errors.Is(err, ErrSupervisorStart) || !errors.Is(err, ErrSupervisorRunning) {
		t.Fatalf("second supervisor: %v, want it refused because one is running", err)
	}
	if got, err := readSpec(spec.Home, spec.RunID); err != nil || got.Steps[0].Argv[0] != "sh" {
		t.Fatalf("the refused start replaced the live run's spec: %+v, %v", got, err)
	}
	if err := RemoveSupervisorFiles(spec.Home, spec.RunID); !errors.Is(err, ErrSupervisorRunning) {
		t.Fatalf("removing a live run's files: %v, want ErrSupervisorRunning", err)
	}
	dead, stop := WatchSupervisor(spec.Home, spec.RunID)
	defer stop()
	_ = syscall.Kill(first.PID, syscall.SIGKILL)
	<-dead
	KillRun(spec.Home, &store.Run{ID: spec.RunID, PGID: step.PGID, StepStart: step.Start}, 10*time.Second)
	if err := RemoveSupervisorFiles(spec.Home, spec.RunID); err != nil { // the writer folded it
		t.Fatal(err)
	}
	for _, p := range []string{journalPath(spec.Home, spec.RunID), specPath(spec.Home, spec.RunID), lockPath(spec.Home, spec.RunID)} {
		if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s left after RemoveSupervisorFiles: %v", p, err)
		}
	}
	spec.Steps = []store.Step{{Argv: []string{"true"}}}
	svStart(t, spec)
	if j := svEnded(t, spec); j.Status != store.StatusSucceeded {
		t.Fatalf("run after replacing the stale lock: %+v", j)
	}
}

// TestWatchSupervisorStop: a watch stopped while blocked in flock does not close its
// channel when the supervisor ends, and lets the lock go once it has won it.
func TestWatchSupervisorStop(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "go")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	spec := svSpec(t, svStep("wait", `cat "$0" >/dev/null`, fifo))
	sup := svStart(t, spec)
	dead, stop := WatchSupervisor(spec.Home, spec.RunID)
	svWatchBlocked(t, spec) // stopped while parked in flock, the case that cannot be woken
	stop()
	w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	_ = w.Close()
	svExit(t, sup)
	deadline := time.Now().Add(30 * time.Second)
	for !svLockFree(t, spec) { // the stopped watch lets it go once it wins it
		if time.Now().After(deadline) {
			t.Fatal("the lock is still held after the supervisor exited")
		}
		time.Sleep(2 * time.Millisecond)
	}
	select { // must not happen: a bounded wait for a stopped watch to misfire
	case <-dead:
		t.Fatal("a stopped watch closed its channel")
	case <-time.After(300 * time.Millisecond):
	}
}

// TestStartSupervisorBoundedWhenNotReady: a supervisor that dies before it is ready, or
// never becomes ready, makes StartSupervisor fail within its bound, the process gone.
func TestStartSupervisorBoundedWhenNotReady(t *testing.T) {
	defer func(c func(string, string) *exec.Cmd, d time.Duration) {
		hooks.supervisorCommand, supervisorReadyTimeout = c, d
	}(hooks.supervisorCommand, supervisorReadyTimeout)
	for _, c := range []struct {
		argv  []string
		bound time.Duration // long for "false": a loaded machine must not make its exit late
		want  string
	}{
		{[]string{"false"}, 30 * time.Second, "exited before it was ready (supervisor pid "},
		{[]string{"sleep", "300"}, 500 * time.Millisecond, "not ready after 500ms (supervisor pid "},
	} {
		supervisorReadyTimeout = c.bound
		hooks.supervisorCommand = func(string, string) *exec.Cmd { return exec.Command(c.argv[0], c.argv[1:]...) }
		spec := svSpec(t, store.Step{Argv: []string{"true"}})
		var sup *Supervisor
		var err error
		returned := make(chan struct{})
		go func() { sup, err = StartSupervisor(spec); close(returned) }()
		select {
		case <-returned:
		case <-time.After(c.bound + 20*time.Second):
			t.Fatalf("%v: StartSupervisor did not return within %s", c.argv, c.bound+20*time.Second)
		}
		if sup != nil || !errors.Is(err, ErrSupervisorStart) || !strings.Contains(err.Error(), c.want) {
			t.Fatalf("%v: StartSupervisor = %v, %v; want ErrSupervisorStart saying %q", c.argv, sup, err, c.want)
		}
		if c.argv[0] == "sleep" && !strings.HasSuffix(err.Error(), "signal: killed)") {
			t.Errorf("%v: %v; want the supervisor killed and reaped", c.argv, err)
		}
	}
}

// TestLockRunExclusive: the supervisor's own guard, for two supervisors started at once:
// the run's lock is taken by one of them only; a free lock left by a dead one is replaced
// (the path then names the new holder's file); no temp file is left behind; a held lock
// whose journal has no start record yet is alive.
func TestLockRunExclusive(t *testing.T) {
	home, id := t.TempDir(), NewRunID(1)
	if err := os.MkdirAll(runsDir(home), 0o700); err != nil {
		t.Fatal(err)
	}
	first, err := lockRun(home, id, "1.1", selfHolder())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lockRun(home, id, "2.2", selfHolder()); !errors.Is(err, ErrSupervisorRunning) {
		t.Fatalf("second lock while the first is held: %v, want ErrSupervisorRunning", err)
	}
	_ = first.Close() // its holder died
	third, err := lockRun(home, id, "3.3", selfHolder())
	if err != nil {
		t.Fatalf("lock after the holder died: %v", err)
	}
	defer third.Close()
	if !samePath(third, lockPath(home, id)) {
		t.Fatal("the run's lock path does not name the new holder's file")
	}
	if alive, why := SupervisorAlive(home, id); !alive {
		t.Fatalf("lock held, yet %s", why)
	}
	ents, _ := os.ReadDir(runsDir(home))
	if len(ents) != 1 {
		t.Fatalf("runs folder holds %v, want only the lock", ents)
	}
	// A supervisor between its lock and its start record is alive.
	if err := os.WriteFile(journalPath(home, id), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if alive, why := SupervisorAlive(home, id); !alive {
		t.Fatalf("lock held with an empty journal, yet %s", why)
	}
}
