package workflow

import (
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

// The reaper's process evidence, each case with real processes: what /proc says decides,
// never a timestamp.

// waitUntil polls cond (an observable state: a file, /proc) until it holds or timeout.
func waitUntil(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", timeout, what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// spawn starts argv as a child of the test, in its own process group if pgrp, and makes
// sure it is killed and reaped when the test ends.
func spawn(t *testing.T, env []string, pgrp bool, argv ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: pgrp}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	return cmd
}

// pidFile waits for a pid written (atomically, by rename) to path.
func pidFile(t *testing.T, path string) int {
	t.Helper()
	var pid int
	waitUntil(t, 30*time.Second, path, func() bool {
		b, err := os.ReadFile(path)
		if err != nil {
			return false
		}
		pid, err = strconv.Atoi(strings.TrimSpace(string(b)))
		return err == nil
	})
	return pid
}

// killLater kills pid at the end of the test if it is still that process (a test that
// fails must not leave a sleeper behind, nor kill a process that reused its pid).
func killLater(t *testing.T, pid int) uint64 {
	t.Helper()
	start, err := proc.Start(pid)
	if err != nil {
		t.Fatalf("pid %d is gone already: %v", pid, err)
	}
	t.Cleanup(func() {
		if proc.Alive(pid, start) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	return start
}

// TestKillRunFindsProcessThatLeftItsGroup: a step's child that called setsid is in no
// group the run recorded; KillRun finds it by its BATON_RUN_ID/BATON_HOME markers.
func TestKillRunFindsProcessThatLeftItsGroup(t *testing.T) {
	home, marks := t.TempDir(), t.TempDir()
	id := NewRunID(1)
	// The step (a group leader, like the executor's) starts a child that leaves its
	// process group and session, then waits.
	step := spawn(t, []string{EnvRunID + "=" + id, EnvHome + "=" + home}, true, "sh", "-c",
		`setsid sh -c 'echo $$ > "$0/esc.tmp"; mv "$0/esc.tmp" "$0/esc"; exec sleep 300' "$0" & wait`, marks)
	leader := step.Process.Pid
	leaderStart := killLater(t, leader)
	esc := pidFile(t, filepath.Join(marks, "esc"))
	escStart := killLater(t, esc)
	st, err := proc.Stat(esc)
	if err != nil || st.PGID == leader {
		t.Fatalf("the escaped process %d is still in the step's group %d (%+v, %v)", esc, leader, st, err)
	}
	r := &store.Run{ID: id, Status: store.StatusRunning, PGID: leader, StepPID: leader, StepStart: leaderStart}
	killed, gone := KillRun(home, r, 20*time.Second)
	if !gone {
		t.Fatalf("KillRun reports survivors (signalled %v)", killed)
	}
	if proc.Alive(esc, escStart) {
		t.Fatalf("the process %d that left the run's group (by setsid) survived KillRun (signalled %v)", esc, killed)
	}
	if proc.Alive(leader, leaderStart) {
		t.Fatalf("the step %d survived KillRun", leader)
	}
}

// TestKillRunSparesRecycledGroup: the run's recorded group leader pid now belongs to a
// live process with another start time that leads its own group: that process is not the
// run's and is not killed, and the run counts as gone without waiting for it.
func TestKillRunSparesRecycledGroup(t *testing.T) {
	home := t.TempDir()
	other := spawn(t, nil, true, "sleep", "300").Process.Pid
	start := killLater(t, other)
	r := &store.Run{ID: NewRunID(2), Status: store.StatusRunning, PGID: other, StepPID: other, StepStart: start + 1}
	killed, gone := KillRun(home, r, 20*time.Second)
	if !proc.Alive(other, start) {
		t.Fatalf("KillRun killed pid %d, which reused the recorded group leader's pid (signalled %v)", other, killed)
	}
	if !gone || len(killed) != 0 {
		t.Fatalf("KillRun: signalled %v, gone %v; want nothing signalled and the run's processes gone", killed, gone)
	}
}

// TestProcessEvidence: Alive and Exiting, the primitives of owner and step liveness, on a
// live process, the same pid with another start time, a zombie, and a reaped pid.
func TestProcessEvidence(t *testing.T) {
	live := spawn(t, nil, false, "sleep", "300").Process.Pid
	start := killLater(t, live)
	if !proc.Alive(live, start) || proc.Exiting(live, start) {
		t.Fatalf("live process %d: Alive %v, Exiting %v", live, proc.Alive(live, start), proc.Exiting(live, start))
	}
	// A recycled pid: a live process with the recorded pid but another start time.
	if proc.Alive(live, start+1) || !proc.Exiting(live, start+1) {
		t.Fatalf("pid %d with another start time taken for the recorded process: Alive %v, Exiting %v",
			live, proc.Alive(live, start+1), proc.Exiting(live, start+1))
	}
	// A dying process: exited, not yet reaped by its parent (this test).
	z := spawn(t, nil, false, "sh", "-c", "exit 0")
	zpid := z.Process.Pid
	waitUntil(t, 30*time.Second, "the child to become a zombie", func() bool {
		st, err := proc.Stat(zpid)
		return err == nil && st.State == 'Z'
	})
	zstart, err := proc.Start(zpid)
	if err != nil {
		t.Fatalf("zombie %d has no start time: %v", zpid, err)
	}
	if proc.Alive(zpid, zstart) || !proc.Exiting(zpid, zstart) || proc.Alive(zpid, 0) {
		t.Fatalf("zombie %d counted alive: Alive %v, Exiting %v", zpid, proc.Alive(zpid, zstart), proc.Exiting(zpid, zstart))
	}
	_ = z.Wait()
	if proc.Alive(zpid, zstart) || !proc.Exiting(zpid, zstart) {
		t.Fatalf("reaped pid %d counted alive", zpid)
	}
}
