package host

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gofrs/flock"

	"baton/store"
	"baton/workflow"
	"baton/workflow/proc"
)

// The reaper with real processes: a headless writer child is killed with SIGKILL while a
// step runs, and the survivor's takeover must reap by evidence (never by age), kill what
// the dead window left running, and start a step at most once at a time.

// rpWait polls cond (an observable state: a file, /proc) until it holds or timeout.
func rpWait(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", timeout, what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// rpPID waits for a pid that a step wrote to path (by rename, so never half written).
func rpPID(t *testing.T, path string) int {
	t.Helper()
	var pid int
	rpWait(t, 30*time.Second, path, func() bool {
		b, err := os.ReadFile(path)
		if err != nil {
			return false
		}
		pid, err = strconv.Atoi(strings.TrimSpace(string(b)))
		return err == nil
	})
	return pid
}

// rpTrack returns the start time of live process pid and kills it when the test ends if
// it is still that process, so a failing test leaves no sleeper behind.
func rpTrack(t *testing.T, pid int) uint64 {
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

// rpStat returns the state, process group and session of pid from /proc/<pid>/stat.
func rpStat(t *testing.T, pid int) (state byte, pgid, sid int) {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatalf("read /proc/%d/stat: %v", pid, err)
	}
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	pgid, _ = strconv.Atoi(f[2])
	sid, _ = strconv.Atoi(f[3])
	return f[0][0], pgid, sid
}

// rpRunning waits until run id is running under c with its process group recorded.
func rpRunning(t *testing.T, c *child, id string) (pgid int) {
	t.Helper()
	rpWait(t, 30*time.Second, "run "+id+" running with a recorded group", func() bool {
		for _, r := range c.snapshot().Runs {
			if r.ID == id && r.Status == "running" && r.PGID > 0 {
				pgid = r.PGID
				return true
			}
		}
		return false
	})
	return pgid
}

// rpDisk reads the document of home (see readDisk).
func rpDisk(t *testing.T, home string) *store.Doc {
	t.Helper()
	return readDisk(t, home)
}

func rpLines(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Fields(strings.ReplaceAll(string(b), " ", "_"))
}

func rpReaped(ev map[string]any) []string {
	var out []string
	if rs, ok := ev["reaped"].([]any); ok {
		for _, r := range rs {
			out = append(out, fmt.Sprint(r))
		}
	}
	return out
}

// rpGuardedStep is a step that guards itself across windows: it holds an flock on
// marks/guard for its whole life (its background sleeper inherits it, so the lock is free
// only when every process of the occurrence is dead), counts its starts in marks/starts
// (both files outlive a kill -9 of the window), and records a violation in
// marks/violations if it starts while an earlier occurrence still lives, or more than max
// times in all. Occurrence n writes its pids to marks/child.n and marks/grandchild.n; the
// first one runs until killed, a later one ends at once.
func rpGuardedStep(marks string, max int) []string {
	const script = `d=$0 max=$1
exec 9>>"$d/guard"
if ! flock -n 9; then echo "concurrent-start-$$" >> "$d/violations"; exit 70; fi
n=0; [ -f "$d/starts" ] && n=$(wc -l < "$d/starts")
n=$((n))
echo "start-$$" >> "$d/starts"
if [ "$n" -ge "$max" ]; then echo "start-number-$((n+1))-of-at-most-$max" >> "$d/violations"; fi
sleep 300 & echo $! > "$d/grandchild.$n.tmp"; mv "$d/grandchild.$n.tmp" "$d/grandchild.$n"
echo $$ > "$d/child.$n.tmp"; mv "$d/child.$n.tmp" "$d/child.$n"
if [ "$n" -gt 0 ]; then kill $!; exit 0; fi
wait`
	return []string{"sh", "-c", script, marks, strconv.Itoa(max)}
}

// TestStepAtMostOnceAcrossTakeover: the writer is killed with SIGKILL mid-step. With
// on_owner_lost "fail" the step started exactly once, ever; with "requeue" it started
// exactly twice, the second time only after every process of the first was dead (the
// step's own flock guard proves it). Either way the killed occurrence's processes are dead
// by the time the survivor reports writer.
func TestStepAtMostOnceAcrossTakeover(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		onLost string
		starts int
	}{{"fail", 1}, {"requeue", 2}} {
		t.Run(tc.onLost, func(t *testing.T) {
			home, marks := t.TempDir(), t.TempDir()
			a := startChild(t, home)
			if a.initialRole() != "writer" {
				t.Fatal("first window is not the writer")
			}
			a.ok(addWF("guarded", 1, tc.onLost, rpGuardedStep(marks, tc.starts)...))
			a.ok(addWF("barrier", 1, "fail", "true"))
			r1 := a.ok(map[string]any{"op": "start_run", "workflow": "guarded"})["run"].(string)
			child0 := rpPID(t, filepath.Join(marks, "child.0"))
			grand0 := rpPID(t, filepath.Join(marks, "grandchild.0"))
			childStart, grandStart := rpTrack(t, child0), rpTrack(t, grand0)
			rpRunning(t, a, r1)
			b := startChild(t, home)
			if b.initialRole() != "reader" {
				t.Fatal("second window is not a reader")
			}
			deadPID := a.pid
			a.kill9()
			ev := b.waitWriter(30 * time.Second)
			if !contains(rpReaped(ev), r1) {
				t.Fatalf("takeover did not reap %s: %v", r1, ev)
			}
			// The reaper killed the occurrence (step and grandchild) before the writer event.
			for _, p := range []struct {
				name  string
				pid   int
				start uint64
			}{{"step", child0, childStart}, {"grandchild", grand0, grandStart}} {
				if proc.Alive(p.pid, p.start) {
					t.Errorf("the killed occurrence's %s %d is alive after the takeover", p.name, p.pid)
				}
			}
			end := func(e map[string]any) bool {
				return e["event"] == "run" && e["run"] == r1 && e["status"] != "running" && e["status"] != "queued"
			}
			var final store.Run
			switch tc.onLost {
			case "fail":
				// The run is recorded failed, naming the dead owner, and never starts again:
				// a later run that the survivor starts and finishes proves it kicked the lanes.
				r := rpDisk(t, home).Run(r1)
				if r == nil || r.Status != store.StatusFailed || !strings.Contains(r.Error, fmt.Sprintf("pid %d", deadPID)) {
					t.Fatalf("reaped run: %+v, want failed naming pid %d", r, deadPID)
				}
				bar := b.ok(map[string]any{"op": "start_run", "workflow": "barrier"})["run"].(string)
				b.waitEvent(0, 30*time.Second, eventIs("run", "run", bar, "status", "succeeded"))
				final = *rpDisk(t, home).Run(r1)
			case "requeue":
				_, e := b.waitEvent(0, 30*time.Second, end)
				if e["status"] != "succeeded" {
					t.Errorf("re-queued run ended %v: %v", e["status"], e["error"])
				}
				final = *rpDisk(t, home).Run(r1)
				if final.Attempt != 2 || final.OwnerPID != b.pid {
					t.Errorf("re-queued run: attempt %d owner %d, want attempt 2 owner %d", final.Attempt, final.OwnerPID, b.pid)
				}
			}
			if v := rpLines(t, filepath.Join(marks, "violations")); len(v) != 0 {
				t.Fatalf("the step's guard recorded %v; starts %v", v, rpLines(t, filepath.Join(marks, "starts")))
			}
			if got := rpLines(t, filepath.Join(marks, "starts")); len(got) != tc.starts {
				t.Fatalf("step started %d times (%v), want %d; run %s %q", len(got), got, tc.starts, final.Status, final.Error)
			}
		})
	}
}

