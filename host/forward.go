package host

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"

	"baton/store"
	"baton/workflow"
	"baton/workflow/proc"
)

// Forwarding: a reader hands a write to the writer instead of refusing it.
//
// The files, all in the home folder, all written atomically (temp, fsync, rename, 0600):
//
//	requests/<id>.json              a request: its id, the requester window, the op
//	requests/<id>.taken-<claim>     the same file, claimed by a writer term: its instance
//	                                and process tag (<instance>.<pid>.<start>.<boot>)
//	requests/<id>.withdrawn         the same file, withdrawn by its requester
//	replies/<id>.json               the answer: the requester, the writer's pid, the outcome
//
// The id is 128 random bits. Every move of a request is a rename(2) of one name, which is
// atomic: of two processes renaming requests/<id>.json away, exactly one succeeds. So a
// request is either claimed by one writer or withdrawn by its requester, never both:
//
//   - The writer applies only a file it renamed to its own taken name. A requester that
//     timed out renames requests/<id>.json to <id>.withdrawn: if that succeeds no writer
//     has it or can ever get it (writers look only at <id>.json and at taken names), so it
//     is never applied; if it fails, a writer took it and the answer is on its way.
//   - A writer applies a request through the same Intents as the control channel, and the
//     save that applies it also adds its id and outcome to workflows.json (Doc.Applied):
//     recordForwarded wraps the intent's change, so the two are one document, saved or
//     not together. The wrapper looks for the id first, in the newest document under the
//     store's commit, so no writer in any term applies a request twice.
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
// gone. An Applied entry goes once no request file names its id (none can again: ids are
// never reused, and only the writer renames a claimed file) and it is older than
// appliedKeep, or beyond the newest appliedMaxIdle such entries.

// ForwardTimeout bounds how long a requester waits for a writer to take its request.
const ForwardTimeout = 10 * time.Second

const (
	requestsDir = "requests"
	repliesDir  = "replies"
	// maxForwardFile caps a request or reply file read from disk: a control line and
	// the envelope.
	maxForwardFile = MaxRequestLine + 16<<10
	// appliedKeep and appliedMaxIdle bound Doc.Applied: entries that no request file names
	// are kept this long, and at most this many.
	appliedKeep    = 10 * time.Minute
	appliedMaxIdle = 256
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

// forwardRequest is the content of requests/<id>.json.
type forwardRequest struct {
	ID        string      `json:"id"`
	Requester store.Owner `json:"requester"`
	Request   Request     `json:"request"`
}

// forwardReply is the content of replies/<id>.json. Outcome is the writer's reply
// without id: {"ok": true, fields...} or {"ok": false, "code": ..., "error": ...}.
type forwardReply struct {
	ID        string          `json:"id"`
	Requester store.Owner     `json:"requester"`
	WriterPID int             `json:"writer_pid"`
	Outcome   json.RawMessage `json:"outcome"`
}

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

// errAlreadyApplied refuses to apply a forwarded request whose id the document holds.
var errAlreadyApplied = errors.New("forwarded request already applied")

// ---- the requester

// forward hands req to the writer and waits for its answer: the writer's reply plus
// "forwarded_to" (its pid), or its refusal as a *ForwardedError. If no writer takes the
// request within ForwardTimeout (or before ctx ends), the request is withdrawn and the
// error is a conflict saying so; it is then never applied.
func (w *Core) forward(ctx context.Context, req *Request) (map[string]any, error) {
	if w.Role() == RoleClosed {
		return nil, ErrClosed
	}
	id, err := newRequestID()
	if err != nil {
		return nil, err
	}
	rw, err := w.replyWatch()
	if err != nil {
		return nil, fmt.Errorf("forward to the writer: watch replies: %w", err)
	}
	changed, stop := rw.await(id) // before the request exists
	defer stop()
	body := forwardRequest{ID: id, Requester: w.Self(), Request: *req}
	body.Request.ID, body.Request.Forward = nil, false
	b, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	if len(b) > maxForwardFile {
		return nil, fmt.Errorf("%w: request of %d bytes is too large to forward", workflow.ErrInvalid, len(b))
	}
	// Atomic, not durable: a machine crash ends the requester too, and a request torn by
	// one is answered invalid, never applied (its applying save is the durable record).
	if err := store.WriteFileAtomicVolatile(requestPath(w.home, id, ".json"), b); err != nil {
		return nil, fmt.Errorf("forward to the writer: %w", err)
	}
	t0 := time.Now()
	rep, err := awaitReply(ctx, changed, w.home, id)
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
		if rep, err = awaitReply(ctx, changed, w.home, id); rep == nil && err == nil {
			if rep = w.recordedReply(id); rep != nil {
				w.answered(id)
				return w.resultSeen(rep)
			}
			return nil, fmt.Errorf("%w: the writer (%s) took the request but did not answer within %s; it may still be applied",
				workflow.ErrConflict, w.describeWriter(), time.Since(t0).Round(time.Millisecond))
		}
	}
	if err != nil {
		return nil, err
	}
	w.answered(id)
	return w.resultSeen(rep)
}

