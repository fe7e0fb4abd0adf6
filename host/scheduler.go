package host

import (
	"reflect"
	"slices"
	"time"

	"baton/store"
	"baton/workflow"
)

// maxSchedulerSleep bounds the scheduler's sleep, so a clock that jumps is noticed within
// it and overruns are seen promptly.
const maxSchedulerSleep = time.Second

// scheduler runs the schedules for one writer term; it ends with the term (ctx).
func (w *Core) scheduler(t *Term) {
	for {
		w.reapForeign(t)
		next := w.schedulePass(t)
		d := time.Until(next)
		if d > maxSchedulerSleep {
			d = maxSchedulerSleep
		}
		if d < time.Millisecond {
			d = time.Millisecond
		}
		timer := time.NewTimer(d)
		select {
		case <-t.Done():
			timer.Stop()
			return
		case <-t.wake:
			timer.Stop()
		case <-timer.C:
		}
	}
}

// wakeScheduler makes the scheduler look again now (a schedule was added or changed).
func (w *Core) wakeScheduler() {
	if t := w.currentTerm(); t != nil {
		t.wakeScheduler()
	}
}

// schedulePass handles what is due now in one save, records the decisions in the audit
// log, cancels what must be cancelled, starts what was created, and returns when to look
// again.
func (w *Core) schedulePass(t *Term) time.Time {
	return w.schedulePassAsOf(t, time.Time{}, false)
}

// schedulePassAsOf is schedulePass for the occurrences due at asOf (zero: now); overruns
// are judged now. `tick --once` passes the instant it started, and tick: its passes
// record in each schedule that a tick looked at it then (workflow.MarkTick), in the save
// of its first pass, after that pass judged lateness by the previous tick.
func (w *Core) schedulePassAsOf(t *Term, asOf time.Time, tick bool) time.Time {
	eng, self := t.executor(), t.self
	now := w.opts.Now()
	if asOf.IsZero() {
		asOf = now
	}
	var decs []workflow.Decision
	next := now.Add(maxSchedulerSleep)
	pass := func(d *store.Doc) error {
		before := scheduleState(d)
		decs = workflow.TickAsOf(d, asOf, now, self)
		if tick {
			workflow.MarkTick(d, asOf)
		}
		decs = append(decs, workflow.Overruns(d, now)...)
		next = nextWake(d, now)
		if len(decs) == 0 && reflect.DeepEqual(before, scheduleState(d)) {
			return store.ErrNoChange
		}
		return nil
	}
	// Most passes find nothing due: try on a copy of the schedules and runs first, so an
	// idle writer does not copy the whole document (every workflow) every second.
	if snap, _ := w.st.View(); pass(schedulingCopy(snap)) == store.ErrNoChange {
		return next
	}
	saved, err := t.Update(t.ctx, pass)
	if err != nil {
		w.opts.Logf("scheduler: %v", err)
		return next
	}
	started := false
	for _, dec := range decs {
		if dec.Kind == "started" {
			started = true
		} else {
			w.auditDecision(t, dec)
		}
		// The request is saved in the run; the engine is told at once, with the same
		// words its follower passes on if this misses it (a run it does not follow yet).
		if dec.Cancel != "" {
			if r := saved.Run(dec.Cancel); r != nil {
				eng.Cancel(dec.Cancel, workflow.CancelReasonOf(r))
			}
		}
	}
	if started {
		if _, err := eng.Kick(); err != nil {
			w.opts.Logf("scheduler: start runs: %v", err)
		}
	}
	return next
}

func (w *Core) auditDecision(t *Term, dec workflow.Decision) {
	if rec := dec.Record(); rec != nil {
		_ = t.audit(rec)
	}
}

// schedulingCopy is d with its own copy of what a scheduling pass may change: the
// schedules, the run counter, new runs and the live scheduled runs (Overruns marks and
// cancels running ones; replace cancels a running one, or finishes a queued one). The
// workflows, which the pass only reads, are d's, and so are the runs unless one of them
// is a live scheduled run (the only runs a pass changes in place): a document's runs are
// hundreds, and copying them every second was, with the collections it caused, most of
// an idle window's CPU (5-7 ms a second on a big home). Appends to the clipped slice go
// to a new array, never past the end of d's.
func schedulingCopy(d *store.Doc) *store.Doc {
	c := *d
	c.Schedules = make([]store.Schedule, len(d.Schedules))
	for i, s := range d.Schedules {
		c.Schedules[i] = s.Clone()
	}
	c.Runs = slices.Clip(d.Runs)
	for i := range d.Runs {
		if r := &d.Runs[i]; r.Active() && r.Schedule != "" {
			c.Runs = slices.Clone(d.Runs) // a pass sets value fields only: no pointer needs its own copy
			break
		}
	}
	return &c
}

type schedState struct {
	Last, Next time.Time
	Ticked     time.Time
	Pending    int
	Lock       string
}

func scheduleState(d *store.Doc) []schedState {
	out := make([]schedState, len(d.Schedules))
	for i, s := range d.Schedules {
		out[i] = schedState{Last: s.LastDue, Next: s.NextDue, Ticked: s.Ticked, Pending: len(s.Pending)}
		if s.Lock != nil {
			out[i].Lock = s.Lock.Run
		}
	}
	return out
}

// nextWake is the earliest next due time or max_runtime deadline.
func nextWake(d *store.Doc, now time.Time) time.Time {
	next := now.Add(maxSchedulerSleep)
	for i := range d.Schedules {
		s := &d.Schedules[i]
		if !s.Paused && !s.NextDue.IsZero() && s.NextDue.Before(next) {
			next = s.NextDue
		}
	}
	if t := nextOverrun(d); !t.IsZero() && t.Before(next) {
		next = t
	}
	return next
}

// nextOverrun is the earliest max_runtime deadline of a running scheduled run not yet
// marked overrun, or zero if there is none.
func nextOverrun(d *store.Doc) time.Time {
	var next time.Time
	for i := range d.Runs {
		r := &d.Runs[i]
		if r.Status == store.StatusRunning && r.Schedule != "" && !r.Overrun {
			if s := d.Schedule(r.Schedule); s != nil && s.MaxRuntime > 0 {
				if t := r.Started.Add(s.MaxRuntime.D() + time.Millisecond); next.IsZero() || t.Before(next) {
					next = t
				}
			}
		}
	}
	return next
}
