package workflow

import (
	"errors"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/robfig/cron/v3"

	"baton/store"
)

var t0 = time.Date(2026, 1, 1, 3, 0, 0, 0, time.UTC)

var me = store.Owner{PID: 42, Instance: "me"}

func schedDoc(t *testing.T, s store.Schedule) (*store.Doc, string) {
	t.Helper()
	d := &store.Doc{Schema: store.SchemaVersion}
	if err := AddWorkflow(d, store.Workflow{Name: "wf", MaxConcurrent: 5, Steps: []store.Step{{Argv: []string{"true"}}}}); err != nil {
		t.Fatal(err)
	}
	s.Workflow = "wf"
	out, err := AddSchedule(d, s, t0)
	if err != nil {
		t.Fatal(err)
	}
	return d, out.ID
}

func kinds(decs []Decision) string {
	var k []string
	for _, d := range decs {
		k = append(k, d.Kind)
	}
	return strings.Join(k, ",")
}

// runsOf lists the runs of schedule id with their due keys.
func runsOf(d *store.Doc, id string) []store.Run {
	var out []store.Run
	for _, r := range d.Runs {
		if r.Schedule == id {
			out = append(out, r)
		}
	}
	return out
}

// setRunning marks a run as running (as the executor would) at time at.
func setRunning(d *store.Doc, id string, at time.Time) {
	r := d.Run(id)
	r.Status, r.Started, r.Owner, r.OwnerPID = store.StatusRunning, at, &me, me.PID
}

func finish(d *store.Doc, id, status string, at time.Time) {
	r := d.Run(id)
	Finish(r, status, nil, "", at)
	ReleaseScheduleLock(d, id)
	ScheduleFinished(d, r, RunOutput{Status: status, Dir: "/nonexistent"}, at, me)
}

func TestScheduleValidation(t *testing.T) {
	d := &store.Doc{Schema: store.SchemaVersion}
	AddWorkflow(d, store.Workflow{Name: "wf", Steps: []store.Step{{Argv: []string{"true"}}}})
	bad := []struct {
		s    store.Schedule
		want string
	}{
		{store.Schedule{Workflow: "nope", Every: store.Duration(time.Minute)}, "no workflow"},
		{store.Schedule{Workflow: "wf"}, "every or cron"},
		{store.Schedule{Workflow: "wf", Every: store.Duration(time.Millisecond)}, "at least 1s"},
		{store.Schedule{Workflow: "wf", Cron: "* * *"}, "cron"},
		{store.Schedule{Workflow: "wf", Cron: "* * * * *", Every: store.Duration(time.Minute)}, "not both"},
		{store.Schedule{Workflow: "wf", Cron: "* * * * *", TZ: "Mars/Base"}, "tz"},
		{store.Schedule{Workflow: "wf", Every: store.Duration(time.Minute), Overlap: "sometimes"}, "overlap"},
		{store.Schedule{Workflow: "wf", Every: store.Duration(time.Minute), CatchUp: "most"}, "catch_up"},
		{store.Schedule{Workflow: "wf", Every: store.Duration(time.Minute), OnOverrun: "explode"}, "on_overrun"},
	}
	for _, c := range bad {
		if _, err := AddSchedule(d, c.s, t0); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want error naming %q", c.s, err, c.want)
		}
	}
}

func TestNextEveryAndCron(t *testing.T) {
	s := &store.Schedule{Every: store.Duration(10 * time.Second), Created: t0}
	if n, _ := Next(s, t0); !n.Equal(t0.Add(10 * time.Second)) {
		t.Fatalf("every next %v", n)
	}
	if n, _ := Next(s, t0.Add(25*time.Second)); !n.Equal(t0.Add(30 * time.Second)) {
		t.Fatalf("every aligned next %v", n)
	}
	c := &store.Schedule{Cron: "30 9 * * *", TZ: "Europe/Paris"}
	n, err := Next(c, t0) // 03:00 UTC = 04:00 Paris; next 09:30 Paris = 08:30 UTC
	if err != nil || !n.Equal(time.Date(2026, 1, 1, 8, 30, 0, 0, time.UTC)) {
		t.Fatalf("cron next %v %v", n, err)
	}
	times, _ := NextTimes(c, t0, 3)
	if len(times) != 3 || times[2].Sub(times[0]) != 48*time.Hour {
		t.Fatalf("next times %v", times)
	}
}

