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

	"baton/store"
	"baton/workflow"
	"baton/workflow/proc"
)

// Power cuts at named points, at random moments, during a tick and after a compaction,
// on the forgetting file system (helpers in power_proc_test.go).

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