// TestTakeoverKillsStepThatLeftItsGroup: a step's child that called setsid is in neither
// the run's process group nor its session; after the owner window is killed with SIGKILL,
// the takeover finds it by its BATON_RUN_ID marker and kills it.
func TestTakeoverKillsStepThatLeftItsGroup(t *testing.T) {
	t.Parallel()
	home, marks := t.TempDir(), t.TempDir()
	a := startChild(t, home)
	if a.initialRole() != "writer" {
		t.Fatal("first window is not the writer")
	}
	a.ok(addWF("escape", 1, "fail", "sh", "-c",
		`setsid sh -c 'echo $$ > "$0/esc.tmp"; mv "$0/esc.tmp" "$0/esc"; exec sleep 300' "$0" & wait`, marks))
	r1 := a.ok(map[string]any{"op": "start_run", "workflow": "escape"})["run"].(string)
	pgid := rpRunning(t, a, r1)
	esc := rpPID(t, filepath.Join(marks, "esc"))
	escStart := rpTrack(t, esc)
	stepStart := rpTrack(t, pgid)
	if _, g, s := rpStat(t, esc); g == pgid || s != esc {
		t.Fatalf("the escaped process %d has group %d and session %d; the run's group is %d", esc, g, s, pgid)
	}
	// Wait until it runs sleep with the run's marker in its environment: in the middle of
	// its exec, /proc/<pid>/environ can read empty, and on a loaded machine that moment
	// can be long.
	marker := []byte(workflow.EnvRunID + "=" + r1 + "\x00")
	var env []byte
	var err error
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(time.Millisecond) {
		comm, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", esc))
		env, err = os.ReadFile(fmt.Sprintf("/proc/%d/environ", esc))
		if string(comm) == "sleep\n" && err == nil && bytes.Contains(env, marker) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the escaped process %d does not carry the run's marker (comm %q, %v): %q", esc, comm, err, env)
		}
	}
	a.kill9()
	if !proc.Alive(esc, escStart) {
		t.Fatal("the escaped process died with its window; the test needs it alive")
	}
	// The next window takes the free lock at once and reaps in its takeover.
	b := startChild(t, home)
	ev := b.waitWriter(30 * time.Second)
	if !contains(rpReaped(ev), r1) {
		t.Fatalf("takeover did not reap %s: %v", r1, ev)
	}
	if proc.Alive(esc, escStart) {
		t.Fatalf("the process %d that left the run's group survived the takeover", esc)
	}
	if proc.Alive(pgid, stepStart) {
		t.Fatalf("the step %d (the run's group leader) survived the takeover", pgid)
	}
}