func TestOccurrenceKeyAtMostOnceAndClockBackwards(t *testing.T) {
	d, id := schedDoc(t, store.Schedule{Every: store.Duration(time.Minute)})
	at := t0.Add(time.Minute)
	if k := kinds(Tick(d, at, me)); k != "started" {
		t.Fatalf("first tick: %s", k)
	}
	r := runsOf(d, id)[0]
	finish(d, r.ID, store.StatusSucceeded, at.Add(time.Second))
	if k := kinds(Tick(d, at.Add(2*time.Second), me)); k != "" {
		t.Fatalf("same occurrence again: %s", k)
	}
	// The clock jumps back ten minutes: nothing is due twice.
	if k := kinds(Tick(d, at.Add(-10*time.Minute), me)); k != "" {
		t.Fatalf("clock backwards: %s", k)
	}
	if k := kinds(Tick(d, at.Add(30*time.Second), me)); k != "" {
		t.Fatalf("back to before the next key: %s", k)
	}
	if n := len(runsOf(d, id)); n != 1 {
		t.Fatalf("%d runs, want 1", n)
	}
	if !d.Schedule(id).NextDue.Equal(t0.Add(2 * time.Minute)) {
		t.Fatalf("next due %v", d.Schedule(id).NextDue)
	}
}

// TestSeedScenarioSlowRunIsNeverReclaimed is the seed report's reproduction: a run alive
// past max_runtime keeps its lock; the next occurrence is skipped, never run beside it.
func TestSeedScenarioSlowRunIsNeverReclaimed(t *testing.T) {
	d, id := schedDoc(t, store.Schedule{Every: store.Duration(time.Minute), MaxRuntime: store.Duration(30 * time.Second)})
	t1 := t0.Add(time.Minute)
	Tick(d, t1, me)
	run1 := runsOf(d, id)[0].ID
	setRunning(d, run1, t1)
	// At the next occurrence run1 is still going: it overran its 30 s budget.
	t2 := t1.Add(time.Minute)
	over := Overruns(d, t2)
	if len(over) != 1 || over[0].Run != run1 || over[0].Cancel != "" {
		t.Fatalf("overrun: %+v", over)
	}
	if again := Overruns(d, t2.Add(time.Second)); len(again) != 0 {
		t.Fatalf("overrun recorded twice: %+v", again)
	}
	decs := Tick(d, t2, me)
	if kinds(decs) != "skipped" || decs[0].Run != run1 {
		t.Fatalf("next occurrence: %+v", decs)
	}
	if n := len(runsOf(d, id)); n != 1 {
		t.Fatalf("a second run was created beside the live one: %d runs", n)
	}
	if l := d.Schedule(id).Lock; l == nil || l.Run != run1 {
		t.Fatalf("lock reclaimed from a live run: %+v", l)
	}
	if !d.Run(run1).Overrun {
		t.Fatal("run not marked overrun")
	}
}

func TestOverrunCancelPolicy(t *testing.T) {
	d, id := schedDoc(t, store.Schedule{Every: store.Duration(time.Hour), MaxRuntime: store.Duration(time.Minute), OnOverrun: "cancel"})
	Tick(d, t0.Add(time.Hour), me)
	r := runsOf(d, id)[0].ID
	setRunning(d, r, t0.Add(time.Hour))
	over := Overruns(d, t0.Add(time.Hour+2*time.Minute))
	if len(over) != 1 || over[0].Cancel != r {
		t.Fatalf("cancel on overrun: %+v", over)
	}
	// The request is in the document, for whoever executes the run (it may not follow
	// the run yet: adopted at a takeover, or claimed in the same moment).
	if run := d.Run(r); !run.CancelRequested || !strings.Contains(run.CancelReason, "past max_runtime") {
		t.Fatalf("overrun cancel not recorded in the run: %+v", run)
	}
}

