package host

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"baton/store"
	"baton/workflow"
	"baton/workflow/proc"
)

// Runs that outlive windows, proven with real windows, real supervisors and kill -9.

// gated returns argv for a step that counts its starts in dir/starts, writes its pid to
// dir/pid and waits until dir/go exists (the test's release), then exits 0.
func gated(dir string) []string {
	script := fmt.Sprintf(`echo start >> %[1]s/starts; echo $$ > %[1]s/pid; while [ ! -e %[1]s/go ]; do sleep 0.02; done; echo done`, dir)
	return []string{"sh", "-c", script}
}

func release(t *testing.T, dir string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, "go"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
}

func eventList(e map[string]any, key string) []string {
	var out []string
	l, _ := e[key].([]any)
	for _, x := range l {
		out = append(out, fmt.Sprint(x))
	}
	return out
}

// TestAdoptSurvivesWriterKill: kill -9 of the writer during a step of an "adopt" run; the
// survivor adopts it (listed in its writer event, not reaped), the step goes on and is
// never started again, and the run is recorded succeeded by the survivor.
func TestAdoptSurvivesWriterKill(t *testing.T) {
	t.Parallel()
	home, marks := t.TempDir(), t.TempDir()
	a := startChild(t, home)
	if a.initialRole() != "writer" {
		t.Fatal("a is not the writer")
	}
	a.ok(addWF("keep", 1, "adopt", gated(marks)...))
	b := startChild(t, home)
	if b.initialRole() != "reader" {
		t.Fatal("b is not a reader")
	}
	run := a.ok(map[string]any{"op": "start_run", "workflow": "keep"})["run"].(string)
	step := readPID(t, filepath.Join(marks, "pid"))
	a.kill9()
	ev := b.waitWriter(10 * time.Second)
	if got := eventList(ev, "adopted"); len(got) != 1 || got[0] != run {
		t.Fatalf("writer event adopted %v, want [%s]; reaped %v", got, run, eventList(ev, "reaped"))
	}
	if got := eventList(ev, "reaped"); len(got) != 0 {
		t.Fatalf("an adopted run was reaped: %v", got)
	}
	if !proc.Alive(step, 0) {
		t.Fatal("the adopted run's step was killed")
	}
	n := b.nEvents()
	release(t, marks)
	b.waitEvent(n, 10*time.Second, eventIs("run", "run", run, "status", "succeeded"))
	for _, r := range b.snapshot().Runs {
		if r.ID == run && (r.OwnerPID != b.pid || r.ExitCode == nil || *r.ExitCode != 0) {
			t.Fatalf("adopted run recorded as %+v, want owner %d and exit code 0", r, b.pid)
		}
	}
	if starts := lines(filepath.Join(marks, "starts")); len(starts) != 1 {
		t.Fatalf("the step started %d times", len(starts))
	}
}

