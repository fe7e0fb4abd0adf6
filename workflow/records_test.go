package workflow

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"baton/store"
)

// Records are true: the step a run is recorded failed at is the step that failed, and a
// run recorded from its journal ends when its journal says it ended.

// TestFailedStepIsTheStepThatFailed: the third step of a 3-step run cannot start. The
// run is recorded failed at step 3, every time: the end is recorded from the journal even
// when the writer never saw the third step begin (it folds the journal while the
// supervisor goes on, and the end often arrives before the fold of step 3). Many runs at
// once make that race likely; before the end carried its step, several of them were
// recorded at step 2.
func TestFailedStepIsTheStepThatFailed(t *testing.T) {
	const runs = 24
	r := newRig(t)
	r.add(store.Workflow{Name: "w", MaxConcurrent: runs, Steps: []store.Step{
		{Argv: []string{"true"}}, {Argv: []string{"true"}}, {Name: "missing", Argv: []string{"/no/such/program"}},
	}})
	ids := make([]string, runs)
	for i := range ids {
		ids[i] = r.start("w")
	}
	wrong := 0
	for _, id := range ids {
		run := r.wait(id, 60*time.Second)
		if run.Status != store.StatusFailed || !strings.Contains(run.Error, "step 3 (missing): cannot start") {
			t.Fatalf("run %s: %+v, want failed at step 3", id, run)
		}
		if run.Step != 2 {
			wrong++
			t.Errorf("run %s is recorded failed at step %d, but its error names step 3: %q", id, run.Step+1, run.Error)
		}
	}
	t.Logf("%d of %d runs recorded at the wrong step", wrong, runs)
}

// TestFollowedRunEndsWhenItsJournalSaysItEnded: the writer records a run it follows with
// the end time of its journal, not the time it folds the end in. The engine's clock runs
// an hour ahead of the supervisor's: a run recorded with the engine's clock would end an
// hour from now.
func TestFollowedRunEndsWhenItsJournalSaysItEnded(t *testing.T) {
	home := t.TempDir()
	st := store.New(home, store.Options{})
	st.Reload()
	st.BeginEpoch()
	t.Cleanup(st.EndEpoch) // runs after the engine stops: no checkpoint fires as the folder goes
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	ahead := func() time.Time { return time.Now().Add(time.Hour) }
	eng := NewEngine(ctx, st.Update, store.Owner{PID: os.Getpid(), Instance: "test"}, home, ahead)
	t.Cleanup(func() { eng.Stop("test over") })
	r := &rig{t: t, home: home, st: st, eng: eng}
	r.add(store.Workflow{Name: "w", Steps: []store.Step{{Argv: []string{"true"}}}})
	run := r.wait(r.start("w"), 60*time.Second)
	if now := time.Now(); run.Status != store.StatusSucceeded || !run.Ended.Before(now) {
		t.Fatalf("run recorded as ending at %s (now is %s); want the journal's end: %+v", run.Ended, now, run)
	}
}

// TestReapedRunEndsWhenItsJournalSaysItEnded: a run that ended while no window was open
// (its owner dead, its supervisor gone after writing its end) is recorded by the next
// writer with the end time of its journal and at the step it ended at, however much later
// that writer comes.
func TestReapedRunEndsWhenItsJournalSaysItEnded(t *testing.T) {
	spec := svSpec(t, svStep("one", "true"), svStep("two", "exit 4"))
	sup := svStart(t, spec)
	j := svEnded(t, spec)
	svExit(t, sup)
	d := &store.Doc{Workflows: []store.Workflow{{Name: "w", OnOwnerLost: "fail", Steps: spec.Steps}}}
	d.Runs = []store.Run{{ID: spec.RunID, Workflow: "w", Status: store.StatusRunning, Steps: 2, Step: 0,
		Owner: &store.Owner{PID: 1 << 30, Instance: "gone"}, OwnerPID: 1 << 30, Started: j.Started}}
	dead := func(store.Owner) (bool, string) { return false, "test: the owner is gone" }
	sup2 := func(r *store.Run) Supervision { return SupervisionOf(spec.Home, r.ID) }
	orphans := FindOrphans(d, dead, sup2, false)
	if len(orphans) != 1 || orphans[0].Action != ActionRecorded {
		t.Fatalf("orphans: %+v", orphans)
	}
	later := j.EndedAt.Add(6 * time.Hour) // the next window opens much later
	ApplyReap(d, orphans, store.Owner{PID: os.Getpid(), Instance: "next"}, later, nil)
	got := d.Run(spec.RunID)
	if !got.Ended.Equal(j.EndedAt) {
		t.Errorf("run recorded as ending at %s, the journal says %s", got.Ended, j.EndedAt)
	}
	if got.Status != store.StatusFailed || got.Step != 1 {
		t.Errorf("run recorded %s at step %d, want failed at step 2: %+v", got.Status, got.Step+1, got)
	}
}