// TestReplaceIsRecordedInTheRun: replace asks for the live run's cancel in the document;
// a live run still queued (its lane full) is cancelled at once, and the occurrence starts.
func TestReplaceIsRecordedInTheRun(t *testing.T) {
	d, id := schedDoc(t, store.Schedule{Every: store.Duration(time.Minute), Overlap: OverlapReplace})
	Tick(d, t0.Add(time.Minute), me)
	run1 := runsOf(d, id)[0].ID
	setRunning(d, run1, t0.Add(time.Minute))
	Tick(d, t0.Add(2*time.Minute), me)
	if r := d.Run(run1); !r.CancelRequested || !strings.Contains(r.CancelReason, "replaced by the occurrence") {
		t.Fatalf("replace not recorded in the running run: %+v", r)
	}

	d, id = schedDoc(t, store.Schedule{Every: store.Duration(time.Minute), Overlap: OverlapReplace})
	Tick(d, t0.Add(time.Minute), me)
	queued := runsOf(d, id)[0].ID // never claimed: its lane is full
	decs := Tick(d, t0.Add(2*time.Minute), me)
	if kinds(decs) != "replace,started" || decs[0].Cancel != "" {
		t.Fatalf("replace of a queued run: %+v", decs)
	}
	if r := d.Run(queued); r.Status != store.StatusCancelled || !strings.Contains(r.Error, "cancelled while queued") {
		t.Fatalf("replaced queued run: %+v", r)
	}
	if runs := runsOf(d, id); len(runs) != 2 || d.Schedule(id).Lock == nil || d.Schedule(id).Lock.Run != runs[1].ID || len(d.Schedule(id).Pending) != 0 {
		t.Fatalf("the replacing occurrence did not start: %+v, lock %+v", runs, d.Schedule(id).Lock)
	}

	// Missed occurrences waiting in order (catch_up all) do not run after the one that
	// replaced the queued run: as when a running run is replaced, the newest wins.
	d, id = schedDoc(t, store.Schedule{Every: store.Duration(time.Minute), Overlap: OverlapReplace, CatchUp: CatchUpAll})
	Tick(d, t0.Add(5*time.Minute+30*time.Second), me) // 5 late: the first queued, 4 waiting
	if n := len(d.Schedule(id).Pending); n == 0 {
		t.Fatal("no missed occurrence waits: the case is not set up")
	}
	Tick(d, t0.Add(6*time.Minute), me) // on time, the first late run still queued
	if s := d.Schedule(id); len(s.Pending) != 0 || d.Run(s.Lock.Run).Due != t0.Add(6*time.Minute) {
		t.Fatalf("after replacing the queued run: pending %v, lock on the run due %v", s.Pending, d.Run(s.Lock.Run).Due)
	}
}

func TestOverlapPolicies(t *testing.T) {
	cases := []struct {
		overlap   string
		wantKinds []string // per tick while run 1 lives
		wantRuns  int      // runs created before run 1 ends
		afterEnd  int      // runs after run 1 ends and the next pass
	}{
		{OverlapSkip, []string{"skipped", "skipped"}, 1, 1},
		{OverlapQueue, []string{"queued", "queued"}, 1, 2},
		{OverlapAllow, []string{"started", "started"}, 3, 3},
		{OverlapReplace, []string{"replace", "replace"}, 1, 2},
	}
	for _, c := range cases {
		t.Run(c.overlap, func(t *testing.T) {
			d, id := schedDoc(t, store.Schedule{Every: store.Duration(time.Minute), Overlap: c.overlap})
			Tick(d, t0.Add(time.Minute), me)
			run1 := runsOf(d, id)[0].ID
			setRunning(d, run1, t0.Add(time.Minute))
			for i, want := range c.wantKinds {
				decs := Tick(d, t0.Add(time.Duration(i+2)*time.Minute), me)
				if kinds(decs) != want {
					t.Fatalf("tick %d: %s, want %s", i, kinds(decs), want)
				}
				if c.overlap == OverlapReplace && decs[0].Cancel != run1 {
					t.Fatalf("replace must cancel the live run: %+v", decs[0])
				}
			}
			if n := len(runsOf(d, id)); n != c.wantRuns {
				t.Fatalf("%d runs while run 1 lives, want %d", n, c.wantRuns)
			}
			if c.overlap == OverlapQueue && len(d.Schedule(id).Pending) != 1 {
				t.Fatalf("queue keeps at most one waiting occurrence: %v", d.Schedule(id).Pending)
			}
			// Run 1 ends (for replace: cancelled once its group is gone).
			status := store.StatusSucceeded
			if c.overlap == OverlapReplace {
				status = store.StatusCancelled
			}
			finish(d, run1, status, t0.Add(3*time.Minute+time.Second))
			if n := len(runsOf(d, id)); n != c.afterEnd {
				t.Fatalf("%d runs after run 1 ended, want %d", n, c.afterEnd)
			}
		})
	}
}

