package host

import (
	"context"
	"errors"
	"sync/atomic"

	"baton/host/forward"
	"baton/store"
	"baton/workflow"
)

// Term is one writer term of a window: it begins when the window wins state.lock and
// ends when the window leaves it (leave): state.lock lost or replaced, the store fenced,
// the file unreadable, the home unsafe, a hand-over (Resign), a failed takeover, or the
// window closing. The term is the one truth of "am I the writer": it owns the lock it won
// (held), the store's epoch (begun by BecomeWriter, ended by leave), the executor and
// scheduler, the context, and the one road to a write, Update. The window's role is read
// from its term: none, reader; a term under BecomeWriter, promoting; a term whose takeover
// finished, writer; a term blocked by an unreadable file (the lock kept, the takeover
// retried when the file changes), reader. Like etcd's concurrency.Session, Done closes
// when the term ends and Err says why; work that depends on being the writer derives
// from Context and stops by itself.
//
// A Term of an ended term stays safe to call: Update refuses with a *ReadOnlyError.
type Term struct {
	st     *store.Store // the window's store: the term commits through it
	log    *store.Audit // the window's audit log: writer-only records go through audit
	home   string
	opts   Options        // the window's clock and logger
	core   termCore       // what the term calls in its window
	self   store.Owner    // the window's identity for the whole term
	lock   store.LockHold // the hold that won the writer lock: let go (or closed) when the term is left
	phase  termPhase      // guarded by w.mu; changes only through Core.move
	epoch  uint64         // set by BecomeWriter before the term writes
	ctx    context.Context
	cancel context.CancelCauseFunc
	engine atomic.Pointer[workflow.Engine] // set by BecomeWriter (step 6); see executor
	wake   chan struct{}                   // wakes the term's scheduler (one slot)
}

// termCore is what a term calls in the window that holds it (a *Core), instead of a
// pointer back to it: publishing a saved document, ending the term when a save says it
// can no longer write, the lock check a commit runs, leaving the term (Resign), the audit
// of a log that was refused, the epoch on disk, and running a goroutine that Close waits
// for.
type termCore interface {
	publish(doc *store.Doc)
	endTerm(t *Term, reason error)
	checkLock() error
	leave(t *Term, e exit) bool
	auditRefusedLog(r *store.Run)
	epoch() uint64
	goTerm(fn func())
}

// termPhase is where a term is between winning state.lock and writing.
type termPhase int

const (
	phaseHeld      termPhase = iota // the lock won; no takeover under way (not yet, or the file is unreadable)
	phasePromoting                  // BecomeWriter is under way
	phaseWriting                    // BecomeWriter finished: the writer
)

// newTerm returns the term of window w whose hold lock won the writer lock; it runs
// nothing.
func newTerm(w *Core, self store.Owner, lock store.LockHold) *Term {
	ctx, cancel := context.WithCancelCause(w.ctx)
	return &Term{st: w.st, log: w.audit, home: w.home, opts: w.opts, core: w,
		self: self, lock: lock, ctx: ctx, cancel: cancel, wake: make(chan struct{}, 1)}
}

// startEngine makes the term's executor; it starts nothing yet.
func (t *Term) startEngine() {
	self, home, now := t.self, t.home, t.opts.Now
	eng := workflow.NewEngine(t.ctx, t.updater(), self, home, now)
	eng.EnvFor = func(d *store.Doc, r *store.Run) map[string]string { return workflow.ScheduleEnv(home, d, r) }
	eng.OnFinish = func(d *store.Doc, r *store.Run, out workflow.RunOutput) {
		if r.Schedule != "" {
			workflow.ScheduleFinished(d, r, out, now(), self)
		}
		t.core.auditRefusedLog(r)
	}
	t.engine.Store(eng) // read by a leave of the term at any time (executor)
}

// executor returns the term's executor, or nil before its takeover made one (step 6): a
// term may end (its etcd lease lost) while its takeover still runs. Safe from any
// goroutine.
func (t *Term) executor() *workflow.Engine { return t.engine.Load() }

// Context returns the term's context: it is cancelled when the term ends.
func (t *Term) Context() context.Context { return t.ctx }

// Done returns a channel that is closed when the term ends. It never blocks.
func (t *Term) Done() <-chan struct{} { return t.ctx.Done() }

// Err returns why the term ended (ErrClosed, ErrLockLost, store.ErrFenced, ...), or nil
// while it lasts.
func (t *Term) Err() error {
	if t.ctx.Err() == nil {
		return nil
	}
	return context.Cause(t.ctx)
}

// Epoch returns the writer epoch of the term.
func (t *Term) Epoch() uint64 { return t.epoch }

// Owner returns the window's identity for the term: the owner its runs record.
func (t *Term) Owner() store.Owner { return t.self }

// Update is the one road to a write. fn runs on a private copy of the newest document
// (the store refreshes from disk first) and the result is saved durably, published and
// returned, only while the term lasts: the check is made inside the store's commit, so a
// goroutine of an ended term can never write in a later one, however it was scheduled.
// It blocks for the save. A save refused because the term can no longer write (the lock
// lost or replaced, fenced, an unreadable file) ends the term. ctx ending before the
// commit began makes Update return its error without writing.
func (t *Term) Update(ctx context.Context, fn func(*store.Doc) error) (*store.Doc, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if t.ctx.Err() != nil {
		return nil, t.endedError()
	}
	fn = forward.Recording(ctx, fn, writeReply) // a forwarded request is recorded in the save that applies it
	doc, err := t.commit(fn)
	if err != nil {
		if d, ok := ackUnsaved(t, fn, err); ok { // a test hook (hooks_on.go): never in Baton
			return d, nil
		}
		if isFatalToWriter(err) {
			t.core.goTerm(func() { t.core.endTerm(t, err) })
		}
		return nil, err
	}
	t.core.publish(doc)
	return doc, nil
}

