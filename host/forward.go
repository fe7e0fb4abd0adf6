package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"baton/host/forward"
	"baton/store"
	"baton/workflow"
	"baton/workflow/proc"
)

// Forwarding: a reader hands a write to the writer instead of refusing it. The protocol
// (its files, names, encodings, the reply watch and the recorded outcome) is package
// host/forward; this file is the core's side of it: the requester's wait, and the writer
// term's policy (when to serve, which claims are abandoned, applying a request under the
// term, the sweep by liveness evidence).
//
//   - The writer applies only a file it renamed to its own taken name (forward.Claim). A
//     requester that timed out withdraws it (forward.Withdraw): if that succeeds no writer
//     has it or can ever get it, so it is never applied; if it fails, a writer took it and
//     the answer is on its way.
//   - A writer applies a request through the same Intents as the control channel, and the
//     save that applies it also adds its id and outcome to workflows.json (Doc.Applied):
//     Term.Update wraps the intent's change with forward.Recording, so the two are one
//     document, saved or not together, and no writer in any term applies a request twice.
//   - A failed intent changes nothing; its outcome is recorded by a save of its own
//     before it is answered, so an answered request is always in Applied: a re-claim
//     answers it from there, never by applying it again.
//   - A claimed file stays until its answer is written. A writer that dies holding it
//     leaves <id>.taken-<its claim>; the next writer sees that claimer dead (its instance
//     lock is free, or its process is gone or dying: a kill -9 releases the locks of a
//     process one file at a time, so state.lock may be free before its instance lock),
//     claims the file by the same rename and answers: from Applied if the request was
//     applied, else by applying it. A claim names the term's identity, which a window
//     retires when its term ends, so a claim made by a term that just ended is taken over
//     too.
//
// Deletion (workflow/README.md, "Who may delete what"): the requester removes its reply once read
// (and the claim, should its writer have died before removing it) and its withdrawn file
// once renamed. The writer removes a claim once its answer is durable, the reply at once
// if the requester is dead, and sweeps replies and withdrawn files whose requester is dead
// (its instance lock free, or a file that names no window) and temp files whose creator is
// gone.

// ForwardTimeout bounds how long a requester waits for a writer to take its request.
const ForwardTimeout = forward.Timeout

// maxForwardFile caps a request or reply file read from disk: a control line and the
// envelope. The protocol's cap must stay in step with MaxRequestLine (this fails to
// compile otherwise).
const maxForwardFile = forward.MaxFile

var _ = [1]struct{}{}[maxForwardFile-(MaxRequestLine+16<<10)]

const (
	// forwardSweepEvery paces the writer's sweep of abandoned replies and withdrawn files.
	forwardSweepEvery = 30 * time.Second
	// maxApplying bounds the forwarded requests a writer applies at once.
	maxApplying = 16
)

// forwardable lists the ops a reader may forward: the writes.
var forwardable = map[string]bool{
	"add_workflow": true, "update_workflow": true, "delete_workflow": true, "rename_workflow": true, "set_retention": true,
	"start_run": true, "cancel_run": true,
	"add_schedule": true, "update_schedule": true, "delete_schedule": true,
	"pause_schedule": true, "resume_schedule": true,
}

// forwardRequest is the content of requests/<id>.json: the protocol's envelope around a
// control-channel Request.
type forwardRequest = forward.Request[Request]

// ForwardedError is a write refused by the writer a request was forwarded to: Code is the
// control-channel code, WriterPID the writer. errors.Is matches the code's sentinel
// (workflow.ErrInvalid, ErrNotFound, ErrConflict, ErrReadOnly).
type ForwardedError struct {
	Code      string
	Msg       string
	WriterPID int
}

func (e *ForwardedError) Error() string { return e.Msg }

// Unwrap returns the sentinel of the code, if it has one.
func (e *ForwardedError) Unwrap() error {
	switch e.Code {
	case "invalid":
		return workflow.ErrInvalid
	case "not_found":
		return workflow.ErrNotFound
	case "conflict":
		return workflow.ErrConflict
	case "read_only":
		return ErrReadOnly
	}
	return nil
}

// ---- the requester