func TestCatchUpPolicies(t *testing.T) {
	every := store.Duration(time.Minute)
	// The app was closed for 10.5 minutes: 10 occurrences were missed.
	later := t0.Add(10*time.Minute + 30*time.Second)
	cases := []struct {
		policy string
		window time.Duration
		runs   int
		first  time.Time
	}{
		{CatchUpNone, 0, 0, time.Time{}},
		{CatchUpLatest, 0, 1, t0.Add(10 * time.Minute)},
		{CatchUpAll, 0, 10, t0.Add(time.Minute)},
		{CatchUpAll, 3 * time.Minute, 3, t0.Add(8 * time.Minute)},
	}
	for _, c := range cases {
		t.Run(c.policy+c.window.String(), func(t *testing.T) {
			d, id := schedDoc(t, store.Schedule{Every: every, CatchUp: c.policy, CatchUpWindow: store.Duration(c.window), Overlap: OverlapSkip})
			decs := Tick(d, later, me)
			if !strings.HasPrefix(kinds(decs), "catch_up") {
				t.Fatalf("no catch_up decision recorded: %s", kinds(decs))
			}
			// Run them one after another, as the lock frees.
			var dues []time.Time
			for i := 0; i < 20; i++ {
				rs := runsOf(d, id)
				if len(rs) == len(dues) {
					break
				}
				r := rs[len(dues)]
				dues = append(dues, r.Due)
				setRunning(d, r.ID, later)
				finish(d, r.ID, store.StatusSucceeded, later)
			}
			if len(dues) != c.runs {
				t.Fatalf("%d runs, want %d (%v)", len(dues), c.runs, dues)
			}
			if c.runs > 0 && !dues[0].Equal(c.first) {
				t.Fatalf("first due %v, want %v", dues[0], c.first)
			}
			for i := 1; i < len(dues); i++ {
				if !dues[i].After(dues[i-1]) {
					t.Fatalf("catch-up out of order: %v", dues)
				}
			}
			// A later tick at the same time (or a clock jump back) adds nothing.
			before := len(runsOf(d, id))
			Tick(d, later, me)
			Tick(d, t0, me)
			if len(runsOf(d, id)) != before {
				t.Fatal("occurrences ran twice after catch-up")
			}
		})
	}
}

func TestWatermarkAdvancesOnlyOnSuccess(t *testing.T) {
	wm := "0"
	d, id := schedDoc(t, store.Schedule{Every: store.Duration(time.Minute), Watermark: &wm})
	home := t.TempDir()
	step := func(at time.Time, status, wrote string) {
		Tick(d, at, me)
		rs := runsOf(d, id)
		r := rs[len(rs)-1]
		env := ScheduleEnv(home, d, &r)
		if env[EnvWatermark] != *d.Schedule(id).Watermark {
			t.Fatalf("run got watermark %q, schedule has %q", env[EnvWatermark], *d.Schedule(id).Watermark)
		}
		dir := RunDir(home, r.ID)
		os.MkdirAll(dir, 0o700)
		os.WriteFile(filepath.Join(dir, "watermark.out"), []byte(wrote+"\n"), 0o600)
		setRunning(d, r.ID, at)
		rr := d.Run(r.ID)
		Finish(rr, status, nil, "", at)
		ReleaseScheduleLock(d, r.ID)
		ScheduleFinished(d, rr, RunOutput{Status: status, Dir: dir}, at, me)
	}
	step(t0.Add(time.Minute), store.StatusSucceeded, "10")
	if got := *d.Schedule(id).Watermark; got != "10" {
		t.Fatalf("after success: %q", got)
	}
	step(t0.Add(2*time.Minute), store.StatusFailed, "20")
	if got := *d.Schedule(id).Watermark; got != "10" {
		t.Fatalf("a failed run moved the watermark to %q", got)
	}
	step(t0.Add(3*time.Minute), store.StatusCancelled, "30")
	if got := *d.Schedule(id).Watermark; got != "10" {
		t.Fatalf("a cancelled run moved the watermark to %q", got)
	}
	step(t0.Add(4*time.Minute), store.StatusSucceeded, "40")
	if got := *d.Schedule(id).Watermark; got != "40" {
		t.Fatalf("after success: %q", got)
	}
}