// TestTakeoverOwnerEvidence: three running runs whose owners' instance locks are all
// held, so the takeover must decide from the owner's pid, start time and state:
//   - recycled: the recorded pid is a live, unrelated process with another start time (it
//     also leads the group recorded for the run). The owner is dead, the run is reaped,
//     and that process is not killed.
//   - dying: the owner exited and is a zombie (its lock still held by a child that
//     inherited it). A dying owner counts as dead.
//   - live: the owner is this test process. Its run is left alone.
func TestTakeoverOwnerEvidence(t *testing.T) {
	t.Parallel()
	home, marks := t.TempDir(), t.TempDir()
	inst := filepath.Join(home, InstancesDir)
	if err := os.MkdirAll(inst, 0o700); err != nil {
		t.Fatal(err)
	}
	boot := proc.BootID()
	hold := func(id string) {
		fl := flock.New(instancePath(home, id), flock.SetPermissions(0o600))
		if ok, err := fl.TryLock(); err != nil || !ok {
			t.Fatalf("lock instance %s: %v", id, err)
		}
		t.Cleanup(func() { _ = fl.Close() })
	}

	// recycled: a live process in its own group, recorded with an earlier start time.
	other := exec.Command("sleep", "300")
	other.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := other.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = other.Process.Kill(); _ = other.Wait() })
	otherPID := other.Process.Pid
	otherStart := rpTrack(t, otherPID)
	hold("recycled")
	recycled := store.Owner{PID: otherPID, Start: otherStart - 1, Boot: boot, Instance: "recycled"}

	// dying: it locks its instance file, leaves the lock to a background child, and exits
	// without being reaped (this test is its parent and waits only at the end).
	dyingCmd := exec.Command("sh", "-c",
		`exec 9>>"$0"; flock -n 9 || exit 3; sleep 300 & echo $! > "$1.tmp"; mv "$1.tmp" "$1"; exit 0`,
		instancePath(home, "dying"), filepath.Join(marks, "holder"))
	if err := dyingCmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = dyingCmd.Process.Kill(); _ = dyingCmd.Wait() })
	dyingPID := dyingCmd.Process.Pid
	rpTrack(t, rpPID(t, filepath.Join(marks, "holder")))
	rpWait(t, 30*time.Second, "the dying owner to be a zombie", func() bool {
		st, _, _ := rpStat(t, dyingPID)
		return st == 'Z'
	})
	dyingStart, err := proc.Start(dyingPID)
	if err != nil {
		t.Fatal(err)
	}
	if fl := flock.New(instancePath(home, "dying"), flock.SetFlag(os.O_RDONLY)); true {
		if ok, err := fl.TryLock(); err != nil || ok {
			t.Fatalf("the dying owner's instance lock is not held (%v): the test needs it held", err)
		}
	}
	dying := store.Owner{PID: dyingPID, Start: dyingStart, Boot: boot, Instance: "dying"}

	// live: this test process, whose instance lock it holds.
	selfStart, err := proc.Start(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	hold("live")
	live := store.Owner{PID: os.Getpid(), Start: selfStart, Boot: boot, Instance: "live"}

	// The document a dead writer left: three running runs, one per owner.
	st := store.New(home, store.Options{})
	if _, err := st.Reload(); err != nil {
		t.Fatal(err)
	}
	st.BeginEpoch()
	ids := map[string]string{}
	now := time.Now()
	if _, err := st.Update(func(d *store.Doc) error {
		if err := workflow.AddWorkflow(d, store.Workflow{Name: "w", MaxConcurrent: 3, OnOwnerLost: "fail",
			Steps: []store.Step{{Argv: []string{"true"}}}}); err != nil {
			return err
		}
		for _, o := range []store.Owner{recycled, dying, live} {
			run, err := workflow.Enqueue(d, "w", o.Instance, now)
			if err != nil {
				return err
			}
			r := d.Run(run.ID)
			owner := o
			r.Status, r.Owner, r.OwnerPID, r.Attempt, r.Started = store.StatusRunning, &owner, o.PID, 1, now
			if o.Instance == "recycled" {
				r.PGID, r.StepPID, r.StepStart = o.PID, o.PID, o.Start
			}
			ids[o.Instance] = r.ID
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	st.EndEpoch()

	b := startChild(t, home)
	ev := b.waitWriter(30 * time.Second)
	reaped := rpReaped(ev)
	disk := rpDisk(t, home)
	for _, c := range []struct{ who, evidence string }{
		{"recycled", fmt.Sprintf("pid %d", otherPID)},
		{"dying", fmt.Sprintf("pid %d is exiting", dyingPID)},
	} {
		r := disk.Run(ids[c.who])
		if !contains(reaped, ids[c.who]) || r.Status != store.StatusFailed || !strings.Contains(r.Error, c.evidence) {
			t.Errorf("%s owner: reaped %v, run %s %q; want it reaped and failed naming %q", c.who, reaped, r.Status, r.Error, c.evidence)
		}
	}
	if r := disk.Run(ids["live"]); contains(reaped, ids["live"]) || r.Status != store.StatusRunning {
		t.Errorf("the live owner's run was reaped: %s %q", r.Status, r.Error)
	}
	if !proc.Alive(otherPID, otherStart) {
		t.Errorf("the takeover killed pid %d, an unrelated process that reused the dead owner's pid", otherPID)
	}
}