// forward hands req to the writer and waits for its answer: the writer's reply plus
// "forwarded_to" (its pid), or its refusal as a *ForwardedError. If no writer takes the
// request within ForwardTimeout (or before ctx ends), the request is withdrawn and the
// error is a conflict saying so; it is then never applied.
func (w *Core) forward(ctx context.Context, req *Request) (map[string]any, error) {
	if w.Role() == RoleClosed {
		return nil, ErrClosed
	}
	id, err := forward.NewID()
	if err != nil {
		return nil, err
	}
	rw, err := w.replyWatch()
	if err != nil {
		return nil, fmt.Errorf("forward to the writer: watch replies: %w", err)
	}
	changed, stop := rw.Await(id) // before the request exists
	defer stop()
	body := forwardRequest{ID: id, Requester: w.Self(), Request: *req}
	body.Request.ID, body.Request.Forward = nil, false
	if err := forward.Submit(w.home, &body); err != nil {
		return nil, err
	}
	t0 := time.Now()
	rep, err := forward.AwaitReply(ctx, changed, w.home, id, decodeObject)
	if rep == nil && err == nil {
		if w.withdraw(id) {
			why := fmt.Sprintf("no writer took the request within %s", time.Since(t0).Round(time.Millisecond))
			if err := context.Cause(ctx); err != nil {
				why = fmt.Sprintf("%v before a writer took the request", err)
			}
			return nil, fmt.Errorf("%w: %s (%s); it was withdrawn and will not be applied", workflow.ErrConflict, why, w.describeWriter())
		}
		// A writer took it before the withdrawal: its answer is on its way, or in the
		// document if that writer applied it and died before replying.
		if rep, err = forward.AwaitReply(ctx, changed, w.home, id, decodeObject); rep == nil && err == nil {
			if rep = w.recordedReply(id); rep != nil {
				forward.Answered(w.home, id)
				return w.resultSeen(rep)
			}
			return nil, fmt.Errorf("%w: the writer (%s) took the request but did not answer within %s; it may still be applied",
				workflow.ErrConflict, w.describeWriter(), time.Since(t0).Round(time.Millisecond))
		}
	}
	if err != nil {
		return nil, err
	}
	forward.Answered(w.home, id)
	return w.resultSeen(rep)
}

// forwardResult turns the writer's outcome into a control-channel reply or error.
func forwardResult(rep *forward.Reply) (map[string]any, error) {
	m, refused, err := rep.Result()
	if refused != nil {
		return nil, &ForwardedError{Code: refused.Code, Msg: refused.Msg, WriterPID: rep.WriterPID}
	}
	return m, err
}

// resultSeen is rep's result, once this window's view holds what the writer saved before
// it answered (the generation the reply names): the requester reads its own forwarded
// change at once, and does not wait for its watch to bring it (the writer may even have
// died since).
func (w *Core) resultSeen(rep *forward.Reply) (map[string]any, error) {
	m, err := forwardResult(rep)
	if g := intOf(m["generation"]); err == nil && g > 0 {
		if d := w.Snapshot(); d != nil && d.Generation >= uint64(g) {
			return m, nil // the watch brought it already
		}
		if d, changed, rerr := w.st.Refresh(); changed || rerr != nil {
			w.onFileChange(d, rerr) // as the watch would have: published, or the problem said
		}
	}
	return m, err
}

// recordedReply is the answer the document on disk recorded for request id (applied
// in the same save as the request itself), or nil: what a requester whose writer died
// between that save and its reply still learns.
func (w *Core) recordedReply(id string) *forward.Reply {
	d, changed, err := w.st.Refresh()
	if err != nil || d == nil {
		return nil
	}
	if changed {
		w.publish(d)
	}
	i := forward.AppliedIndex(d, id)
	if i < 0 {
		return nil
	}
	pid := 0
	if d.Writer != nil {
		pid = d.Writer.PID
	}
	return &forward.Reply{ID: id, Requester: w.Self(), WriterPID: pid, Outcome: d.Applied[i].Reply}
}

// withdraw takes back request id unless a writer took it first, and reports whether it did.
func (w *Core) withdraw(id string) bool {
	if err := forward.Withdraw(w.home, id); err != nil {
		w.opts.Logf("withdraw forwarded request %s: %v (a writer took it)", id, err)
		return false
	}
	return true
}