func TestReapReleasesScheduleLockAndNextRunsOnce(t *testing.T) {
	d, id := schedDoc(t, store.Schedule{Every: store.Duration(time.Minute)})
	Tick(d, t0.Add(time.Minute), me)
	run1 := runsOf(d, id)[0].ID
	dead := store.Owner{PID: 7, Instance: "dead"}
	r := d.Run(run1)
	r.Status, r.Owner, r.OwnerPID, r.Started = store.StatusRunning, &dead, 7, t0.Add(time.Minute)
	orphans := FindOrphans(d, func(o store.Owner) (bool, string) { return o.Instance != "dead", "instance lock free" }, nil, false)
	ApplyReap(d, orphans, store.Owner{}, t0.Add(90*time.Second), nil)
	if d.Schedule(id).Lock != nil {
		t.Fatal("reaped run still holds the schedule lock")
	}
	Tick(d, t0.Add(2*time.Minute), me)
	Tick(d, t0.Add(2*time.Minute+time.Second), me)
	if rs := runsOf(d, id); len(rs) != 2 || !rs[1].Due.Equal(t0.Add(2*time.Minute)) {
		t.Fatalf("runs after reap: %+v", rs)
	}
}

// TestReapAdoptsARunAskedToCancel: a run whose cancel was asked (by a person or a
// schedule) and whose supervisor lives is adopted at a hand-over, its request kept for the
// adopting follower to pass on; with no live supervisor it is failed, never re-queued.
func TestReapAdoptsARunAskedToCancel(t *testing.T) {
	d, id := schedDoc(t, store.Schedule{Every: store.Duration(time.Minute), MaxRuntime: store.Duration(time.Second), OnOverrun: "cancel"})
	d.Workflow("wf").OnOwnerLost = "requeue"
	Tick(d, t0.Add(time.Minute), me)
	run1 := runsOf(d, id)[0].ID
	old := store.Owner{PID: 7, Instance: "old"}
	r := d.Run(run1)
	r.Status, r.Owner, r.OwnerPID, r.Started = store.StatusRunning, &old, 7, t0.Add(time.Minute)
	Overruns(d, t0.Add(time.Minute+2*time.Second))
	gone := func(store.Owner) (bool, string) { return false, "handed over" }
	for _, c := range []struct {
		supAlive bool
		want     string
	}{{true, ActionAdopted}, {false, ActionFailed}} {
		sup := func(*store.Run) Supervision { return Supervision{Alive: c.supAlive} }
		o := FindOrphans(d, gone, sup, true)
		if len(o) != 1 || o[0].Action != c.want {
			t.Fatalf("supervisor alive %v: %+v, want %s", c.supAlive, o, c.want)
		}
	}
	ApplyReap(d, FindOrphans(d, gone, func(*store.Run) Supervision { return Supervision{Alive: true} }, true), me, t0.Add(2*time.Minute), nil)
	if r := d.Run(run1); r.Status != store.StatusRunning || !r.CancelRequested || r.Owner.Instance != me.Instance {
		t.Fatalf("adopted run: %+v", r)
	}
}

func TestPauseResumeDoesNotCatchUpPausedTime(t *testing.T) {
	d, id := schedDoc(t, store.Schedule{Every: store.Duration(time.Minute), CatchUp: CatchUpAll})
	PauseSchedule(d, id, true, t0)
	if k := kinds(Tick(d, t0.Add(5*time.Minute), me)); k != "" {
		t.Fatalf("paused schedule ran: %s", k)
	}
	PauseSchedule(d, id, false, t0.Add(5*time.Minute))
	Tick(d, t0.Add(5*time.Minute+time.Second), me)
	if n := len(runsOf(d, id)); n != 0 {
		t.Fatalf("resume caught up %d paused occurrences", n)
	}
	Tick(d, t0.Add(6*time.Minute), me)
	if n := len(runsOf(d, id)); n != 1 {
		t.Fatalf("after resume: %d runs, want 1", n)
	}
}