// resultSeen is rep's result, once this window's view holds what the writer saved before
// it answered (the generation the reply names): the requester reads its own forwarded
// change at once, and does not wait for its watch to bring it (the writer may even have
// died since).
func (w *Core) resultSeen(rep *forwardReply) (map[string]any, error) {
	m, err := rep.result()
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
func (w *Core) recordedReply(id string) *forwardReply {
	d, changed, err := w.st.Refresh()
	if err != nil || d == nil {
		return nil
	}
	if changed {
		w.publish(d)
	}
	i := appliedIndex(d, id)
	if i < 0 {
		return nil
	}
	pid := 0
	if d.Writer != nil {
		pid = d.Writer.PID
	}
	return &forwardReply{ID: id, Requester: w.Self(), WriterPID: pid, Outcome: d.Applied[i].Reply}
}

// answered removes the files of request id once its reply is read: the reply (this
// window was its only reader) and the claim, if its writer died before removing it (else
// the next writer would answer again, to nobody). The answer is in workflows.json.
func (w *Core) answered(id string) {
	_ = os.Remove(replyPath(w.home, id))
	claims, _ := filepath.Glob(requestPath(w.home, id, ".taken-*"))
	for _, p := range claims {
		_ = os.Remove(p)
	}
}

// withdraw takes back request id unless a writer took it first, and reports whether it did.
func (w *Core) withdraw(id string) bool {
	withdrawn := requestPath(w.home, id, ".withdrawn")
	if err := os.Rename(requestPath(w.home, id, ".json"), withdrawn); err != nil {
		w.opts.Logf("withdraw forwarded request %s: %v (a writer took it)", id, err)
		return false
	}
	_ = os.Remove(withdrawn)
	return true
}

func (w *Core) describeWriter() string {
	if pid := w.writerPID(); pid > 0 {
		return fmt.Sprintf("writer pid %d", pid)
	}
	return "no window writes"
}

// awaitReply waits for replies/<id>.json for ForwardTimeout at most, less if ctx ends
// sooner. It returns nil, nil when the time is up.
func awaitReply(ctx context.Context, changed <-chan struct{}, home, id string) (*forwardReply, error) {
	timer := time.NewTimer(ForwardTimeout)
	defer timer.Stop()
	for {
		rep, err := readReply(home, id)
		if err == nil || !errors.Is(err, os.ErrNotExist) {
			return rep, err
		}
		select { // its reply appeared, or the watch lost events: look again
		case <-changed:
		case <-timer.C:
			return nil, nil
		case <-ctx.Done():
			return nil, nil
		}
	}
}

// replyWatcher is a window's one watch of replies/, shared by its waiting requests: each
// registers the id it waits for and is woken when a file of that name appears (all are
// woken when the watch may have lost events). One per window, not one per request:
// closing an inotify instance waits for a kernel grace period (10–20 ms measured here),
// which a requester would pay on every request, and instances are few per user.
type replyWatcher struct {
	mu      sync.Mutex
	waiting map[string]chan struct{} // by request id; buffered 1
}

// replyWatch returns the window's reply watch, starting it at the first call; it ends
// with the window.
func (w *Core) replyWatch() (*replyWatcher, error) {
	w.replyOnce.Do(func() {
		fw, err := fsnotify.NewWatcher()
		if err == nil {
			if err = fw.Add(filepath.Join(w.home, repliesDir)); err != nil {
				fw.Close()
			}
		}
		if err != nil {
			w.replyErr = err
			return
		}
		rw := &replyWatcher{waiting: map[string]chan struct{}{}}
		w.replies = rw
		go func() {
			defer fw.Close()
			for {
				select {
				case <-w.ctx.Done():
					return
				case ev := <-fw.Events:
					if id, _, _ := strings.Cut(filepath.Base(ev.Name), "."); id != "" { // not a temp file
						rw.wake(id)
					}
				case <-fw.Errors: // events may be lost (overflow): everyone looks again
					rw.wake("")
				}
			}
		}()
	})
	return w.replies, w.replyErr
}

// await registers a wait for the reply to request id: changed receives when a file of
// that name may have appeared. Call stop when done.
func (r *replyWatcher) await(id string) (changed <-chan struct{}, stop func()) {
	ch := make(chan struct{}, 1)
	r.mu.Lock()
	r.waiting[id] = ch
	r.mu.Unlock()
	return ch, func() {
		r.mu.Lock()
		delete(r.waiting, id)
		r.mu.Unlock()
	}
}

// wake tells the waiter for request id (every waiter when id is "") to look again.
func (r *replyWatcher) wake(id string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for k, ch := range r.waiting {
		if id == "" || k == id {
			select {
			case ch <- struct{}{}:
			default:
			}
		}
	}
}

func readReply(home, id string) (*forwardReply, error) {
	data, err := readCapped(replyPath(home, id))
	if err != nil {
		return nil, err
	}
	var rep forwardReply
	if err := decodeStrict(data, &rep); err != nil || rep.ID != id {
		return nil, fmt.Errorf("the writer's reply %s is unreadable: %v", replyPath(home, id), err)
	}
	return &rep, nil
}

// result turns the writer's outcome into a control-channel reply or error.
func (r *forwardReply) result() (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(r.Outcome))
	dec.UseNumber() // numbers as the writer wrote them
	var m map[string]any
	if err := dec.Decode(&m); err != nil || m == nil {
		return nil, fmt.Errorf("the writer's reply to request %s has no outcome: %v", r.ID, err)
	}
	if ok, _ := m["ok"].(bool); !ok {
		code, _ := m["code"].(string)
		msg, _ := m["error"].(string)
		return nil, &ForwardedError{Code: code, Msg: msg, WriterPID: r.WriterPID}
	}
	delete(m, "ok")
	m["forwarded_to"] = r.WriterPID
	return m, nil
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

// requestName is a parsed name in requests/.
type requestName struct {
	id     string
	suffix string // ".json", ".withdrawn" or ".taken-<claim>"
	claim  string // of a taken name: <instance>.<process tag>
}

func parseRequestName(name string) (requestName, bool) {
	id, rest, ok := strings.Cut(name, ".")
	if !ok || !validRequestID(id) {
		return requestName{}, false
	}
	n := requestName{id: id, suffix: "." + rest}
	switch claim, taken := strings.CutPrefix(rest, "taken-"); {
	case taken && claim != "":
		n.claim = claim
	case rest != "json" && rest != "withdrawn":
		return requestName{}, false
	}
	return n, true
}

// answerForwarded claims every request no live writer holds (new ones, and those claimed
// by a term that ended) and answers each, at most maxApplying at a time.
func (w *Core) answerForwarded(t *Term) {
	ents, err := os.ReadDir(filepath.Join(w.home, requestsDir))
	if err != nil {
		w.opts.Logf("forwarded requests: %v", err)
		return
	}
	live := map[string]bool{} // the ids a request file names: their Applied entries stay
	var todo []requestName
	for _, e := range ents {
		n, ok := parseRequestName(e.Name())
		if !ok {
			continue
		}
		live[n.id] = true
		if n.suffix == ".json" || n.claim == claimOf(t) || (n.claim != "" && w.claimGone(t, n.claim)) {
			if w.trustedRequest(filepath.Join(w.home, requestsDir, e.Name())) {
				todo = append(todo, n)
			}
		}
	}
	var wg sync.WaitGroup
	sem := make(chan struct{}, maxApplying)
	for _, n := range todo {
		mine := requestPath(w.home, n.id, ".taken-"+claimOf(t))
		if n.claim != claimOf(t) && os.Rename(requestPath(w.home, n.id, n.suffix), mine) != nil {
			continue // withdrawn, or another writer took it
		}
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			w.answerClaimed(t, mine, n.id, live)
		}()
	}
	wg.Wait()
}

