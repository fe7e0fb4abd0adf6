package host

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"baton/store"
	"baton/store/storetest/forgetfs"
	"baton/workflow"
	"baton/workflow/proc"
)

// Power cuts, not only kill -9: a killed process loses nothing the kernel already has, so
// these tests put the home on a file system that forgets, at a simulated power cut,
// whatever was not fsynced (store/storetest/forgetfs), and check after the cut that every save
// acknowledged before it is there, that nothing unacknowledged is half there (the
// document reads whole), that the home opens, and that no run starts twice.

// powerHome mounts a forgetting file system for the test and returns it and a home path
// in it that does not exist yet: the first window makes it.
func powerHome(t *testing.T) (*forgetfs.FS, string) {
	t.Helper()
	f := forgetfs.Start(t)
	return f, filepath.Join(f.Dir(), "home")
}

// cutPower cuts the power under home: the windows cs are halted (haltAll); from this
// instant nothing more becomes durable; they, and every supervisor and step of the home,
// are killed (kill -9, all windows at once, then their reaping); the mount refuses everything after, and its
// backing folder is put back to what was durable.
func cutPower(t *testing.T, f *forgetfs.FS, home string, cs ...*child) {
	t.Helper()
	haltAll(t, cs)
	err := f.PowerCut(func() {
		for _, c := range cs {
			if c.cmd.ProcessState == nil {
				_ = c.cmd.Process.Signal(syscall.SIGKILL)
			}
		}
		for _, c := range cs {
			c.kill()
		}
		proc.KillAll(nil, [][]string{{workflow.EnvHome + "=" + home}}, 10*time.Second)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// haltAll SIGSTOPs the windows cs and waits until every thread of each has stopped, so
// that the instant of a power cut is one at which none of them runs: none can see the
// cut mount's errors and say anything after it (a machine that loses power says nothing).
func haltAll(t *testing.T, cs []*child) {
	t.Helper()
	for _, c := range cs {
		if c.cmd.ProcessState == nil {
			_ = c.cmd.Process.Signal(syscall.SIGSTOP)
		}
	}
	deadline := time.Now().Add(30 * time.Second)
	for _, c := range cs {
		for c.cmd.ProcessState == nil && !threadsStopped(c.pid) {
			if time.Now().After(deadline) {
				t.Fatalf("window %d did not stop within 30s of SIGSTOP", c.pid)
			}
			time.Sleep(time.Millisecond) // polls /proc for the state that proves the stop
		}
	}
}

// durableHome is where home's durable state lies after a cut (the backing folder).
func durableHome(f *forgetfs.FS, home string) string {
	rel, _ := filepath.Rel(f.Dir(), home)
	return filepath.Join(f.Backing(), rel)
}

// lostAfterCut reads home's document as it survived a cut and says what is wrong with it:
// the home is gone, the document does not read whole, or a workflow in acked is missing.
func lostAfterCut(f *forgetfs.FS, home string, acked []string) []string {
	dir := durableHome(f, home)
	if _, err := os.Stat(dir); err != nil {
		return []string{fmt.Sprintf("the home is gone after the cut: %v", err)}
	}
	d, err := store.ReadHome(dir)
	if err != nil {
		return []string{fmt.Sprintf("the home's document does not read after the cut: %v", err)}
	}
	var out []string
	for _, n := range acked {
		if d.Workflow(n) == nil {
			out = append(out, fmt.Sprintf("acknowledged workflow %q is missing after the cut (generation %d)", n, d.Generation))
		}
	}
	return out
}

// reopenAfterCut mounts the durable state again, opens a window on home and waits for it
// to be the writer: the home opens. It returns the window.
func reopenAfterCut(t *testing.T, f *forgetfs.FS, home string) *child {
	t.Helper()
	f.Remount(t)
	c := startChild(t, home)
	c.waitWriter(30 * time.Second)
	return c
}

// addAcked adds workflows name-0 .. name-(n-1) through c, each acknowledged, and returns
// their names.
func addAcked(c *child, name string, n int) []string {
	var out []string
	for i := range n {
		w := fmt.Sprintf("%s-%d", name, i)
		c.ok(addWF(w, 1, "fail"))
		out = append(out, w)
	}
	return out
}

// TestPowerCutNewHome: a home made just now keeps its first acknowledged saves through a
// power cut. Its folder is made by the window (MkdirDurable syncs the parent); the first
// saves go to a new workflows.json and a new log, whose names are durable only with the
// home's fsync.
func TestPowerCutNewHome(t *testing.T) {
	t.Parallel()
	f, home := powerHome(t)
	a := startChild(t, home)
	a.waitWriter(30 * time.Second)
	acked := addAcked(a, "acked", 3)
	cutPower(t, f, home, a)
	for _, p := range lostAfterCut(f, home, acked) {
		t.Error(p)
	}
	if t.Failed() {
		return
	}
	c := reopenAfterCut(t, f, home)
	names := c.snapshot().names()
	for _, n := range acked {
		if !contains(names, n) {
			t.Errorf("the reopened home lacks acknowledged %q: %v", n, names)
		}
	}
}

// waitUntil polls cond (a condition on files the test cannot be told about otherwise)
// until it holds or the generous deadline passes.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s did not happen within 30s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// A powerScenario drives windows on a home on a forgetting file system up to a moment,
// cuts the power there and returns what is wrong with what survived (nil: nothing).
// opts go to every window it starts (a reverse control's switch).
type powerScenario struct {
	name string
	// points are the durability points whose reverse control this scenario catches.
	points []string
	run    func(t *testing.T, opts ...childOpt) []string
}

var powerScenarios = []powerScenario{
	{"new-home", []string{store.SyncMkdir, store.SyncWALFrame, store.SyncReplaceFile}, powerNewHome},
	{"checkpoint", []string{store.SyncReplaceFolder}, powerCheckpoint},
	{"journal", []string{store.SyncJournal, store.SyncJournalFolder}, powerJournal},
	{"archive", []string{store.SyncArchiveFile, store.SyncArchiveFolder}, powerArchive},
	{"takeover-audit", []string{store.SyncAudit}, powerTakeoverAudit},
}

// powerNewHome: the first window makes the home and acknowledges three saves; the cut
// comes right after.
func powerNewHome(t *testing.T, opts ...childOpt) []string {
	f, home := powerHome(t)
	a := startChild(t, home, opts...)
	a.waitWriter(30 * time.Second)
	acked := addAcked(a, "acked", 3)
	cutPower(t, f, home, a)
	return lostAfterCut(f, home, acked)
}

// powerCheckpoint: saves go to the log, the checkpoint writes them whole to workflows.json
// and starts a new cycle of the log; one more save goes to the new cycle; the cut comes
// right after it.
func powerCheckpoint(t *testing.T, opts ...childOpt) []string {
	f, home := powerHome(t)
	a := startChild(t, home, opts...)
	a.waitWriter(30 * time.Second)
	acked := addAcked(a, "acked", 3)
	gen := a.snapshot().Generation
	waitUntil(t, "the checkpoint", func() bool {
		data, err := os.ReadFile(filepath.Join(home, store.FileName))
		d, derr := store.Decode(data)
		return err == nil && derr == nil && d.Generation >= gen
	})
	acked = append(acked, addAcked(a, "after-checkpoint", 1)...)
	cutPower(t, f, home, a)
	return lostAfterCut(f, home, acked)
}

// powerJournal: a run's first step ends, and its supervisor starts the second (it does so
// only once the first one's end is durable in the run's journal); the cut comes then.
// After it the journal must say the first step ended, and the reopened home must not run
// it again.
func powerJournal(t *testing.T, opts ...childOpt) []string {
	f, home := powerHome(t)
	marks := t.TempDir()
	a := startChild(t, home, opts...)
	a.waitWriter(30 * time.Second)
	ran := filepath.Join(marks, "ran")
	a.ok(map[string]any{"op": "add_workflow", "workflow": map[string]any{
		"name": "two", "max_concurrent": 1, "on_owner_lost": "fail",
		"steps": []any{
			map[string]any{"name": "once", "argv": []string{"sh", "-c", "echo x >> " + ran}},
			map[string]any{"name": "wait", "argv": []string{"sleep", "60"}},
		},
	}})
	run := a.ok(map[string]any{"op": "start_run", "workflow": "two"})["run"].(string)
	waitUntil(t, "the second step's start", func() bool {
		j, err := workflow.ReadJournal(home, run)
		return err == nil && len(j.Steps) == 2 && j.Steps[1].PID > 0
	})
	cutPower(t, f, home, a)
	var out []string
	j, err := workflow.ReadJournal(durableHome(f, home), run)
	switch {
	case err != nil:
		out = append(out, fmt.Sprintf("run %s's journal after the cut: %v", run, err))
	case len(j.Steps) == 0 || !j.Steps[0].Ended:
		out = append(out, fmt.Sprintf("run %s's journal lost the first step's end, which its supervisor acted on: %+v", run, j))
	}
	if len(out) > 0 {
		return out
	}
	// The reopened home fails the run (its owner is gone; on_owner_lost fail) in its
	// takeover, exactly once, and nothing runs its first step again.
	c := reopenAfterCut(t, f, home)
	for _, r := range c.snapshot().Runs {
		if r.ID == run && r.Status != store.StatusFailed {
			out = append(out, fmt.Sprintf("run %s after the reopen is %s, not failed", run, r.Status))
		}
	}
	if b, _ := os.ReadFile(ran); string(b) != "x\n" {
		out = append(out, fmt.Sprintf("the first step of run %s ran %d times", run, len(b)/2))
	}
	return out
}

// powerArchive: finished runs beyond the few the document keeps move to the archive,
// appended there before the save that drops them; the cut comes after that save. Every
// run seen finished must be in the document or the archive.
func powerArchive(t *testing.T, opts ...childOpt) []string {
	f, home := powerHome(t)
	a := startChild(t, home, append(opts, withEnv("BATON_TEST_KEEP_FINISHED=2"))...)
	a.waitWriter(30 * time.Second)
	a.ok(addWF("w", 1, "fail"))
	var ids []string
	for range 5 {
		run := a.ok(map[string]any{"op": "start_run", "workflow": "w"})["run"].(string)
		a.waitEvent(0, 30*time.Second, eventIs("run", "run", run, "status", "succeeded"))
		ids = append(ids, run)
	}
	// The archive is written in the save that finished the last run, or the next:
	// one more acknowledged save orders the cut after it.
	waitUntil(t, "the archive", func() bool {
		runs, n, err := store.NewArchive(home, 0).Runs()
		_ = runs
		return err == nil && n > 0
	})
	acked := addAcked(a, "after-archive", 1)
	cutPower(t, f, home, a)
	out := lostAfterCut(f, home, acked)
	if len(out) > 0 {
		return out
	}
	dir := durableHome(f, home)
	d, _ := store.ReadHome(dir)
	archived := map[string]bool{}
	if runs, _, err := store.NewArchive(dir, 0).Runs(); err != nil {
		return []string{fmt.Sprintf("the archive after the cut: %v", err)}
	} else {
		for r := range runs {
			archived[r.ID] = true
		}
	}
	for _, id := range ids {
		if d.Run(id) == nil && !archived[id] {
			out = append(out, fmt.Sprintf("finished run %s is neither in the document nor in the archive after the cut", id))
		}
	}
	return out
}

// powerTakeoverAudit: a writer with a run going dies; the next window takes over, reaps
// the run and writes both to the audit log (the takeover first); once the reap's record
// is written the takeover's was synced, and the cut comes then.
func powerTakeoverAudit(t *testing.T, opts ...childOpt) []string {
	f, home := powerHome(t)
	marks := t.TempDir()
	a := startChild(t, home, opts...)
	a.waitWriter(30 * time.Second)
	acked := addAcked(a, "acked", 1)
	a.ok(addWF("slow", 1, "fail", sleeper(marks, 300)...))
	run := a.ok(map[string]any{"op": "start_run", "workflow": "slow"})["run"].(string)
	runningWithGroup(t, a, run)
	b := startChild(t, home, opts...)
	if b.initialRole() != "reader" {
		t.Fatal("b is not a reader")
	}
	a.kill9()
	b.waitWriter(30 * time.Second)
	reaped := func(es []store.Entry) (takeover, reap bool) {
		for _, e := range es {
			if e.PID == b.pid && e.Kind == "takeover" {
				takeover = true
			}
			if e.PID == b.pid && e.Kind == "reap" && e.Data["run"] == run {
				reap = true
			}
		}
		return
	}
	waitUntil(t, "the reap's audit record", func() bool {
		es, _ := store.NewAudit(home).Read(0)
		_, r := reaped(es)
		return r
	})
	cutPower(t, f, home, a, b)
	out := lostAfterCut(f, home, acked)
	es, err := store.NewAudit(durableHome(f, home)).Read(0)
	if tk, _ := reaped(es); err != nil || !tk {
		out = append(out, fmt.Sprintf("the takeover's audit record, synced before the reap's was written, is lost (%v)", err))
	}
	return out
}

// TestPowerCutScenarios cuts the power in each scenario and checks what survived.
func TestPowerCutScenarios(t *testing.T) {
	t.Parallel()
	for _, sc := range powerScenarios {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			for _, p := range sc.run(t) {
				t.Error(p)
			}
		})
	}
}

// TestPowerCutReverseControls: each durability point, switched off alone
// (BATON_SKIP_SYNC), makes the scenario that covers it lose something at the cut. Run
// with BATON_POWER_POINT=<point> to check one.
func TestPowerCutReverseControls(t *testing.T) {
	t.Parallel()
	only := os.Getenv("BATON_POWER_POINT")
	for _, sc := range powerScenarios {
		for _, p := range sc.points {
			if only != "" && only != p {
				continue
			}
			t.Run(p, func(t *testing.T) {
				t.Parallel()
				lost := sc.run(t, withEnv("BATON_SKIP_SYNC="+p))
				if len(lost) == 0 {
					t.Errorf("with %s switched off, scenario %s lost nothing at the cut: its test does not catch it", p, sc.name)
				}
				t.Logf("with %s off: %q", p, lost)
			})
		}
	}
}
