package host

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"baton/host/proc"
	"baton/internal/forgetfs"
	"baton/store"
	"baton/workflow"
)

// Power cuts, not only kill -9: a killed process loses nothing the kernel already has, so
// these tests put the home on a file system that forgets, at a simulated power cut,
// whatever was not fsynced (internal/forgetfs), and check after the cut that every save
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
	{"new-home", []string{store.SyncMkdir, store.SyncWALFrame, store.SyncWALCreateDir, store.SyncReplaceFile}, powerNewHome},
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

// TestPowerCutAtPoints: a power cut at each named point of a takeover and its saves
// (crashPoints: between a frame's write and its sync, in a save between the temp file's
// write, its fsync, its rename and the folder's sync, and in each takeover step). The
// writer acknowledges saves and has a run going, and dies; the next window, armed with the
// point, dies exactly there; the power goes at that instant. Everything acknowledged is
// there, the home opens, and the dead run is failed once, never run again.
func TestPowerCutAtPoints(t *testing.T) {
	t.Parallel()
	for _, fp := range crashPoints {
		t.Run(fp, func(t *testing.T) {
			t.Parallel()
			powerAt(t, fp)
		})
	}
}

func powerAt(t *testing.T, fp string) {
	f, home := powerHome(t)
	marks := t.TempDir()
	a := startChild(t, home)
	a.waitWriter(30 * time.Second)
	acked := addAcked(a, "acked", 1)
	a.ok(addWF("slow", 1, "fail", sleeper(marks, 300)...))
	run := a.ok(map[string]any{"op": "start_run", "workflow": "slow"})["run"].(string)
	runningWithGroup(t, a, run)
	acked = append(acked, addAcked(a, "acked-later", 1)...)
	b := startChild(t, home, withEnv("BATON_FAILPOINTS="+fp))
	if b.initialRole() != "reader" {
		t.Fatal("b is not a reader")
	}
	a.kill9()
	if !b.waitFor(30*time.Second, func() bool { return b.exited }) {
		t.Fatalf("b was not killed at %s", fp)
	}
	cutPower(t, f, home, a, b)
	for _, p := range lostAfterCut(f, home, append(acked, "slow")) {
		t.Fatal(p)
	}
	c := reopenAfterCut(t, f, home)
	c.ok(addWF("after", 1, "fail"))
	var status string
	for _, r := range c.snapshot().Runs {
		if r.ID == run {
			status = r.Status
		}
	}
	if status != store.StatusFailed {
		t.Fatalf("the dead writer's run after the cut at %s and the reopen is %q, not failed", fp, status)
	}
	if b, _ := os.ReadFile(filepath.Join(marks, "starts")); strings.Count(string(b), "start") != 1 {
		t.Fatalf("the run's step started %d times", strings.Count(string(b), "start"))
	}
}

// TestPowerCutInJournal: a run's supervisor dies between a journal record's write and its
// sync (journal.after-write), and the power goes then. The home opens, and the run is
// ended once (failed: its supervisor is gone), its step never started again.
func TestPowerCutInJournal(t *testing.T) {
	t.Parallel()
	f, home := powerHome(t)
	marks := t.TempDir()
	a := startChild(t, home, withEnv("BATON_FAILPOINTS=journal.after-write"))
	a.waitWriter(30 * time.Second)
	acked := addAcked(a, "acked", 1)
	a.ok(addWF("slow", 1, "fail", sleeper(marks, 300)...))
	run := a.ok(map[string]any{"op": "start_run", "workflow": "slow"})["run"].(string)
	_, e := a.waitEvent(0, 30*time.Second, func(e map[string]any) bool {
		return e["event"] == "run" && e["run"] == run && e["status"] == "failed"
	}) // its supervisor died at the point: the window records the run failed
	t.Logf("run %s: %v", run, e)
	cutPower(t, f, home, a)
	for _, p := range lostAfterCut(f, home, append(acked, "slow")) {
		t.Fatal(p)
	}
	c := reopenAfterCut(t, f, home)
	for _, r := range c.snapshot().Runs {
		if r.ID == run && r.Status != store.StatusFailed {
			t.Fatalf("run %s after the reopen is %s, not failed", run, r.Status)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(marks, "starts")); strings.Count(string(b), "start") > 1 {
		t.Fatalf("the run's step started %d times", strings.Count(string(b), "start"))
	}
}

// TestPowerCutInArchive: the writer dies after appending finished runs to the archive and
// before the save that drops them from the document (save.after-archive), and the power
// goes then. Every run seen finished is in the document or the archive after the reopen.
func TestPowerCutInArchive(t *testing.T) {
	t.Parallel()
	f, home := powerHome(t)
	a := startChild(t, home, withEnv("BATON_TEST_KEEP_FINISHED=2", "BATON_FAILPOINTS=save.after-archive"))
	a.waitWriter(30 * time.Second)
	a.ok(addWF("w", 1, "fail"))
	var ids []string
	for !a.waitFor(0, func() bool { return a.exited }) {
		id := a.send(map[string]any{"op": "start_run", "workflow": "w"})
		var r map[string]any
		if !a.waitFor(30*time.Second, func() bool { r = a.replies[id]; return r != nil }) {
			break // killed at the point
		}
		if r["ok"] != true {
			t.Fatalf("start_run: %v", r)
		}
		run := r["run"].(string)
		if !a.waitFor(30*time.Second, func() bool {
			for _, e := range a.events {
				if e["event"] == "run" && e["run"] == run && e["status"] == "succeeded" {
					return true
				}
			}
			return false
		}) {
			break
		}
		ids = append(ids, run)
		if len(ids) > 20 {
			t.Fatal("the window never archived")
		}
	}
	if !a.waitFor(30*time.Second, func() bool { return a.exited }) {
		t.Fatal("the window was not killed at save.after-archive")
	}
	cutPower(t, f, home, a)
	if ws, ok := a.cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("the window ended with %v, not by its failpoint", a.cmd.ProcessState)
	}
	if len(ids) < 3 {
		t.Fatalf("only %d runs finished before the window died at the archive", len(ids))
	}
	c := reopenAfterCut(t, f, home)
	inDoc := map[string]bool{}
	for _, r := range c.snapshot().Runs {
		inDoc[r.ID] = true
	}
	archived := map[string]bool{}
	runs, _, err := store.NewArchive(home, 0).Runs()
	if err != nil {
		t.Fatal(err)
	}
	for r := range runs {
		archived[r.ID] = true
	}
	for _, id := range ids {
		if !inDoc[id] && !archived[id] {
			t.Errorf("finished run %s is neither in the document nor in the archive", id)
		}
	}
}

