package workflow

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"baton/store"
)

// TestRunLogEndsWithHowItEnded (issue 22, daily use 1): every run's log file ends with
// one line saying how the run ended, written by whoever records the end, before its
// save: the line is in the file as soon as the document says the run ended. A run that
// succeeded, failed, was cancelled (saying by whom), or lost its supervisor to kill -9;
// a step whose last line has no newline.
func TestRunLogEndsWithHowItEnded(t *testing.T) {
	r := newRig(t)
	r.add(store.Workflow{Name: "ok", Steps: []store.Step{{Argv: []string{"echo", "one"}}, {Argv: []string{"true"}}}})
	r.add(store.Workflow{Name: "boom", Steps: []store.Step{{Name: "build", Argv: []string{"sh", "-c", "printf working; exit 3"}}}})
	r.add(store.Workflow{Name: "slow", Steps: []store.Step{{Argv: []string{"sh", "-c", "echo started; exec sleep 60"}}}})
	want := map[string]string{
		"ok":        "== run succeeded: 2 steps ran, exit code 0",
		"boom":      "== run failed at step 1 of 1: step 1 (build) exited with code 3",
		"cancelled": "== run cancelled at step 1 of 1: cancelled by window pid 41",
		"killed":    "== run failed at step 1 of 1: the run's supervisor pid ",
	}
	ended := map[string]store.Run{"ok": r.wait(r.start("ok"), 30*time.Second), "boom": r.wait(r.start("boom"), 30*time.Second)}

	id := r.start("slow")
	r.waitStep(id)
	if !r.eng.Cancel(id, "cancelled by window pid 41") {
		t.Fatal("the engine does not own the running run")
	}
	ended["cancelled"] = r.wait(id, 30*time.Second)

	id = r.start("slow")
	sup := r.waitStep(id).SupervisorPID
	if err := syscall.Kill(sup, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	ended["killed"] = r.wait(id, 30*time.Second)

	for name, run := range ended {
		b, err := os.ReadFile(run.Log)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		log := string(b)
		line := EndLine(&run)
		if !strings.HasPrefix(line, want[name]) {
			t.Errorf("%s: the end line is %q, want %q", name, line, want[name])
		}
		if !EndsWithLine(log, line) || strings.Count(log, "\n== run ") != 1 {
			t.Errorf("%s: when the run was seen ended its log was %q; want it to end with %q, once", name, log, line)
		}
	}
}

// waitStep waits until run id's step is running and its supervisor recorded.
func (r *rig) waitStep(id string) store.Run {
	r.t.Helper()
	var run store.Run
	waitUntil(r.t, 30*time.Second, "run "+id+"'s step to run", func() bool {
		d, _ := r.st.View()
		if p := d.Run(id); p != nil && p.StepPID != 0 && p.SupervisorPID != 0 {
			run = *p
		}
		return run.ID != ""
	})
	return run
}

// TestReapEndsTheLogOnce: the reaper ends the log of a run it fails (its owner died) or
// records from its journal with the end line, once even when its update is tried again
// (a refresh before the save runs it on the newer document).
func TestReapEndsTheLogOnce(t *testing.T) {
	dir := t.TempDir()
	d := &store.Doc{}
	for _, id := range []string{"r1", "r2"} {
		log := filepath.Join(dir, id+".log")
		if err := os.WriteFile(log, []byte("== step 1 of 2 (copy): [\"cp\"]\npartial"), 0o600); err != nil {
			t.Fatal(err)
		}
		d.Runs = append(d.Runs, store.Run{ID: id, Workflow: "w", Status: store.StatusRunning, Steps: 2, Log: log, OwnerPID: 7})
	}
	code := 4
	orphans := []Orphan{
		{Run: "r1", Workflow: "w", OwnerPID: 7, Evidence: "instance lock free", Action: ActionFailed},
		{Run: "r2", Workflow: "w", OwnerPID: 7, Action: ActionRecorded, Status: store.StatusFailed, Exit: &code, Error: "step 2 (check) exited with code 4",
			end: ending{status: store.StatusFailed, exit: &code, err: "step 2 (check) exited with code 4", step: 1}},
	}
	want := map[string]string{
		"r1": "\n== run failed at step 1 of 2: owner window pid 7 died (instance lock free) while step 1 of 2 was running\n",
		"r2": "\n== run failed at step 2 of 2: step 2 (check) exited with code 4\n",
	}
	for try := 0; try < 2; try++ {
		ApplyReap(d.Clone(), orphans, store.Owner{PID: 8}, time.Now(), nil)
	}
	for id, end := range want {
		b, _ := os.ReadFile(filepath.Join(dir, id+".log"))
		if got := string(b); got != "== step 1 of 2 (copy): [\"cp\"]\npartial"+end {
			t.Errorf("%s: the reaped run's log is %q, want it to end with %q once", id, got, end)
		}
	}
}