// claimOf names writer term t in the requests it claims.
func claimOf(t *Term) string { return t.self.Instance + "." + procTag(t.self) }

// claimGone reports whether the term that made claim is proven over: its identity
// retired or its window gone (the instance lock is free), or its process gone or dying.
func (w *Core) claimGone(t *Term, claim string) bool {
	instance, tag, _ := strings.Cut(claim, ".")
	if proc.TagGone(tag) {
		return true
	}
	alive, _ := ownerAlive(w.home, t.self, store.Owner{Instance: instance})
	return !alive
}

// answerClaimed answers the request claimed at path: it applies it (or finds it applied),
// writes the reply and lets the claim go. A request this term could not apply because
// the term ended stays claimed for the next writer.
func (w *Core) answerClaimed(t *Term, path, id string, live map[string]bool) {
	data, err := readCapped(path)
	if err != nil {
		w.opts.Logf("forwarded request %s: %v", id, err)
		return
	}
	fr, err := decodeForwardRequest(id, data)
	var outcome json.RawMessage
	if err != nil {
		outcome = errOutcome("invalid", err) // never applied: answered, not recorded
	} else if outcome, err = w.applyForwarded(t, fr, live); err != nil {
		w.opts.Logf("forwarded request %s: %v (left for the next writer)", id, err)
		return
	}
	rep := forwardReply{ID: id, Requester: fr.Requester, WriterPID: t.self.PID, Outcome: outcome}
	b, _ := json.Marshal(rep)
	if err := store.WriteFileAtomicVolatile(replyPath(w.home, id), b); err != nil { // the answer's durable copy is Applied
		w.opts.Logf("answer forwarded request %s: %v", id, err)
		return
	}
	store.Failpoint("forward.after-reply")
	_ = os.Remove(path) // answered durably: the claim is no longer needed
	if alive, _ := ownerAlive(w.home, t.self, fr.Requester); !alive {
		_ = os.Remove(replyPath(w.home, id)) // nobody will read it
	}
}

