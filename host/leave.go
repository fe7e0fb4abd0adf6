package host

import (
	"errors"
	"os"
	"path/filepath"
	"time"

	"baton/store"
)

// Leaving a term. A window stops being the writer (or stops becoming it) in one way only:
// leave, in one order, whatever the reason. What differs between the reasons is a
// parameter (an exit), never the order:
//
//  1. vacate: under the window's lock, the role moves (to reader, or closed), the term is
//     cancelled with its cause and forgotten, the problem is set, and state.lock stops
//     counting as held. From here no goroutine of the term can commit: every commit
//     checks the term (Term.Update) and the lock (checkLock).
//  2. drain (closing only): wait for the goroutines of the window's terms.
//  3. end the store's epoch: the store refuses to save and its checkpoint timer stops.
//  4. keep the last good document (an unreadable file only).
//  5. the runs: stopped (killed; the next writer reaps them), detached (left going,
//     unfollowed, for the window handed over to to adopt), or none (the takeover had not
//     started any, or Close stopped and recorded them while it still wrote).
//  6. the identity: retired (a new one, the old instance lock let go) when runs were
//     left to another window, so its takeover finds their owner gone; closed when the
//     window closes. Always before state.lock goes.
//  7. release state.lock (unless kept: an unreadable file, retried when it changes).
//  8. emit the role event: subscribers learn of it only once the lock is gone.
//  9. then: wait for state.lock again (now, or a second later after a failed takeover),
//     give way to the window handed over to, keep the lock, or let everything go (closed).
//
// The exits, by who calls them: a lost lock, fencing, an unreadable file or an unsafe home
// (endTerm: stop, retire, wait); a hand-over (Term.Resign: detach, retire, give way); a
// failed takeover (failTakeover: none, retry, or keep the lock for an unreadable file); a
// takeover that finds the home handed over to another live window (exitYield: none,
// give way); Close (none, close).

// runsAtExit is what leaving a term does to the runs the term follows.
type runsAtExit int

const (
	runsNone   runsAtExit = iota // no runs to end: none started, or Close recorded them
	runsStop                     // kill them: the next writer reaps their runs
	runsDetach                   // leave them going, unfollowed, for the next writer to adopt
)

// thenAtExit is what the window does once it left the term.
type thenAtExit int

const (
	thenWait    thenAtExit = iota // wait for state.lock again, now
	thenRetry                     // wait for state.lock again a second later
	thenGiveWay                   // wait until the heir took over or is gone, then for the lock
	thenKeep                      // keep state.lock: the takeover is retried when the file changes
	thenClose                     // let everything go: the window closed
)

// exit says how a term ends: the variants of leave.
type exit struct {
	to         Role        // RoleReader, or RoleClosed
	cause      error       // why: the ended term's Err
	setProblem bool        // the window's problem becomes problem (else it stays as it is)
	problem    error       // what the window says is wrong now (nil: nothing)
	keepGood   bool        // the file turned unreadable: keep the last good document
	runs       runsAtExit  // what happens to the term's runs
	stopWhy    string      // runsStop: what the stopped runs record
	retire     bool        // runs go on under another window: retire the identity
	then       thenAtExit  // what the window does next
	heir       store.Owner // thenGiveWay: the window handed over to
}

// exitLost is the exit of a writer that can no longer write: fenced, its lock lost or
// replaced, the file unreadable, the home unsafe.
func exitLost(reason error) exit {
	return exit{to: RoleReader, cause: reason, setProblem: true, problem: reason,
		keepGood: errors.Is(reason, store.ErrUnreadable), runs: runsStop,
		stopWhy: "this window stopped being the writer: " + reason.Error(), retire: true, then: thenWait}
}

// exitHandOver is the exit of a writer that handed over to heir.
func exitHandOver(heir store.Owner) exit {
	return exit{to: RoleReader, cause: ErrHandedOver, setProblem: true, runs: runsDetach,
		retire: true, then: thenGiveWay, heir: heir}
}

// exitFailedTakeover is the exit of a takeover that failed with err: the lock is kept only
// for an unreadable file.
func exitFailedTakeover(err error) exit {
	e := exit{to: RoleReader, cause: err, setProblem: true, problem: err, then: thenRetry}
	if errors.Is(err, store.ErrUnreadable) {
		e.then = thenKeep
	}
	return e
}

// exitYield is the exit of a takeover that found the home handed over to heir, alive.
func exitYield(heir store.Owner) exit {
	return exit{to: RoleReader, cause: ErrBusy, then: thenGiveWay, heir: heir}
}

// exitClose is the exit of Close.
func exitClose() exit { return exit{to: RoleClosed, cause: ErrClosed, then: thenClose} }