// commit is the term's commit, which every change of the document goes through (Update,
// and BecomeWriter's save): fn runs and its result is saved only while the term lasts,
// checked inside the store's commit, where the store also runs the lock check (checkLock,
// which a checkpoint runs too). A term that ended gets a *ReadOnlyError.
func (t *Term) commit(fn func(*store.Doc) error) (*store.Doc, error) {
	doc, err := t.st.Update(func(d *store.Doc) error {
		if err := t.writable(); err != nil { // no window locks here: this runs under the store's
			return err
		}
		return fn(d)
	})
	if errors.Is(err, store.ErrNotWriter) { // the term ended between the check and the commit
		return nil, t.endedError()
	}
	return doc, err
}

// writable refuses, once the term ended, what only the writer may write: like bbolt's
// ErrTxNotWritable, a *ReadOnlyError. The writer-only files outside the document (the
// previous document, the archive) are written through the term's methods, which ask it
// first; the document itself asks it inside the store's commit.
func (t *Term) writable() error {
	if t.ctx.Err() != nil {
		return t.endedError()
	}
	return nil
}

// commitCheck is the check a commit runs, for a write outside the store's commit (the
// archive's compaction by retention): the term lasts and its lock is still the file at
// state.lock's path.
func (t *Term) commitCheck() error {
	if err := t.writable(); err != nil {
		return err
	}
	return t.core.checkLock()
}

// keepPrevious writes the document as workflows.prev.json (store.KeepPrevious), only
// while the term lasts.
func (t *Term) keepPrevious() error {
	if err := t.writable(); err != nil {
		return err
	}
	return t.st.KeepPrevious()
}

// appendArchive appends runs to the run archive (store.Archive.Append), only while the
// term lasts.
func (t *Term) appendArchive(runs []store.Run) error {
	if err := t.writable(); err != nil {
		return err
	}
	return t.st.Archive().Append(runs)
}

// audit appends rec, a record only a writer makes (its takeover and reaps, a change it
// saved, a scheduling decision, a retention pass, a clean, a hand-over, its shutdown), to
// the audit log. It is the term's so that a reader, which has none, cannot reach it. It
// does not refuse once the term has ended: what the term did is recorded even when the
// term ends right after.
func (t *Term) audit(rec store.Record) error { return t.log.Append(rec) }

// note appends rec, a person's change that the term just saved, to the audit log (the
// Activity tab lists it). The change stands whatever happens to its record: a failed
// append is logged, never returned.
func (t *Term) note(rec store.Record) {
	if err := t.audit(rec); err != nil {
		t.opts.Logf("a saved change is not in the audit log yet: %v", err)
	}
}

// updater is Update for the executor and the scheduler of the term.
func (t *Term) updater() workflow.Updater {
	return func(fn func(*store.Doc) error) (*store.Doc, error) { return t.Update(t.ctx, fn) }
}

func (t *Term) endedError() error {
	return &ReadOnlyError{Role: RoleReader, Problem: "this window's writer term ended"}
}

// kick starts the queued runs the lanes allow.
func (t *Term) kick() {
	if _, err := t.executor().Kick(); err != nil && !errors.Is(err, ErrReadOnly) {
		t.opts.Logf("start queued runs: %v", err)
	}
}

// wakeScheduler makes the term's scheduler look again now.
func (t *Term) wakeScheduler() {
	select {
	case t.wake <- struct{}{}:
	default:
	}
}

// Resign hands the writer role over to window heir, as etcd's Election.Resign lets another
// candidate win: the hand-over is saved (after whatever was being saved) and audited, then
// the term ends (leave: its runs go on unfollowed for heir to adopt, the identity that owns
// them retires, state.lock goes) and the window reads on, giving way to heir while it
// lives. It returns why it did not hand over: the save failed, or the term had ended.
func (t *Term) Resign(ctx context.Context, heir store.Owner) error {
	var running []string
	_, err := t.Update(ctx, func(d *store.Doc) error {
		h := heir
		d.HandoverTo = &h
		running = running[:0]
		for i := range d.Runs {
			if d.Runs[i].Status == store.StatusRunning {
				running = append(running, d.Runs[i].ID)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	_ = t.audit(store.Handover{Epoch: t.epoch, From: t.self, To: heir, Runs: running})
	if !t.core.leave(t, exitHandOver(heir)) {
		return t.endedError()
	}
	t.opts.Logf("handed over to window pid %d", heir.PID)
	return nil
}

// farewell is what a writer does while it still writes, when its window closes: it stops
// its runs and records them cancelled, records that no window writes (so the next window
// becomes the writer rather than takes over from one that did not die), saves
// workflows.json whole, keeps it as the previous document and says so in the audit log.
// Close then leaves the term.
func (t *Term) farewell() {
	t.executor().Stop("window closed while the run was going")
	_, _ = t.Update(context.Background(), func(d *store.Doc) error {
		if d.Writer != nil && d.Writer.Instance == t.Owner().Instance {
			d.Writer = nil
		}
		return nil
	})
	_ = t.st.Checkpoint() // workflows.json alone is complete when no window writes
	_ = t.keepPrevious()
	_ = t.audit(store.Shutdown{Epoch: t.core.epoch(), Instance: t.self.Instance})
	if err := t.log.Close(); err != nil { // no more retries: this window writes no more
		t.opts.Logf("%v", err)
	}
}