// applyForwarded applies fr through the control channel's dispatch on this writer term,
// its id recorded in the same save, and returns its outcome. A request found applied is
// answered from the document. An error means the term ended before it was applied.
func (w *Core) applyForwarded(t *Term, fr *forwardRequest, live map[string]bool) (json.RawMessage, error) {
	rec := &forwarded{id: fr.ID, live: live, at: w.opts.Now().UTC()}
	reply, err := dispatch(context.WithValue(t.ctx, forwardedKey{}, rec), w, &fr.Request)
	switch {
	case err == nil:
		store.Failpoint("forward.after-apply")
		b, err := okOutcome(reply)
		if err != nil {
			return errOutcome("internal", err), nil
		}
		return b, nil
	case errors.Is(err, errAlreadyApplied):
		return w.appliedOutcome(fr.ID), nil
	case ErrorCode(err) == "read_only":
		return nil, err
	}
	// Nothing was applied: the refusal is recorded before it is answered, so that a
	// writer that finds this request again answers the same, not applies it.
	out := errOutcome(ErrorCode(err), err)
	_, err = t.Update(t.ctx, func(d *store.Doc) error {
		if appliedIndex(d, fr.ID) >= 0 {
			return errAlreadyApplied
		}
		rec.add(d, out)
		return nil
	})
	switch {
	case errors.Is(err, errAlreadyApplied):
		return w.appliedOutcome(fr.ID), nil
	case err != nil:
		return nil, err
	}
	return out, nil
}