// TestSupervisorKilledFailsRunAndFreesLane: kill -9 of a run's supervisor while its window
// lives: the run is failed naming the supervisor's pid, its step processes are killed, and
// the lane is free for the next run.
func TestSupervisorKilledFailsRunAndFreesLane(t *testing.T) {
	t.Parallel()
	home, marks := t.TempDir(), t.TempDir()
	a := startChild(t, home)
	if a.initialRole() != "writer" {
		t.Fatal("a is not the writer")
	}
	a.ok(addWF("slow", 1, "fail", sleeper(marks, 60)...))
	r1 := a.ok(map[string]any{"op": "start_run", "workflow": "slow"})["run"].(string)
	r2 := a.ok(map[string]any{"op": "start_run", "workflow": "slow"})["run"].(string)
	child, grandchild := readPID(t, filepath.Join(marks, "child")), readPID(t, filepath.Join(marks, "grandchild"))
	runningWithGroup(t, a, r1)
	sup := 0
	for _, r := range a.snapshot().Runs {
		if r.ID == r1 {
			sup = r.SupPID
		}
	}
	if sup == 0 || !proc.Alive(sup, 0) {
		t.Fatalf("run %s has no live supervisor recorded (%d)", r1, sup)
	}
	n := a.nEvents()
	if err := syscall.Kill(sup, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_, e := a.waitEvent(n, 10*time.Second, eventIs("run", "run", r1, "status", "failed"))
	if msg := fmt.Sprint(e["error"]); !strings.Contains(msg, fmt.Sprintf("supervisor pid %d died", sup)) {
		t.Fatalf("failed run's error does not name its supervisor %d: %q", sup, msg)
	}
	for _, p := range []int{child, grandchild} {
		if proc.Alive(p, 0) {
			t.Fatalf("step process %d of the run whose supervisor died is alive", p)
		}
	}
	a.waitEvent(n, 10*time.Second, eventIs("run", "run", r2, "status", "running"))
}

// TestAdoptRunEndsWhileNoWindowIsOpen: the writer closes while an "adopt" run goes (it is
// not cancelled); the run ends while no window is open; the next window records it
// succeeded with exit code 0 from its journal, exactly once.
func TestAdoptRunEndsWhileNoWindowIsOpen(t *testing.T) {
	t.Parallel()
	home, marks := t.TempDir(), t.TempDir()
	a := startChild(t, home)
	if a.initialRole() != "writer" {
		t.Fatal("a is not the writer")
	}
	a.ok(addWF("keep", 1, "adopt", gated(marks)...))
	run := a.ok(map[string]any{"op": "start_run", "workflow": "keep"})["run"].(string)
	readPID(t, filepath.Join(marks, "pid"))
	if err := a.close(); err != nil {
		t.Fatalf("the writer did not close cleanly: %v", err)
	}
	if r := readDisk(t, home).Run(run); r == nil || r.Status != store.StatusRunning {
		t.Fatalf("closing the writer settled the adopt run: %+v", r)
	}
	release(t, marks)
	// The supervisor records the end in its journal and exits; no window is open.
	waitJournalEnd(t, home, run)
	j, err := workflow.ReadJournal(home, run)
	if err != nil {
		t.Fatal(err)
	}
	c := startChild(t, home)
	ev := c.waitWriter(10 * time.Second)
	if got := eventList(ev, "reaped"); len(got) != 1 || got[0] != run {
		t.Fatalf("the next writer settled %v, want [%s]", got, run)
	}
	r := readDisk(t, home).Run(run)
	if r == nil || r.Status != store.StatusSucceeded || r.ExitCode == nil || *r.ExitCode != 0 {
		t.Fatalf("run recorded as %+v, want succeeded with exit code 0", r)
	}
	if !r.Ended.Equal(j.EndedAt) { // not when the next window came to record it
		t.Fatalf("run recorded as ending at %s; its journal says %s", r.Ended, j.EndedAt)
	}
	// The takeover's audit entries are written after its writer event: the shutdown of c
	// waits for them (Close waits for the takeover's housekeeping).
	if err := c.close(); err != nil {
		t.Fatal(err)
	}
	entries, _ := store.NewAudit(home).Read(0)
	recorded := 0
	for _, e := range entries {
		if e.Kind == "reap" && e.Data["run"] == run {
			recorded++
			if e.Data["action"] != workflow.ActionRecorded {
				t.Fatalf("the run was settled as %v, want %s", e.Data["action"], workflow.ActionRecorded)
			}
		}
	}
	if recorded != 1 {
		t.Fatalf("the run was settled %d times", recorded)
	}
	if starts := lines(filepath.Join(marks, "starts")); len(starts) != 1 {
		t.Fatalf("the step started %d times", len(starts))
	}
}

// waitJournalEnd waits until run id's journal records its end (the file proves it).
func waitJournalEnd(t *testing.T, home, id string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if j, err := workflow.ReadJournal(home, id); err == nil && j.Ended {
			return
		}
		time.Sleep(10 * time.Millisecond) // polling the journal, the file that proves the end
	}
	t.Fatalf("run %s's journal never recorded its end", id)
}