// TestPausedScheduleStartsNothingWaiting: an occurrence waiting behind a live run
// (overlap queue) does not start when that run ends while the schedule is paused; it
// starts at the first pass after resume, and nothing due during the pause runs.
func TestPausedScheduleStartsNothingWaiting(t *testing.T) {
	d, id := schedDoc(t, store.Schedule{Every: store.Duration(time.Minute), Overlap: OverlapQueue, CatchUp: CatchUpAll})
	Tick(d, t0.Add(time.Minute), me)
	run1 := runsOf(d, id)[0].ID
	setRunning(d, run1, t0.Add(time.Minute))
	Tick(d, t0.Add(2*time.Minute), me) // waits behind run 1
	PauseSchedule(d, id, true, t0.Add(2*time.Minute+time.Second))
	finish(d, run1, store.StatusSucceeded, t0.Add(3*time.Minute))
	if n := len(runsOf(d, id)); n != 1 {
		t.Fatalf("a paused schedule started its waiting occurrence: %d runs", n)
	}
	PauseSchedule(d, id, false, t0.Add(10*time.Minute))
	Tick(d, t0.Add(10*time.Minute+time.Second), me)
	rs := runsOf(d, id)
	if len(rs) != 2 || !rs[1].Due.Equal(t0.Add(2*time.Minute)) {
		t.Fatalf("after resume: %d runs (%v), want the waiting occurrence of %s only", len(rs), rs, t0.Add(2*time.Minute))
	}
}

// TestTickAsOfHandlesOnlyWhatWasDueThen is the pass of `tick --once`: occurrences due
// after asOf are left alone however late now is, lateness is judged at asOf (catch_up
// none still runs the occurrence that was on time then), the runs are dated now, and a
// second call with the same asOf only starts an occurrence that waited for its turn.
func TestTickAsOfHandlesOnlyWhatWasDueThen(t *testing.T) {
	every := store.Duration(time.Minute)
	asOf := t0.Add(3*time.Minute + time.Second) // keys 1m, 2m (late) and 3m (on time)
	now := asOf.Add(10 * time.Minute)           // the pass's runs took ten minutes
	t.Run("none", func(t *testing.T) {
		d, id := schedDoc(t, store.Schedule{Every: every, CatchUp: CatchUpNone})
		TickAsOf(d, asOf, now, me)
		rs := runsOf(d, id)
		if len(rs) != 1 || !rs[0].Due.Equal(t0.Add(3*time.Minute)) || !rs[0].Created.Equal(now) {
			t.Fatalf("runs %+v, want one for the on-time key 3m, created now", rs)
		}
		s := d.Schedule(id)
		if !s.LastDue.Equal(t0.Add(3*time.Minute)) || !s.NextDue.Equal(t0.Add(4*time.Minute)) {
			t.Fatalf("last due %v, next due %v, want 3m and 4m: not as of asOf", s.LastDue, s.NextDue)
		}
	})
	t.Run("all-queued-in-order", func(t *testing.T) {
		d, id := schedDoc(t, store.Schedule{Every: every, CatchUp: CatchUpAll, Overlap: OverlapSkip})
		TickAsOf(d, asOf, now, me)
		if rs := runsOf(d, id); len(rs) != 1 || len(d.Schedule(id).Pending) != 1 {
			t.Fatalf("runs %d, pending %v: want the first late key running and the second waiting", len(rs), d.Schedule(id).Pending)
		}
		first := runsOf(d, id)[0]
		setRunning(d, first.ID, now)
		// The run ended without its finish starting the next (as after a reap): the
		// next pass as of the same instant starts the waiting key and nothing else.
		Finish(d.Run(first.ID), store.StatusSucceeded, nil, "", now)
		ReleaseScheduleLock(d, first.ID)
		if k := kinds(TickAsOf(d, asOf, now.Add(time.Minute), me)); k != "started" {
			t.Fatalf("second pass: %q, want started", k)
		}
		if k := kinds(TickAsOf(d, asOf, now.Add(2*time.Minute), me)); k != "" {
			t.Fatalf("third pass: %q, want nothing", k)
		}
		var dues []time.Time
		for _, r := range runsOf(d, id) {
			dues = append(dues, r.Due)
		}
		if len(dues) != 2 || !dues[0].Equal(t0.Add(time.Minute)) || !dues[1].Equal(t0.Add(2*time.Minute)) {
			t.Fatalf("dues %v, want 1m then 2m (3m found a live run and was skipped)", dues)
		}
	})
}

