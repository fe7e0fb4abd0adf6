package host

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"baton/store"
	"baton/workflow"
)

// What the command line (package host/cli) asks of the core beyond Status, Snapshot and
// Intents: a run by its id or number and whether it has ended, the writer that lives now,
// and staying the writer until closing would cancel nothing (Settle).

// settleNote is how long a command that stays the writer for its runs waits before it
// says so.
const settleNote = time.Second

// Settle keeps a core that became the writer (a command's, as tick --once does) until
// closing it would cancel nothing: closing a writer cancels its running runs, except
// those whose workflow says on_owner_lost "adopt", and a run started from the command
// line must outlive the command (host/cli/README.md). It starts queued runs itself and
// returns when none of its own that a close would cancel is left, when the term ends
// (a hand-over, or no longer writing), or, with interrupted set, when ctx ends. waiting
// is called once, after a second, with the runs it waits for. A core that is not the
// writer, or a ctx already ended, returns at once.
func (w *Core) Settle(ctx context.Context, waiting func(going []string)) (interrupted bool, err error) {
	t := w.currentTerm()
	if t == nil || ctx.Err() != nil {
		return false, nil // not the writer, or interrupted: the close does what a close does
	}
	sub := w.Subscribe()
	defer w.Unsubscribe(sub)
	var note <-chan time.Time // the note is for runs that take a while, not for every run
	for {
		if t.ctx.Err() != nil {
			return false, nil // handed over, or no longer writing: nothing of ours to cancel
		}
		going := closingCancels(w.Snapshot(), t.self)
		if len(going) == 0 {
			// Kick is serialised with the engine's own kicks: once it starts nothing, a run
			// started by another kick is in the document already.
			ids, err := t.executor().Kick()
			if err != nil {
				return false, fmt.Errorf("start queued runs: %w", err)
			}
			if len(ids) == 0 && len(closingCancels(w.Snapshot(), t.self)) == 0 {
				return false, nil
			}
			continue
		}
		if note == nil {
			note = time.After(settleNote)
		}
		select {
		case <-note:
			waiting(going)
			note = make(chan time.Time) // never again
		case _, ok := <-sub.C:
			if !ok {
				return false, nil
			}
		case <-t.Done():
		case <-ctx.Done():
			return true, nil
		}
	}
}

// RunState returns run ref as it stands now and whether it has ended (a command's follow of a run, host/cli).
func (w *Core) RunState(ref string) (store.Run, bool, error) {
	if doc, changed, err := w.st.Refresh(); err == nil && changed {
		w.publish(doc)
	}
	r, err := w.FindRun(ref)
	if err != nil || !r.Active() {
		return r, err == nil, err
	}
	if r.Status != store.StatusRunning || w.LiveWriter(w.Snapshot()) != nil {
		return r, false, nil
	}
	sup := workflow.SupervisionOf(w.home, r.ID)
	switch {
	case sup.Journal != nil && sup.Journal.Ended:
		r.Status, r.ExitCode, r.Error = sup.Journal.Status, sup.Journal.Exit, sup.Journal.Error
		return r, true, nil
	case sup.Alive:
		return r, false, nil
	case r.Owner != nil:
		if alive, _ := w.evidence().OwnerAlive(w.Self(), *r.Owner); alive {
			return r, false, nil // its window is starting its supervisor
		}
	}
	return r, false, fmt.Errorf("run %s was left running by window pid %d, which is gone, and its supervisor is gone too: "+
		"the next window to write records it", r.ID, r.OwnerPID)
}

// LiveWriter returns the window that writes now, by the document and the evidence of its
// liveness (its instance lock): the window a hand-over names, else the recorded writer;
// nil when neither lives (no window is open).
func (w *Core) LiveWriter(d *store.Doc) *store.Owner {
	for _, o := range []*store.Owner{d.HandoverTo, d.Writer} {
		if o != nil {
			if alive, _ := w.evidence().OwnerAlive(w.Self(), *o); alive {
				return o
			}
		}
	}
	return nil
}

// FindRun returns the run named ref: its id, or its number ("r12" or "12"), from the
// document or the archive.
func (w *Core) FindRun(ref string) (store.Run, error) {
	seq, byNumber := runNumber(ref)
	is := func(r *store.Run) bool { return r.ID == ref || (byNumber && r.Seq == seq) }
	d := w.Snapshot()
	for i := range d.Runs {
		if is(&d.Runs[i]) {
			return d.Runs[i].Clone(), nil
		}
	}
	if seq > 0 {
		p, err := w.Intents().History(store.HistoryQuery{Before: seq + 1, Limit: 1})
		if err != nil {
			return store.Run{}, err
		}
		if len(p.Runs) == 1 && is(&p.Runs[0]) {
			return p.Runs[0], nil
		}
	}
	return store.Run{}, fmt.Errorf("%w: no run %q", workflow.ErrNotFound, ref)
}

// runNumber returns the sequence number in a run id (r12-1a2b3c4d) or a run number ("r12",
// "12"), and whether ref is a number alone (it then names the run by its number).
func runNumber(ref string) (seq uint64, byNumber bool) {
	num, suffix, hasSuffix := strings.Cut(strings.TrimPrefix(ref, "r"), "-")
	n, err := strconv.ParseUint(num, 10, 64)
	if err != nil || (hasSuffix && suffix == "") {
		return 0, false
	}
	return n, !hasSuffix
}

// RunLogPath is where run r's output goes.
func RunLogPath(r *store.Run, home string) string {
	if r.Log != "" {
		return r.Log
	}
	p, _ := workflow.LogPath(home, r.ID) // "" for an id that names no file: nothing to read
	return p
}