// TestHandOverOnRequest: a reader asks to write while a run goes. The writer hands over
// and stays open as a reader; the requester becomes the writer and adopts the run, which
// is never restarted; a third window never takes the lock meant for the requester; asking
// again as the writer is ok at once.
func TestHandOverOnRequest(t *testing.T) {
	t.Parallel()
	home, marks := t.TempDir(), t.TempDir()
	a := startChild(t, home)
	if a.initialRole() != "writer" {
		t.Fatal("a is not the writer")
	}
	a.ok(addWF("job", 1, "fail", gated(marks)...))
	b, c := startChild(t, home), startChild(t, home)
	b.initialRole()
	c.initialRole()
	run := a.ok(map[string]any{"op": "start_run", "workflow": "job"})["run"].(string)
	step := readPID(t, filepath.Join(marks, "pid"))
	epoch := readDisk(t, home).Epoch
	na := a.nEvents()
	r := b.ok(map[string]any{"op": "request_write"})
	if r["role"] != "writer" || uint64(toF(r["epoch"])) != epoch+1 {
		t.Fatalf("request_write replied %v, want writer with epoch %d", r, epoch+1)
	}
	ev := b.waitWriter(time.Second)
	if got := eventList(ev, "adopted"); len(got) != 1 || got[0] != run {
		t.Fatalf("the requester adopted %v, want [%s] (reaped %v)", got, run, eventList(ev, "reaped"))
	}
	a.waitEvent(na, 5*time.Second, eventIs("role", "role", "reader"))
	if st := a.ok(map[string]any{"op": "status"}); st["role"] != "reader" {
		t.Fatalf("the old writer is %v, want a reader that stays open", st["role"])
	}
	if !proc.Alive(step, 0) {
		t.Fatal("the hand-over killed the run's step")
	}
	if again := b.ok(map[string]any{"op": "request_write"}); again["role"] != "writer" {
		t.Fatalf("request_write of the writer: %v", again)
	}
	n := b.nEvents()
	release(t, marks)
	b.waitEvent(n, 10*time.Second, eventIs("run", "run", run, "status", "succeeded"))
	if starts := lines(filepath.Join(marks, "starts")); len(starts) != 1 {
		t.Fatalf("the step started %d times", len(starts))
	}
	for _, x := range []*child{a, c} {
		for _, e := range x.eventsCopy() {
			if x == c && e["event"] == "role" && e["role"] == "writer" {
				t.Fatalf("window %d took the lock meant for the requester", c.pid)
			}
		}
	}
	if d := readDisk(t, home); d.HandoverTo != nil || d.Writer == nil || d.Writer.PID != b.pid {
		t.Fatalf("after the hand-over: writer %+v, handover_to %+v", d.Writer, d.HandoverTo)
	}
}

// TestHandOverTimesOut: with the writer frozen, request_write answers conflict with the
// reason after the hand-over timeout, and the request is withdrawn.
func TestHandOverTimesOut(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	a := startChild(t, home)
	if a.initialRole() != "writer" {
		t.Fatal("a is not the writer")
	}
	b := startChild(t, home)
	b.initialRole()
	if err := a.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	defer a.cmd.Process.Signal(syscall.SIGCONT)
	id := b.send(map[string]any{"op": "request_write"})
	r := b.reply(id, HandoverTimeout+10*time.Second)
	if r["ok"] != false || r["code"] != "conflict" || !strings.Contains(fmt.Sprint(r["error"]), fmt.Sprintf("writer (pid %d) did not hand over", a.pid)) {
		t.Fatalf("request_write to a frozen writer: %v", r)
	}
	if left, _ := filepath.Glob(filepath.Join(home, handoverPrefix+"*")); len(left) != 0 {
		t.Fatalf("the withdrawn request is still there: %v", left)
	}
}