// appliedOutcome returns the outcome the document recorded for request id.
func (w *Core) appliedOutcome(id string) json.RawMessage {
	d := w.Snapshot() // the store's newest: the commit that found the id refreshed it
	if i := appliedIndex(d, id); i >= 0 {
		return d.Applied[i].Reply
	}
	return errOutcome("conflict", fmt.Errorf("request %s was applied; its reply is no longer kept", id))
}

// okOutcome is the outcome of a forwarded request that was applied: its reply (see
// writeReply) with "ok": true.
func okOutcome(reply map[string]any) (json.RawMessage, error) {
	reply["ok"] = true
	return json.Marshal(reply)
}

func errOutcome(code string, err error) json.RawMessage {
	b, _ := json.Marshal(map[string]any{"ok": false, "code": code, "error": err.Error()})
	return b
}

// forwarded is the forwarded request a writer is applying, carried to Term.Update by the
// context (see recordForwarded).
type forwarded struct {
	id   string
	live map[string]bool
	at   time.Time
}

type forwardedKey struct{}

// recordForwarded returns fn unchanged, or, when ctx carries a forwarded request, fn made
// to apply that request at most once and record it in the same document: the id is
// looked for first (errAlreadyApplied if there), and after fn the id and an outcome
// built from what fn did (the generation saved, the run or schedule it added) are added
// to Applied. A change that was no change (store.ErrNoChange) is recorded too; a failed
// fn is not (the store rolls the document back). Term.Update calls it on every update:
// fn runs under the store's commit on the newest document, so the check and the record
// are one with the change.
func recordForwarded(ctx context.Context, fn func(*store.Doc) error) func(*store.Doc) error {
	rec, _ := ctx.Value(forwardedKey{}).(*forwarded)
	if rec == nil {
		return fn
	}
	return func(d *store.Doc) error {
		if appliedIndex(d, rec.id) >= 0 {
			return errAlreadyApplied
		}
		runs, schedules := len(d.Runs), scheduleIDs(d)
		if err := fn(d); err != nil && !errors.Is(err, store.ErrNoChange) {
			return err
		}
		// The commit saves the next generation; Enqueue appends the run it adds.
		var run *store.Run
		if len(d.Runs) > runs {
			run = &d.Runs[len(d.Runs)-1]
		}
		var sch *store.Schedule
		for i := range d.Schedules {
			if !schedules[d.Schedules[i].ID] {
				sch = &d.Schedules[i]
			}
		}
		b, err := okOutcome(writeReply(d.Generation+1, run, sch))
		if err != nil {
			return err
		}
		rec.add(d, b)
		return nil
	}
}

func scheduleIDs(d *store.Doc) map[string]bool {
	m := make(map[string]bool, len(d.Schedules))
	for _, s := range d.Schedules {
		m[s.ID] = true
	}
	return m
}

// add appends the request's entry to d.Applied and drops the entries no longer needed:
// those no request file names that are older than appliedKeep or beyond the newest
// appliedMaxIdle.
func (rec *forwarded) add(d *store.Doc, outcome json.RawMessage) {
	kept := make([]store.Applied, 0, len(d.Applied)+1)
	idle := 0
	for i := len(d.Applied) - 1; i >= 0; i-- { // newest first
		a := d.Applied[i]
		if !rec.live[a.ID] {
			if idle++; idle > appliedMaxIdle || rec.at.Sub(a.At) > appliedKeep {
				continue
			}
		}
		kept = append(kept, a)
	}
	slices.Reverse(kept)
	d.Applied = append(kept, store.Applied{ID: rec.id, At: rec.at, Reply: outcome})
}

func appliedIndex(d *store.Doc, id string) int {
	return slices.IndexFunc(d.Applied, func(a store.Applied) bool { return a.ID == id })
}