// TestScheduleValidationNamesEveryField: a schedule's validation returns every broken rule
// at once, each naming its field, wrapped in ErrInvalid.
func TestScheduleValidationNamesEveryField(t *testing.T) {
	d := &store.Doc{Schema: store.SchemaVersion}
	_, err := AddSchedule(d, store.Schedule{Workflow: "nope", Every: store.Duration(time.Minute), Cron: "61 * * * *", TZ: "Mars/Base",
		Overlap: "sometimes", CatchUp: "most", OnOverrun: "explode"}, t0)
	var fe store.FieldErrors
	if !errors.Is(err, ErrInvalid) || !errors.As(err, &fe) {
		t.Fatalf("AddSchedule = %v, want ErrInvalid around FieldErrors", err)
	}
	got := map[string]string{}
	for _, e := range fe {
		got[e.Field] = e.Message
	}
	want := map[string]string{
		"workflow":   `no workflow named "nope"`,
		"every":      "give either every or cron, not both",
		"tz":         `unknown time zone "Mars/Base"; use a name such as Europe/Paris or UTC`,
		"cron":       "minute must be 0–59, got 61",
		"overlap":    `must be skip, queue, allow or replace, got "sometimes"`,
		"on_overrun": `must be warn or cancel, got "explode"`,
		"catch_up":   `must be none, latest or all, got "most"`,
	}
	if !maps.Equal(got, want) {
		t.Errorf("problems:\n got %v\nwant %v", got, want)
	}
}

// TestCronProblemsInPlainWords: what is wrong with a cron expression is said in plain
// words naming the field at fault, never in the cron library's words; what the library
// accepts is accepted, and an expression the library panics on is refused.
func TestCronProblemsInPlainWords(t *testing.T) {
	for spec, want := range map[string]string{
		"61 * * * *":                  "minute must be 0–59, got 61",
		"0 24 * * *":                  "hour must be 0–23, got 24",
		"0 3 0 * *":                   "day of month must be 1–31, got 0",
		"0 3 * 13 *":                  "month must be 1–12 or jan–dec, got 13",
		"0 3 * * 7":                   "weekday must be 0–6 or sun–sat, got 7",
		"0 3 * * funday":              `weekday must be 0–6 or sun–sat, got "funday"`,
		"x 3 * * *":                   `minute must be 0–59, got "x"`,
		"-5 3 * * *":                  `minute must be 0–59, got "-5"`,
		"30-10 3 * * *":               "minute range 30-10 goes backwards; write the smaller value first",
		"*/0 3 * * *":                 `minute step after / must be a whole number of at least 1, got "0"`,
		"1/2/3 * * * *":               `minute "1/2/3" has more than one /`,
		"1-2-3 * * * *":               `minute "1-2-3" has more than one -`,
		"61 25 * * *":                 "minute must be 0–59, got 61; hour must be 0–23, got 25",
		"* * *":                       "needs 5 fields (minute hour day-of-month month weekday), got 3",
		"0 0 3 * * *":                 "needs 5 fields (minute hour day-of-month month weekday), got 6",
		"":                            "is empty; write five fields such as 0 3 * * *",
		"@sometimes":                  `unknown shortcut "@sometimes"; use @hourly, @daily, @weekly, @monthly, @yearly or @every 1h`,
		"@every soon":                 `@every needs a duration such as @every 1h30m, got "soon"`,
		"TZ=UTC":                      "after TZ=UTC give the schedule, such as TZ=UTC 0 3 * * *",
		"CRON_TZ=Mars/Base 0 3 * * *": `unknown time zone "Mars/Base" in CRON_TZ=Mars/Base`,
	} {
		if got := CronProblem(spec); got != want {
			t.Errorf("CronProblem(%q) = %q, want %q", spec, got, want)
		}
	}
	for _, spec := range []string{"0 3 * * *", "*/15 9-17 * * mon-fri", "0 0 1 jan,jul *", "5,10,15 * * * *", "30 2/3 * * 0",
		"@daily", "@every 90s", "TZ=Europe/Paris 0 3 * * *", "? * * * *", " 0 3 * * * "} {
		if got := CronProblem(spec); got != "" {
			t.Errorf("CronProblem(%q) = %q, want none", spec, got)
		}
		if _, err := cron.ParseStandard(strings.TrimSpace(spec)); err != nil {
			t.Errorf("the library refuses %q, which CronProblem accepts: %v", spec, err)
		}
	}
	d := &store.Doc{Schema: store.SchemaVersion}
	AddWorkflow(d, store.Workflow{Name: "wf", Steps: []store.Step{{Argv: []string{"true"}}}})
	if _, err := AddSchedule(d, store.Schedule{Workflow: "wf", Cron: "TZ=UTC"}, t0); !errors.Is(err, ErrInvalid) { // the library panics on it
		t.Errorf("cron TZ=UTC: %v, want invalid", err)
	}
}