// TestPowerCutRandom: a writer takes a stream of saves (sent without waiting, so some are
// in flight at any moment) and runs under supervisors while a reader follows; the power
// goes after a random number of acknowledgements. Every save acknowledged, even one whose
// reply was still on its way, is there after the cut; the home opens; no run is started
// twice. BATON_POWER_ROUNDS sets the rounds (3 by default).
func TestPowerCutRandom(t *testing.T) {
	t.Parallel()
	rounds := 3
	if v := os.Getenv("BATON_POWER_ROUNDS"); v != "" {
		fmt.Sscan(v, &rounds)
	}
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewSource(seed))
	for i := range rounds {
		t.Run(fmt.Sprint(i), func(t *testing.T) { powerRandom(t, rng.Intn(40)+1) })
	}
}

func powerRandom(t *testing.T, after int) {
	f, home := powerHome(t)
	marks := t.TempDir()
	a := startChild(t, home)
	a.waitWriter(30 * time.Second)
	a.ok(addWF("slow", 2, "fail", sleeper(marks, 300)...))
	b := startChild(t, home)
	if b.initialRole() != "reader" {
		t.Fatal("b is not a reader")
	}
	run := a.ok(map[string]any{"op": "start_run", "workflow": "slow"})["run"].(string)
	names := map[string]string{} // request id -> workflow
	for i := range 60 {
		w := fmt.Sprintf("w%d", i)
		names[a.send(addWF(w, 1, "fail"))] = w
	}
	acks := func() int {
		n := 0
		for id := range names {
			if r := a.replies[id]; r != nil && r["ok"] == true {
				n++
			}
		}
		return n
	}
	a.waitFor(30*time.Second, func() bool { return acks() >= after })
	cutPower(t, f, home, a, b)
	var acked []string
	a.waitFor(30*time.Second, func() bool { return a.exited }) // every reply it wrote is read
	a.mu.Lock()
	for id, w := range names {
		if r := a.replies[id]; r != nil && r["ok"] == true {
			acked = append(acked, w)
		}
	}
	a.mu.Unlock()
	t.Logf("cut after %d acknowledgements (%d seen in all)", after, len(acked))
	for _, p := range lostAfterCut(f, home, append(acked, "slow")) {
		t.Error(p)
	}
	if t.Failed() {
		return
	}
	c := reopenAfterCut(t, f, home)
	for _, r := range c.snapshot().Runs {
		if r.ID == run && r.Status == store.StatusRunning {
			t.Errorf("run %s of the dead writer is still running after the reopen", run)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(marks, "starts")); strings.Count(string(b), "start") > 1 {
		t.Errorf("the run's step started %d times", strings.Count(string(b), "start"))
	}
}

// TestPowerCutDuringTick: `baton tick --once` runs a due occurrence of a schedule on a
// home on the forgetting file system; the power goes while the step runs. The key of an
// occurrence is saved (durably) before its step is spawned, so after the cut the reopened
// home has that occurrence's run, fails it (its owner is gone) and never starts it again;
// later occurrences each start once.
func TestPowerCutDuringTick(t *testing.T) {
	t.Parallel()
	f, home := powerHome(t)
	marks := t.TempDir()
	step := fmt.Sprintf(`echo "$BATON_DUE $BATON_RUN_ID" >> %[1]s/guard
if mkdir %[1]s/first 2>/dev/null; then
  echo started > %[1]s/started.tmp && mv %[1]s/started.tmp %[1]s/started
  sleep 300
fi`, marks)
	a := startChild(t, home)
	a.waitWriter(30 * time.Second)
	a.ok(addWF("job", 1, "fail", "sh", "-c", step))
	a.ok(map[string]any{"op": "add_schedule", "schedule": map[string]any{
		"workflow": "job", "every": "1s", "catch_up": "latest", "overlap": "skip"}})
	if err := a.close(); err != nil {
		t.Fatal(err)
	}
	sleepUntil(readDisk(t, home).Schedules[0].LastDue.Add(1300 * time.Millisecond)) // one is due
	p := startTickProc(t, home)
	waitFile(t, filepath.Join(marks, "started"), 30*time.Second)
	if err := f.PowerCut(func() {
		p.kill9()
		proc.KillAll(nil, [][]string{{workflow.EnvHome + "=" + home}}, 10*time.Second)
	}); err != nil {
		t.Fatal(err)
	}
	guard := lines(filepath.Join(marks, "guard"))
	if len(guard) != 1 {
		t.Fatalf("the tick started %d steps before the cut: %q", len(guard), guard)
	}
	first := strings.Fields(guard[0])
	d, err := store.ReadHome(durableHome(f, home))
	if err != nil {
		t.Fatalf("the home does not read after the cut: %v", err)
	}
	if d.Run(first[1]) == nil {
		t.Fatalf("run %s, whose step started before the cut, is not in the home after it: its occurrence's key was not durable before the spawn", first[1])
	}
	b := reopenAfterCut(t, f, home)
	b.waitEvent(0, 30*time.Second, func(e map[string]any) bool {
		return e["event"] == "run" && e["status"] == "succeeded" && e["run"] != first[1]
	}) // a later occurrence ran in the window
	if err := b.close(); err != nil {
		t.Fatal(err)
	}
	starts := map[string]int{}
	for _, l := range lines(filepath.Join(marks, "guard")) {
		starts[strings.Fields(l)[0]]++
	}
	for k, n := range starts {
		if n != 1 {
			t.Errorf("occurrence %s started %d times", k, n)
		}
	}
	d = readDisk(t, home)
	if r := d.Run(first[1]); r == nil || r.Status != store.StatusFailed {
		t.Errorf("the cut tick's run after the reopen: %+v, want failed", r)
	}
}

// TestPowerCutAfterCompaction: a window's retention pass compacts an archive file of a
// past month (rewritten without the runs the rules drop) and records the pass in the audit
// log; the power goes right after. Every run the rules keep is still in the archive.
func TestPowerCutAfterCompaction(t *testing.T) {
	t.Parallel()
	for _, p := range powerCompactionLost(t) {
		t.Error(p)
	}
}

// powerCompactionLost runs the compaction scenario (opts go to the window that compacts)
// and says what was lost.
func powerCompactionLost(t *testing.T, opts ...childOpt) []string {
	f, home := powerHome(t)
	a := startChild(t, home)
	a.waitWriter(30 * time.Second)
	for _, n := range []string{"old", "keep"} {
		a.ok(addWF(n, 1, "fail"))
	}
	a.ok(map[string]any{"op": "set_retention", "workflow": "old", "retention": map[string]any{"keep_runs": 1, "keep_for": "1h"}})
	if err := a.close(); err != nil {
		t.Fatal(err)
	}
	// Years of history, durable: written into the backing folder between two mounts.
	if err := f.Unmount(); err != nil {
		t.Fatal(err)
	}
	keep, _ := writeArchiveMonth(t, durableHome(f, home), "2025-03", 1, 300)
	f = f.Remount(t)
	b := startChild(t, home, append(opts, withEnv("BATON_TEST_RETENTION_NOW=1"))...)
	b.waitWriter(30 * time.Second)
	waitUntil(t, "the retention pass's audit record", func() bool {
		es, _ := store.NewAudit(home).Read(0)
		for _, e := range es {
			if e.Kind == store.KindRetention && e.PID == b.pid {
				return true
			}
		}
		return false
	})
	cutPower(t, f, home, b)
	runs, _, err := store.NewArchive(durableHome(f, home), 0).Runs()
	if err != nil {
		return []string{fmt.Sprintf("the archive after the cut: %v", err)}
	}
	seen := map[string]bool{}
	for r := range runs {
		seen[r.ID] = true
	}
	var out []string
	for _, id := range keep {
		if !seen[id] {
			out = append(out, fmt.Sprintf("kept run %s is gone from the archive after the cut", id))
		}
	}
	if len(out) > 3 {
		out = append(out[:3], fmt.Sprintf("... %d kept runs gone in all", len(out)))
	}
	return out
}

// TestPowerCutCompactionReverseControl: with the atomic replace's fsync of its temp file
// switched off, the compaction's rewritten archive file is empty after the cut.
func TestPowerCutCompactionReverseControl(t *testing.T) {
	t.Parallel()
	lost := powerCompactionLost(t, withEnv("BATON_SKIP_SYNC="+store.SyncReplaceFile))
	if len(lost) == 0 {
		t.Errorf("with %s switched off the compaction lost nothing at the cut", store.SyncReplaceFile)
	}
	t.Logf("with %s off: %q", store.SyncReplaceFile, lost)
}
