package host

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"baton/store"
	"baton/workflow"
)

// TickOnce is `baton tick --once`: for a cron, launchd or systemd driver when no window is
// open. If a writer is alive it does nothing (that writer's scheduler owns the schedules)
// and returns 0. Otherwise it becomes the writer through the same BecomeWriter transition
// (reap included) and makes one pass: it runs what was queued and the occurrences due at
// the instant it became the writer (by each schedule's catch-up and overlap policies,
// including those that wait for an earlier run of that pass), waits for those runs to
// end, records them, releases the lock and returns 0, or 1 with a message naming each
// run that did not succeed. Occurrences that come due while its runs go on are left for
// the next tick, so a tick always ends. Two overlapping ticks never run the same
// occurrence: the second finds the lock held. Its first save records in each schedule
// when it looked (workflow.MarkTick): an occurrence that comes due before the next tick
// is that tick's own work, not a missed one.
func TickOnce(home string, opts Options, out io.Writer) int {
	opts.NoScheduler, opts.NoWait = true, true
	w, err := Open(home, opts)
	if err != nil {
		fmt.Fprintf(out, "baton tick: %v\n", err)
		return 1
	}
	defer w.Close()
	if err := w.Start(); err != nil {
		fmt.Fprintf(out, "baton tick: %v\n", err)
		return 1
	}
	st := w.Status()
	if st.Role != RoleWriter {
		if st.Problem != "" {
			fmt.Fprintf(out, "baton tick: cannot run schedules: %s\n", st.Problem)
			return 1
		}
		if st.WriterPID == 0 { // the lock was free, yet not won for good (an etcd election lost again at once)
			fmt.Fprintf(out, "baton tick: no window is the writer, and this tick could not become it; nothing was run: run it again\n")
			return 1
		}
		fmt.Fprintf(out, "baton tick: window pid %d is the writer; its scheduler runs the schedules. Nothing to do.\n", st.WriterPID)
		return 0
	}
	t := w.currentTerm()
	self := w.Self()
	first := firstSeq(w.Snapshot(), self)
	passErr := errors.New("this window stopped being the writer before the tick began")
	if t != nil {
		passErr = w.tickPass(t, w.opts.Now())
	}
	var failed []string
	runs, herr := w.runsOf(self, first)
	for _, r := range runs {
		if r.Status != store.StatusSucceeded {
			failed = append(failed, fmt.Sprintf("%s (%s): %s %s", r.ID, r.Workflow, r.Status, r.Error))
		}
	}
	code := 0
	if passErr != nil {
		fmt.Fprintf(out, "baton tick: %v\n", passErr)
		code = 1
	}
	if herr != nil {
		fmt.Fprintf(out, "baton tick: reading the runs of this tick: %v\n", herr)
		code = 1
	}
	if len(failed) > 0 {
		fmt.Fprintf(out, "baton tick: %d of %d run(s) did not succeed:\n  %s\n", len(failed), len(runs), strings.Join(failed, "\n  "))
		return 1
	}
	if code == 0 {
		fmt.Fprintf(out, "baton tick: %d run(s) succeeded\n", len(runs))
	}
	return code
}

// tickPass is the tick's one pass: the occurrences due at asOf and what was queued start,
// and it waits until no run of this window is left running and nothing more can start.
// It waits on the window's events (every save publishes one, and so does a change of
// role), and on a timer only for a max_runtime deadline (and, every few seconds, for a
// run whose end could not be saved: see abandoned); each wake looks again at the
// schedules as of asOf, which only starts occurrences of this pass waiting for their
// turn (the engine usually starts them itself as a run ends) and judges overruns now.
func (w *Core) tickPass(t *Term, asOf time.Time) error {
	ctx, eng, self := t.ctx, t.executor(), t.self
	sub := w.Subscribe()
	defer w.Unsubscribe(sub)
	lost := time.NewTicker(tickLostCheck)
	defer lost.Stop()
	suspect := map[string]bool{}
	for {
		w.schedulePassAsOf(t, asOf, true)
		if err := w.tickWriterGone(ctx); err != nil {
			return err
		}
		d := w.Snapshot()
		if !runningOf(d, self) {
			// Nothing of ours runs: start what may start. Kick is serialised with the
			// engine's own kicks, so once it returns nothing, a run started by another
			// kick is already in the document.
			ids, err := eng.Kick()
			if err != nil {
				return fmt.Errorf("start queued runs: %w", err)
			}
			if len(ids) == 0 && !runningOf(w.Snapshot(), self) {
				return w.tickWriterGone(ctx)
			}
			continue
		}
		var overrun <-chan time.Time
		var timer *time.Timer
		if t := nextOverrun(d); !t.IsZero() {
			timer = time.NewTimer(time.Until(t))
			overrun = timer.C
		}
		select {
		case _, ok := <-sub.C:
			if !ok {
				return errors.New("the window closed before its runs ended")
			}
		case <-overrun:
		case <-ctx.Done():
		case <-lost.C:
			if gone := abandoned(w.Snapshot(), self, eng, suspect); len(gone) > 0 {
				return fmt.Errorf("could not record the end of run(s) %s (saving kept failing); the next writer reaps them", strings.Join(gone, ", "))
			}
		}
		if timer != nil {
			timer.Stop()
		}
	}
}