// TestCronThatNeverComesIsRefused: an expression no date matches is refused when saved,
// and one already in a document stops the scheduler's pass instead of spinning in it.
func TestCronThatNeverComesIsRefused(t *testing.T) {
	d := &store.Doc{Schema: store.SchemaVersion}
	AddWorkflow(d, store.Workflow{Name: "wf", Steps: []store.Step{{Argv: []string{"true"}}}})
	_, err := AddSchedule(d, store.Schedule{Workflow: "wf", Cron: "0 0 30 2 *"}, t0)
	var fe store.FieldErrors
	if !errors.As(err, &fe) || len(fe) != 1 || fe[0] != (store.FieldError{Field: "cron", Message: "never comes round: no date matches it (such as the 30th of February)"}) {
		t.Fatalf("cron 0 0 30 2 *: %v, want refused as never coming", err)
	}
	d.Schedules = append(d.Schedules, store.Schedule{ID: "s1", Workflow: "wf", Cron: "0 0 30 2 *", Created: t0, LastDue: t0})
	if _, err := Next(&d.Schedules[0], t0); err == nil {
		t.Error("Next of a cron that never comes returned no error")
	}
	done := make(chan []Decision)
	go func() { done <- Tick(d, t0.Add(time.Hour), me) }()
	select {
	case decs := <-done:
		if len(decs) != 0 || len(d.Runs) != 0 {
			t.Errorf("tick: %v, runs %d", kinds(decs), len(d.Runs))
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a tick over a cron that never comes did not return")
	}
}

// TestWorkflowNamesTrimmedAndUniqueIgnoringCase: the core trims a workflow's name and
// refuses a new one equal to another's ignoring case and surrounding spaces, naming the
// field. (Workflow rules; kept here as this package's test file for definitions.)
func TestWorkflowNamesTrimmedAndUniqueIgnoringCase(t *testing.T) {
	d := &store.Doc{Schema: store.SchemaVersion}
	step := []store.Step{{Argv: []string{"true"}, Name: " copy "}}
	if err := AddWorkflow(d, store.Workflow{Name: " backup ", Steps: step}); err != nil {
		t.Fatal(err)
	}
	if w := d.Workflows[0]; w.Name != "backup" || w.Steps[0].Name != "copy" {
		t.Errorf("stored name %q, step %q; want them trimmed", w.Name, w.Steps[0].Name)
	}
	for _, name := range []string{"backup", "Backup ", "  BACKUP", "backup\t"} {
		err := AddWorkflow(d, store.Workflow{Name: name, Steps: step})
		var fe store.FieldErrors
		if !errors.Is(err, ErrConflict) || errors.Is(err, ErrInvalid) || !errors.As(err, &fe) || len(fe) != 1 || fe[0].Field != "name" {
			t.Errorf("AddWorkflow(%q) = %v, want a conflict on the name", name, err)
		}
	}
	if len(d.Workflows) != 1 {
		t.Errorf("%d workflows, want 1", len(d.Workflows))
	}
	if err := UpdateWorkflow(d, store.Workflow{Name: "backup", MaxConcurrent: 2, Steps: step}); err != nil || d.Workflows[0].MaxConcurrent != 2 {
		t.Errorf("update: %v", err)
	}
	// An update names the workflow exactly as stored: it never renames one, nor finds it
	// by a look-alike (the control channel restores masked secrets by the exact name).
	if err := UpdateWorkflow(d, store.Workflow{Name: "Backup ", Steps: step}); !errors.Is(err, ErrNotFound) {
		t.Errorf("update of a look-alike name: %v, want not found", err)
	}
	err := AddWorkflow(d, store.Workflow{Name: "   ", MaxConcurrent: -1, Steps: []store.Step{{}}})
	var fe store.FieldErrors
	if !errors.Is(err, ErrInvalid) || !errors.As(err, &fe) || len(fe) != 3 {
		t.Errorf("a blank name, a bad lane and an empty argv: %v, want 3 field errors", err)
	}
}