func (w *Core) describeWriter() string {
	if pid := w.writerPID(); pid > 0 {
		return fmt.Sprintf("writer pid %d", pid)
	}
	return "no window writes"
}

// replyWatch returns the window's reply watch (forward.Watcher), starting it at the
// first call; it ends with the window.
func (w *Core) replyWatch() (*forward.Watcher, error) {
	w.replyOnce.Do(func() {
		w.replies, w.replyErr = forward.Watch(w.ctx, w.home)
	})
	return w.replies, w.replyErr
}

// ---- the writer

// serveForwarded answers forwarded requests while this window writes: at each takeover,
// when the watch of requests/ sees a new one (kick), and every forwardSweepEvery, when it
// also sweeps abandoned files. It runs until the window closes.
func (w *Core) serveForwarded(kick <-chan struct{}) {
	sub := w.Subscribe()
	defer w.Unsubscribe(sub)
	tick := time.NewTicker(forwardSweepEvery)
	defer tick.Stop()
	var swept *Term
	var sweptAt time.Time
	pass := func() {
		t, done := w.holdTerm()
		if t == nil {
			return
		}
		defer done()
		if err := w.checkHome(); err != nil { // an unsafe home: nothing is applied
			w.endTerm(t, err)
			return
		}
		w.answerForwarded(t)
		if swept != t || time.Since(sweptAt) >= forwardSweepEvery {
			w.sweepForwarded(t)
			swept, sweptAt = t, time.Now()
		}
	}
	// A writer role reported before this goroutine subscribed is not missed: look now.
	pass()
	for {
		select {
		case <-w.ctx.Done():
			return
		case <-kick:
		case <-tick.C:
		case e, ok := <-sub.C:
			if !ok {
				return
			}
			if e.Kind != EventRole || e.Role != RoleWriter {
				continue
			}
		}
		pass()
	}
}

// holdTerm returns the current writer term and counts the caller among the term's
// goroutines that Close waits for (call done when finished), or nil.
func (w *Core) holdTerm() (t *Term, done func()) {
	w.mu.Lock()
	defer w.mu.Unlock()
	t = w.writingLocked()
	if t == nil {
		return nil, nil
	}
	w.termWG.Add(1) // under w.mu, where Close's move clears the term: never after its Wait
	return t, w.termWG.Done
}

// answerForwarded claims every request no live writer holds (new ones, and those claimed
// by a term that ended) and answers each, at most maxApplying at a time.
func (w *Core) answerForwarded(t *Term) {
	names, err := forward.Pending(w.home)
	if err != nil {
		w.opts.Logf("forwarded requests: %v", err)
		return
	}
	live := map[string]bool{} // the ids a request file names: their Applied entries stay
	var todo []forward.Name
	for _, n := range names {
		live[n.ID] = true
		if n.Suffix == ".json" || n.Claim == claimOf(t) || (n.Claim != "" && w.claimGone(t, n.Claim)) {
			if w.trustedRequest(forward.RequestPath(w.home, n.ID, n.Suffix)) {
				todo = append(todo, n)
			}
		}
	}
	var wg sync.WaitGroup
	sem := make(chan struct{}, maxApplying)
	for _, n := range todo {
		mine, ok := forward.Claim(w.home, n, claimOf(t))
		if !ok {
			continue // withdrawn, or another writer took it
		}
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			w.answerClaimed(t, mine, n.ID, live)
		}()
	}
	wg.Wait()
}

// claimOf names writer term t in the requests it claims.
func claimOf(t *Term) string { return forward.ClaimOf(t.self.Instance, procTag(t.self)) }

// claimGone reports whether the term that made claim is proven over: its identity
// retired or its window gone (the instance lock is free), or its process gone or dying.
func (w *Core) claimGone(t *Term, claim string) bool {
	instance, tag := forward.SplitClaim(claim)
	if proc.TagGone(tag) {
		return true
	}
	alive, _ := w.evidence().OwnerAlive(t.self, store.Owner{Instance: instance})
	return !alive
}