// TestRunEndIsSavedOnceTheDiskTakesIt: the save that records a run's end is refused (a
// full disk: the log of saves full, the whole save refused) many times over; the end is
// saved once the disk takes it, for as long as the writer term lasts. Before, the engine
// gave up after 21 tries, leaving the run "running" until another writer came.
func TestRunEndIsSavedOnceTheDiskTakesIt(t *testing.T) {
	hooks.saveRetryPause = func(int) time.Duration { return time.Millisecond }
	defer func() { hooks.saveRetryPause = nil }()
	home := t.TempDir()
	st := store.New(home, store.Options{})
	st.Reload()
	st.BeginEpoch()
	t.Cleanup(st.EndEpoch) // runs after the engine stops: no checkpoint fires as the folder goes
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	var mu sync.Mutex
	calls, refuse := 0, 40 // saves made, and still to refuse: a few go to folding the journal in, most to recording the end
	full := fmt.Errorf("save workflows.json: %w", syscall.ENOSPC)
	update := func(fn func(*store.Doc) error) (*store.Doc, error) {
		mu.Lock()
		defer mu.Unlock()
		calls++
		if calls > 1 && refuse > 0 { // the first is the kick's claim
			refuse--
			return nil, full
		}
		return st.Update(fn)
	}
	eng := NewEngine(ctx, update, store.Owner{PID: os.Getpid(), Instance: "test"}, home, nil)
	t.Cleanup(func() { eng.Stop("test over") })
	r := &rig{t: t, home: home, st: st, eng: eng}
	r.add(store.Workflow{Name: "w", Steps: []store.Step{{Argv: []string{"true"}}}})
	run := r.wait(r.start("w"), 60*time.Second)
	mu.Lock()
	defer mu.Unlock()
	if run.Status != store.StatusSucceeded || refuse != 0 {
		t.Fatalf("run %+v with %d refusals left", run, refuse)
	}
}

// TestReapedRunFailsAtTheStepItsJournalShows: a run whose owner and supervisor died while
// its second step ran, last folded at its first, is failed at the second: the step its
// journal shows.
func TestReapedRunFailsAtTheStepItsJournalShows(t *testing.T) {
	spec := svSpec(t, svStep("one", "true"), svStep("two", "sleep 60"))
	sup := svStart(t, spec)
	svStepStarted(t, spec, 1)
	_ = syscall.Kill(sup.PID, syscall.SIGKILL)
	svExit(t, sup)
	d := &store.Doc{Workflows: []store.Workflow{{Name: "w", OnOwnerLost: "fail", Steps: spec.Steps}}}
	d.Runs = []store.Run{{ID: spec.RunID, Workflow: "w", Status: store.StatusRunning, Steps: 2, Step: 0,
		Owner: &store.Owner{PID: 1 << 30, Instance: "gone"}, OwnerPID: 1 << 30}}
	dead := func(store.Owner) (bool, string) { return false, "test: the owner is gone" }
	orphans := FindOrphans(d, dead, func(r *store.Run) Supervision { return SupervisionOf(spec.Home, r.ID) }, false)
	if len(orphans) != 1 || orphans[0].Action != ActionFailed {
		t.Fatalf("orphans: %+v", orphans)
	}
	ApplyReap(d, orphans, store.Owner{PID: os.Getpid(), Instance: "next"}, time.Now(), nil)
	got := d.Run(spec.RunID)
	if got.Step != 1 || !strings.Contains(got.Error, "while step 2 of 2 was running") {
		t.Fatalf("run recorded failed at step %d: %q; want step 2", got.Step+1, got.Error)
	}
}

// TestUnreadableJournalIsNeverRequeued: a dead run whose journal is there but cannot be
// folded (a shared home's) may have ended: it is failed, not re-queued, whatever its policy.
func TestUnreadableJournalIsNeverRequeued(t *testing.T) {
	d := &store.Doc{Workflows: []store.Workflow{{Name: "w", OnOwnerLost: "requeue", Steps: []store.Step{{Argv: []string{"true"}}}}}}
	d.Runs = []store.Run{{ID: "r1", Workflow: "w", Status: store.StatusRunning, Steps: 1,
		Owner: &store.Owner{PID: 1 << 30, Instance: "gone"}, OwnerPID: 1 << 30}}
	dead := func(store.Owner) (bool, string) { return false, "test: the owner is gone" }
	sup := func(*store.Run) Supervision { return Supervision{JournalErr: "record 2: not JSON"} }
	if o := FindOrphans(d, dead, sup, false); len(o) != 1 || o[0].Action != ActionFailed {
		t.Fatalf("orphans: %+v", o)
	}
}
