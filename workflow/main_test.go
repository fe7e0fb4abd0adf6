package workflow

import (
	"encoding/json"
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

	"baton/store"
	"baton/workflow/proc"
)

// The test binary plays the other processes of the supervisor tests, selected by
// BATON_TEST_ROLE: "supervise" is the hidden mode (`baton __supervise`), "starter" is a
// window that starts a supervisor and then only waits to be killed.

func TestMain(m *testing.M) {
	role := os.Getenv("BATON_TEST_ROLE")
	_ = os.Unsetenv("BATON_TEST_ROLE")
	switch role {
	case "supervise":
		os.Exit(Supervise(os.Getenv("BATON_TEST_HOME"), os.Getenv("BATON_TEST_RUN"), nil))
	case "starter":
		os.Exit(starterMain())
	}
	hooks.supervisorCommand = testSupervisorCommand
	spareDelay = 0 // tests want their spare at once; TestFirstSpareWaitsForTheTerm sets its own
	os.Exit(m.Run())
}

// testSupervisorCommand re-runs this test binary as a supervisor, or runs the binary
// named by BATON_BENCH_SUPERVISOR (a build of a small main that calls Supervise; see
// supervisor_bench_test.go) with the real command line.
func testSupervisorCommand(home, runID string) *exec.Cmd {
	if bin := os.Getenv("BATON_BENCH_SUPERVISOR"); bin != "" {
		return exec.Command(bin, "__supervise", "--home", home, runID)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "BATON_TEST_ROLE=supervise", "BATON_TEST_HOME="+home, "BATON_TEST_RUN="+runID)
	return cmd
}

// starterMain starts the supervisor of the spec in $BATON_TEST_SPEC, writes the
// supervisor's pid to $BATON_TEST_SPEC.pid (by rename) and waits to be killed.
func starterMain() int {
	path := os.Getenv("BATON_TEST_SPEC")
	b, err := os.ReadFile(path)
	var spec Spec
	if err == nil {
		err = json.Unmarshal(b, &spec)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	hooks.supervisorCommand = testSupervisorCommand
	sup, err := StartSupervisor(spec)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	tmp := filepath.Join(filepath.Dir(path), ".pid.tmp")
	if err := os.WriteFile(tmp, []byte(fmt.Sprint(sup.PID)), 0o600); err != nil {
		return 1
	}
	if err := os.Rename(tmp, path+".pid"); err != nil {
		return 1
	}
	time.Sleep(time.Hour) // not synchronisation: the test kills this process
	return 0
}

// Helpers of the supervisor tests and benchmarks. Every wait is on the journal, the
// lock, /proc or a process, never a bare sleep.

// svSpec returns the spec of a new run in a fresh home.
func svSpec(t testing.TB, steps ...store.Step) Spec {
	home := t.TempDir()
	id := NewRunID(1)
	return Spec{RunID: id, Workflow: "w", Steps: steps, Home: home, Log: filepath.Join(home, "runs", id+".log")}
}

// svStart starts spec's supervisor; at the end of the test it kills whatever of the run
// is left (supervisor and steps) and waits until the supervisor is reaped.
func svStart(t testing.TB, spec Spec) *Supervisor {
	t.Helper()
	sup, err := StartSupervisor(spec)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if proc.Alive(sup.PID, sup.Start) {
			_ = syscall.Kill(sup.PID, syscall.SIGKILL)
		}
		KillRun(spec.Home, &store.Run{ID: spec.RunID}, 10*time.Second)
		select {
		case <-sup.Exited():
		case <-time.After(30 * time.Second):
			t.Errorf("supervisor %d was not reaped", sup.PID)
		}
	})
	return sup
}

// svJournal waits until the run's journal satisfies cond and returns it.
func svJournal(t testing.TB, spec Spec, what string, cond func(Journal) bool) Journal {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		j, err := ReadJournal(spec.Home, spec.RunID)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			t.Fatal(err)
		}
		if err == nil && cond(j) {
			return j
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s; journal: %+v", what, j)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

func svEnded(t testing.TB, spec Spec) Journal {
	t.Helper()
	return svJournal(t, spec, "the end record", func(j Journal) bool { return j.Ended })
}

func svStepStarted(t testing.TB, spec Spec, i int) Journal {
	t.Helper()
	return svJournal(t, spec, fmt.Sprintf("step %d's start", i), func(j Journal) bool { return len(j.Steps) > i && j.Steps[i].PID > 0 })
}

// svExit waits until this process has reaped the supervisor and returns its exit code.
func svExit(t testing.TB, sup *Supervisor) int {
	t.Helper()
	select {
	case <-sup.Exited():
		return sup.ExitCode()
	case <-time.After(60 * time.Second):
		t.Fatalf("supervisor %d did not exit", sup.PID)
		return -1
	}
}

// svProcField returns field n (1-based, as in proc(5)) of /proc/pid/stat.
func svProcField(t testing.TB, pid, n int) int {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	v, err := strconv.Atoi(f[n-3])
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// svLockFree reports whether runs/<id>.lock can be flocked right now.
func svLockFree(t testing.TB, spec Spec) bool {
	t.Helper()
	f, err := os.Open(lockPath(spec.Home, spec.RunID))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	return store.FlockFile(f, syscall.LOCK_EX|syscall.LOCK_NB) == nil
}

// svWatchBlocked waits until this process has a flock request blocked on the run's lock
// (a "->" line of /proc/locks with our pid and the lock's inode): the watch is parked in
// flock, not yet to be scheduled.
func svWatchBlocked(t testing.TB, spec Spec) {
	t.Helper()
	fi, err := os.Stat(lockPath(spec.Home, spec.RunID))
	if err != nil {
		t.Fatal(err)
	}
	ino := ":" + strconv.FormatUint(fi.Sys().(*syscall.Stat_t).Ino, 10)
	me := strconv.Itoa(os.Getpid())
	deadline := time.Now().Add(30 * time.Second)
	for {
		b, _ := os.ReadFile("/proc/locks")
		for _, l := range strings.Split(string(b), "\n") {
			f := strings.Fields(l)
			if len(f) >= 7 && f[1] == "->" && f[2] == "FLOCK" && f[5] == me && strings.HasSuffix(f[6], ino) {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("the watch never blocked on the run's lock")
		}
		time.Sleep(time.Millisecond)
	}
}

func svStep(name, script string, args ...string) store.Step {
	return store.Step{Name: name, Argv: append([]string{"sh", "-c", script}, args...)}
}