// answerClaimed answers the request claimed at path: it applies it (or finds it applied),
// writes the reply and lets the claim go. A request this term could not apply because
// the term ended stays claimed for the next writer.
func (w *Core) answerClaimed(t *Term, path, id string, live map[string]bool) {
	data, err := forward.ReadCapped(path)
	if err != nil {
		w.opts.Logf("forwarded request %s: %v", id, err)
		return
	}
	fr, err := decodeForwardRequest(id, data)
	var outcome json.RawMessage
	if err != nil {
		outcome = forward.Refused("invalid", err) // never applied: answered, not recorded
	} else if outcome, err = w.applyForwarded(t, fr, live); err != nil {
		w.opts.Logf("forwarded request %s: %v (left for the next writer)", id, err)
		return
	}
	rep := forward.Reply{ID: id, Requester: fr.Requester, WriterPID: t.self.PID, Outcome: outcome}
	if err := forward.WriteReply(w.home, &rep); err != nil {
		w.opts.Logf("answer forwarded request %s: %v", id, err)
		return
	}
	store.Failpoint("forward.after-reply")
	_ = os.Remove(path) // answered durably: the claim is no longer needed
	if alive, _ := w.evidence().OwnerAlive(t.self, fr.Requester); !alive {
		_ = os.Remove(forward.ReplyPath(w.home, id)) // nobody will read it
	}
}

// applyForwarded applies fr through the control channel's dispatch on this writer term,
// its id recorded in the same save, and returns its outcome. A request found applied is
// answered from the document. An error means the term ended before it was applied.
func (w *Core) applyForwarded(t *Term, fr *forwardRequest, live map[string]bool) (json.RawMessage, error) {
	rec := &forward.Record{ID: fr.ID, Live: live, At: w.opts.Now().UTC()}
	reply, err := dispatch(forward.WithRecord(t.ctx, rec), w, &fr.Request)
	switch {
	case err == nil:
		store.Failpoint("forward.after-apply")
		b, err := forward.OK(reply)
		if err != nil {
			return forward.Refused("internal", err), nil
		}
		return b, nil
	case errors.Is(err, forward.ErrAlreadyApplied):
		return w.appliedOutcome(fr.ID), nil
	case ErrorCode(err) == "read_only":
		return nil, err
	}
	// Nothing was applied: the refusal is recorded before it is answered, so that a
	// writer that finds this request again answers the same, not applies it.
	out := forward.Refused(ErrorCode(err), err)
	_, err = t.Update(t.ctx, func(d *store.Doc) error {
		if forward.AppliedIndex(d, fr.ID) >= 0 {
			return forward.ErrAlreadyApplied
		}
		rec.Add(d, out)
		return nil
	})
	switch {
	case errors.Is(err, forward.ErrAlreadyApplied):
		return w.appliedOutcome(fr.ID), nil
	case err != nil:
		return nil, err
	}
	return out, nil
}

// appliedOutcome returns the outcome the document recorded for request id.
func (w *Core) appliedOutcome(id string) json.RawMessage {
	d := w.Snapshot() // the store's newest: the commit that found the id refreshed it
	if i := forward.AppliedIndex(d, id); i >= 0 {
		return d.Applied[i].Reply
	}
	return forward.Refused("conflict", fmt.Errorf("request %s was applied; its reply is no longer kept", id))
}

// sweepForwarded removes the forwarding files proven abandoned: replies and withdrawn
// requests whose requester is dead (its instance lock free, or a file that names no
// window), and temp files whose creator is gone.
func (w *Core) sweepForwarded(t *Term) {
	forward.Sweep(w.home, proc.TagGone, func(requester store.Owner) bool {
		alive, _ := w.evidence().OwnerAlive(t.self, requester)
		return alive
	})
}

// decodeForwardRequest decodes the request file of id, which is untrusted input: the
// protocol's envelope (forward.DecodeRequest) around a control-channel request decoded as
// strictly as a control line, which must be a write op. The request returned is never nil
// (the requester is kept when known); the error says what is wrong.
func decodeForwardRequest(id string, data []byte) (*forwardRequest, error) {
	fr, err := forward.DecodeRequest[Request](id, data, decodeObject)
	switch {
	case err != nil:
		return fr, err
	case !forwardable[fr.Request.Op]:
		return fr, fmt.Errorf("op %q cannot be forwarded (only writes are)", fr.Request.Op)
	}
	fr.Request.ID, fr.Request.Forward = nil, false // the writer applies it, never forwards it
	return fr, nil
}
