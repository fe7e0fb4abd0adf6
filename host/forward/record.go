package forward

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"time"

	"baton/store"
)

// The recorded outcome: a writer applies a request and adds its id and outcome to
// workflows.json (Doc.Applied) in the same save (Recording wraps the change), so the two
// are one document, saved or not together. The id is looked for first, in the newest
// document under the store's commit, so no writer in any term applies a request twice. A
// refusal is recorded by a save of its own before it is answered (Record.Add), so an
// answered request is always in Applied: a re-claim answers it from there.
//
// An Applied entry goes once no request file names its id (none can again: ids are never
// reused, and only the writer renames a claimed file) and it is older than appliedKeep,
// or beyond the newest appliedMaxIdle such entries.

const (
	appliedKeep    = 10 * time.Minute
	appliedMaxIdle = 256
)

// ErrAlreadyApplied refuses to apply a forwarded request whose id the document holds.
var ErrAlreadyApplied = errors.New("forwarded request already applied")

// OK is the outcome of a request that was applied: the core's reply with "ok": true.
func OK(reply map[string]any) (json.RawMessage, error) {
	reply["ok"] = true
	return json.Marshal(reply)
}

// Refused is the outcome of a request that was refused with code (the control channel's)
// and err.
func Refused(code string, err error) json.RawMessage {
	b, _ := json.Marshal(map[string]any{"ok": false, "code": code, "error": err.Error()})
	return b
}

// Record is the forwarded request a writer is applying, carried to the core's commit by
// the context (WithRecord, Recording).
type Record struct {
	ID   string
	Live map[string]bool // the ids a request file names: their Applied entries stay
	At   time.Time
}

type recordKey struct{}

// WithRecord returns ctx carrying rec: an update made with it applies rec's request.
func WithRecord(ctx context.Context, rec *Record) context.Context {
	return context.WithValue(ctx, recordKey{}, rec)
}

// ReplyBuilder builds the core's reply to a write that saves generation g, naming the run
// or schedule it added (nil if none).
type ReplyBuilder func(g uint64, run *store.Run, sch *store.Schedule) map[string]any

// Recording returns fn unchanged, or, when ctx carries a Record, fn made to apply that
// request at most once and record it in the same document: the id is looked for first
// (ErrAlreadyApplied if there), and after fn the id and an outcome built by reply from
// what fn did (the generation saved, the run or schedule it added) are added to Applied.
// A change that was no change (store.ErrNoChange) is recorded too; a failed fn is not
// (the store rolls the document back). The core calls it on every update, and runs the
// result under the store's commit on the newest document, so the check and the record
// are one with the change.
func Recording(ctx context.Context, fn func(*store.Doc) error, reply ReplyBuilder) func(*store.Doc) error {
	rec, _ := ctx.Value(recordKey{}).(*Record)
	if rec == nil {
		return fn
	}
	return func(d *store.Doc) error {
		if AppliedIndex(d, rec.ID) >= 0 {
			return ErrAlreadyApplied
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
		b, err := OK(reply(d.Generation+1, run, sch))
		if err != nil {
			return err
		}
		rec.Add(d, b)
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

// Add appends the request's entry to d.Applied and drops the entries no longer needed:
// those no request file names that are older than appliedKeep or beyond the newest
// appliedMaxIdle.
func (rec *Record) Add(d *store.Doc, outcome json.RawMessage) {
	kept := make([]store.Applied, 0, len(d.Applied)+1)
	idle := 0
	for i := len(d.Applied) - 1; i >= 0; i-- { // newest first
		a := d.Applied[i]
		if !rec.Live[a.ID] {
			if idle++; idle > appliedMaxIdle || rec.At.Sub(a.At) > appliedKeep {
				continue
			}
		}
		kept = append(kept, a)
	}
	slices.Reverse(kept)
	d.Applied = append(kept, store.Applied{ID: rec.ID, At: rec.At, Reply: outcome})
}

// AppliedIndex is the index of request id's entry in d.Applied, or -1.
func AppliedIndex(d *store.Doc, id string) int {
	return slices.IndexFunc(d.Applied, func(a store.Applied) bool { return a.ID == id })
}
