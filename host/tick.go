package host

import (
	"fmt"
	"io"
	"strings"
	"time"

	"baton/store"
)

// TickOnce is `baton tick --once`: for a cron, launchd or systemd driver when no window is
// open. If a writer is alive it does nothing (that writer's scheduler owns the schedules)
// and returns 0. Otherwise it becomes the writer through the same BecomeWriter transition
// (reap included), runs every due occurrence (and what was queued) to its end, records
// the outcomes, releases the lock and returns 0, or 1 with a message naming each failed
// run. Two overlapping ticks never run the same occurrence: the second finds the lock held.
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
	if st.Role != "writer" {
		if st.Problem != "" {
			fmt.Fprintf(out, "baton tick: cannot run schedules: %s\n", st.Problem)
			return 1
		}
		fmt.Fprintf(out, "baton tick: window pid %d is the writer; its scheduler runs the schedules. Nothing to do.\n", st.WriterPID)
		return 0
	}
	w.mu.Lock()
	eng, ctx := w.engine, w.writerCtx
	w.mu.Unlock()
	self := w.Self()
	for i := 0; i < 10000; i++ {
		w.schedulePass(ctx, eng, self)
		w.kick()
		for len(eng.Live()) > 0 {
			time.Sleep(5 * time.Millisecond)
		}
		if !w.moreToDo() {
			break
		}
	}
	var failed []string
	ran := 0
	for _, r := range w.Snapshot().Runs {
		if r.Owner == nil || r.Owner.Instance != self.Instance {
			continue
		}
		ran++
		if r.Status != store.StatusSucceeded {
			failed = append(failed, fmt.Sprintf("%s (%s): %s %s", r.ID, r.Workflow, r.Status, r.Error))
		}
	}
	if len(failed) > 0 {
		fmt.Fprintf(out, "baton tick: %d of %d run(s) did not succeed:\n  %s\n", len(failed), ran, strings.Join(failed, "\n  "))
		return 1
	}
	fmt.Fprintf(out, "baton tick: %d run(s) succeeded\n", ran)
	return 0
}

// moreToDo reports whether a queued run could start or an occurrence is due now.
func (w *Window) moreToDo() bool {
	d := w.Snapshot()
	now := w.opts.Now()
	for i := range d.Runs {
		if d.Runs[i].Status == store.StatusQueued && d.Workflow(d.Runs[i].Workflow) != nil {
			return true
		}
	}
	for i := range d.Schedules {
		s := &d.Schedules[i]
		if !s.Paused && (len(s.Pending) > 0 || (!s.NextDue.IsZero() && !s.NextDue.After(now))) {
			return true
		}
	}
	return false
}