// sweepForwarded removes the forwarding files proven abandoned: replies and withdrawn
// requests whose requester is dead (its instance lock free, or a file that names no
// window), and temp files whose creator is gone.
func (w *Core) sweepForwarded(t *Term) {
	for _, dir := range []string{requestsDir, repliesDir} {
		store.CleanTemps(filepath.Join(w.home, dir), proc.TagGone)
	}
	for _, p := range listDir(filepath.Join(w.home, repliesDir)) {
		if n, ok := strings.CutSuffix(filepath.Base(p), ".json"); ok && validRequestID(n) && w.requesterGone(t, p) {
			_ = os.Remove(p)
		}
	}
	for _, p := range listDir(filepath.Join(w.home, requestsDir)) {
		if n, ok := parseRequestName(filepath.Base(p)); ok && n.suffix == ".withdrawn" && w.requesterGone(t, p) {
			_ = os.Remove(p)
		}
	}
}

// requesterGone reports whether the window a request or reply file names as its
// requester is dead. A file that does not name one (it does not decode) is nobody's.
func (w *Core) requesterGone(t *Term, path string) bool {
	data, err := readCapped(path)
	if err != nil && !errors.Is(err, errTooLarge) {
		return false
	}
	var f struct {
		Requester store.Owner `json:"requester"`
	}
	_ = json.Unmarshal(data, &f)
	alive, _ := ownerAlive(w.home, t.self, f.Requester)
	return !alive
}

func listDir(dir string) []string {
	ents, _ := os.ReadDir(dir)
	out := make([]string, 0, len(ents))
	for _, e := range ents {
		out = append(out, filepath.Join(dir, e.Name()))
	}
	return out
}

// ---- files

func requestPath(home, id, suffix string) string {
	return filepath.Join(home, requestsDir, id+suffix)
}

func replyPath(home, id string) string { return filepath.Join(home, repliesDir, id+".json") }

func newRequestID() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("request id: %w", err)
	}
	return hex.EncodeToString(b[:]), nil
}

func validRequestID(id string) bool {
	if len(id) != 32 {
		return false
	}
	for _, c := range []byte(id) {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

var errTooLarge = errors.New("file too large")

// readCapped reads a forwarding file: never through a symlink, at most maxForwardFile
// bytes (errTooLarge beyond).
func readCapped(path string) ([]byte, error) {
	f, err := store.OpenInHome(path, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxForwardFile+1))
	if err == nil && len(data) > maxForwardFile {
		return nil, fmt.Errorf("%s: %w (over %d bytes)", path, errTooLarge, maxForwardFile)
	}
	return data, err
}

// decodeStrict decodes exactly one JSON object with no unknown fields into v, strictly
// (strict.go: no duplicate or case-folded keys, valid UTF-8 only).
func decodeStrict(data []byte, v any) error {
	if len(bytes.TrimSpace(data)) == 0 || bytes.TrimSpace(data)[0] != '{' {
		return errors.New("not a JSON object")
	}
	return decodeObject(data, v)
}

// decodeForwardRequest decodes the request file of id, which is untrusted input: one JSON
// object, no unknown fields, its own id, a requester, a write op. The request returned is
// never nil (the requester is kept when known); the error says what is wrong.
func decodeForwardRequest(id string, data []byte) (*forwardRequest, error) {
	var fr forwardRequest
	if len(data) > maxForwardFile {
		return &fr, fmt.Errorf("%w (over %d bytes)", errTooLarge, maxForwardFile)
	}
	if err := decodeStrict(data, &fr); err != nil {
		return &fr, fmt.Errorf("request file is not a valid request: %v", err)
	}
	switch {
	case fr.ID != id:
		return &fr, fmt.Errorf("request file %s carries id %q", id, fr.ID)
	case fr.Requester.Instance == "" || fr.Requester.PID <= 0:
		return &fr, errors.New("request file names no requester window")
	case !forwardable[fr.Request.Op]:
		return &fr, fmt.Errorf("op %q cannot be forwarded (only writes are)", fr.Request.Op)
	}
	fr.Request.ID, fr.Request.Forward = nil, false // the writer applies it, never forwards it
	return &fr, nil
}