// exitSteps are the steps of leave. The window is their implementation (windowExit); the
// order test drives leave through a recorder.
type exitSteps interface {
	// vacate takes step 1 for term t (at Close: whatever term there is). It
	// reports false, and nothing changed, when the window is not in t's term any more
	// (another exit came first); release says whether step 7 lets the lock go.
	vacate(t *Term, e exit) (ok, release bool)
	drain()
	endEpoch()
	keepLastGood()
	stopRuns(t *Term, why string)
	detachRuns(t *Term)
	retire()
	closeIdentity()
	release(closing bool) // the handle of the term vacate forgot
	emit(to Role)
	waitForLock(after time.Duration)
	giveWay(heir store.Owner)
	closeAll()
}

// leave ends term t (at Close: whatever term there is, passed nil) as e says, in the one order above. It
// reports whether it did: false when another exit ended the term first.
func leave(x exitSteps, t *Term, e exit) bool {
	ok, release := x.vacate(t, e)
	if !ok {
		return false
	}
	if e.then == thenClose {
		x.drain()
	}
	x.endEpoch()
	if e.keepGood {
		x.keepLastGood()
	}
	switch e.runs {
	case runsStop:
		x.stopRuns(t, e.stopWhy)
	case runsDetach:
		x.detachRuns(t)
	}
	switch {
	case e.then == thenClose:
		x.closeIdentity()
	case e.retire:
		x.retire()
	}
	if release {
		x.release(e.then == thenClose)
	}
	x.emit(e.to)
	switch e.then {
	case thenWait:
		x.waitForLock(0)
	case thenRetry:
		x.waitForLock(time.Second)
	case thenGiveWay:
		x.giveWay(e.heir)
	case thenClose:
		x.closeAll()
	}
	return true
}

// leave ends term t of w as e says (see leave above).
func (w *Core) leave(t *Term, e exit) bool { return leave(&windowExit{w: w}, t, e) }

// windowExit is the window as the steps of leave.
type windowExit struct {
	w    *Core
	lock store.LockHold // the lock hold of the term vacated, for release
}

func (x *windowExit) vacate(t *Term, e exit) (ok, release bool) {
	w := x.w
	var guard func() bool
	if e.to != RoleClosed { // closing ends whatever term there is
		guard = func() bool { return w.term == t }
	}
	ok, _ = w.move(e.to, guard, func() { // its role event goes out at step 8
		if e.setProblem {
			w.problem = e.problem
		}
		cur := w.term
		switch {
		case cur == nil:
		case e.then == thenKeep: // the lock stays won, the term waits for a readable file
			cur.phase = phaseHeld
		default:
			cur.cancel(e.cause)
			w.term, x.lock = nil, cur.lock
			release = true // a waiter, if any, has a handle of its own and closes what it wins
		}
	})
	return ok, release
}

func (x *windowExit) drain()        { x.w.termWG.Wait() }
func (x *windowExit) endEpoch()     { x.w.st.EndEpoch() }
func (x *windowExit) keepLastGood() { _ = x.w.st.SaveLastGood() }

func (x *windowExit) stopRuns(t *Term, why string) {
	x.w.opts.Logf("stopped writing: %v", t.Err())
	// No executor yet: the term ended before its takeover started one, so it started no
	// run (runs start only once it writes, step 7, which an ended term never reaches).
	if eng := t.executor(); eng != nil {
		eng.Stop(why)
	}
}

func (x *windowExit) detachRuns(t *Term) {
	if eng := t.executor(); eng != nil {
		eng.Detach()
	}
	handOverHook(x.w) // a test hook (hooks_on.go), just before the identity retires
}

func (x *windowExit) retire() { x.w.retireIdentity() }

// closeIdentity ends the window's identity: its liveness lock goes, so the next writer's
// takeover finds it gone and adopts the runs it leaves going.
func (x *windowExit) closeIdentity() {
	w := x.w
	w.mu.Lock()
	inst, id := w.inst, w.self.Instance
	w.mu.Unlock()
	if w.readOnly != "" {
		_ = os.Remove(filepath.Join(w.instDir, id+".lock")) // a private file nobody else looks at
	}
	if err := inst.Close(); err != nil {
		w.closeErr = err
	}
}

func (x *windowExit) release(closing bool) {
	if closing {
		_ = x.lock.Close()
		return
	}
	_ = x.lock.Release()
}

func (x *windowExit) emit(to Role) { x.w.emitRoleEvent(to) }

func (x *windowExit) waitForLock(after time.Duration) {
	if after > 0 {
		time.AfterFunc(after, x.w.waitForLock)
		return
	}
	x.w.waitForLock()
}

func (x *windowExit) giveWay(heir store.Owner) { x.w.giveWay(heir) }

func (x *windowExit) closeAll() {
	// No more audit retries: a reader appends too (an unsafe entry, a refused request),
	// and a retry after Close would write into a home this window no longer has open.
	if err := x.w.audit.Close(); err != nil {
		x.w.opts.Logf("%v", err)
	}
	x.w.stop()
	// The store's watch may be reloading, and the lock holder keeps the last good document
	// from it (workflows.prev.json): wait for it, as for everything else below.
	x.w.st.WaitWatches()
	// A home check that was ending a term when Close came may still be retiring this
	// window's identity: nothing of this window touches the home once Close returns.
	x.w.bgWG.Wait()
	x.w.hub.finishAll()
}