// tickLostCheck is how often a tick looks for runs its engine gave up recording.
const tickLostCheck = 5 * time.Second

// abandoned returns the runs of self running in d that the engine no longer executes
// and that were already so at the previous check (suspect, updated): the engine gives up
// recording a run's end after its saves kept failing for seconds, and no event says so.
// Two checks apart, since a run is in the document a moment before the engine lists it.
// (An engine that signalled when a run's goroutine returns would make this unneeded.)
func abandoned(d *store.Doc, self store.Owner, eng *workflow.Engine, suspect map[string]bool) []string {
	var gone []string
	now := map[string]bool{}
	for i := range d.Runs {
		r := &d.Runs[i]
		if r.Status == store.StatusRunning && r.Owner != nil && r.Owner.Instance == self.Instance && !eng.Owns(r.ID) {
			if suspect[r.ID] {
				gone = append(gone, r.ID)
			}
			now[r.ID] = true
		}
	}
	clear(suspect)
	for id := range now {
		suspect[id] = true
	}
	return gone
}

// tickWriterGone returns why this window can no longer record its runs, or nil.
func (w *Core) tickWriterGone(ctx context.Context) error {
	if ctx.Err() == nil && w.Role() == RoleWriter {
		return nil
	}
	s := w.Status()
	msg := "this window stopped being the writer while its runs went on; the next writer reaps them"
	if s.Problem != "" {
		msg += ": " + s.Problem
	}
	return errors.New(msg)
}

// runningOf reports whether a run of owner self is running in d.
func runningOf(d *store.Doc, self store.Owner) bool {
	for i := range d.Runs {
		r := &d.Runs[i]
		if r.Status == store.StatusRunning && r.Owner != nil && r.Owner.Instance == self.Instance {
			return true
		}
	}
	return false
}

// firstSeq is the lowest sequence number a run of this tick can have: that of a queued
// run or of a run the takeover already started, else the next run to be created.
func firstSeq(d *store.Doc, self store.Owner) uint64 {
	first := d.Seq + 1
	for i := range d.Runs {
		r := &d.Runs[i]
		if r.Seq < first && (r.Status == store.StatusQueued || (r.Owner != nil && r.Owner.Instance == self.Instance)) {
			first = r.Seq
		}
	}
	return first
}

// runsOf returns the runs owned by self with a sequence number from first on, from the
// document and the archive (a long tick's first runs may be archived by its last saves).
func (w *Core) runsOf(self store.Owner, first uint64) ([]store.Run, error) {
	var out []store.Run
	q := store.HistoryQuery{Limit: store.MaxHistoryLimit}
	for {
		page, err := w.Intents().History(q)
		if err != nil {
			return out, err
		}
		for _, r := range page.Runs {
			if r.Seq < first {
				return reverse(out), nil
			}
			if r.Owner != nil && r.Owner.Instance == self.Instance {
				out = append(out, r)
			}
		}
		if page.Next == 0 {
			return reverse(out), nil
		}
		q.Before = page.Next
	}
}

func reverse(rs []store.Run) []store.Run {
	for i, j := 0, len(rs)-1; i < j; i, j = i+1, j-1 {
		rs[i], rs[j] = rs[j], rs[i]
	}
	return rs
}
