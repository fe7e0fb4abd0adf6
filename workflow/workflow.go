package workflow

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"baton/store"
)

// Normalize trims the name, fills defaults into a workflow definition and validates it.
// A broken rule is ErrInvalid wrapping a store.FieldErrors that names every field at fault.
func Normalize(w *store.Workflow) error {
	w.Name = strings.TrimSpace(w.Name)
	if w.MaxConcurrent == 0 {
		w.MaxConcurrent = 1
	}
	if w.OnOwnerLost == "" {
		w.OnOwnerLost = "fail"
	}
	for i := range w.Steps {
		w.Steps[i].Name = strings.TrimSpace(w.Steps[i].Name)
		if w.Steps[i].Name == "" {
			w.Steps[i].Name = fmt.Sprintf("step %d", i+1)
		}
	}
	if err := w.Validate(); err != nil {
		return fmt.Errorf("%w: workflow %q: %w", ErrInvalid, w.Name, err)
	}
	return nil
}

// NameTaken returns nil if a new workflow may be named name in d, else ErrConflict
// wrapping a store.FieldErrors for the name: another workflow has the same name
// ignoring case and surrounding spaces (store.SameName).
func NameTaken(d *store.Doc, name string) error {
	for i := range d.Workflows {
		if other := d.Workflows[i].Name; store.SameName(other, name) {
			return fmt.Errorf("%w: %w", ErrConflict,
				store.FieldErrors{{Field: "name", Message: fmt.Sprintf("a workflow named %q already exists", other)}})
		}
	}
	return nil
}

// AddWorkflow adds a new definition to d. A name CheckName refuses is ErrInvalid; a name
// another workflow has (ignoring case and surrounding spaces) is ErrConflict.
func AddWorkflow(d *store.Doc, w store.Workflow) error {
	if err := Normalize(&w); err != nil {
		return err
	}
	if err := CheckName(w.Name); err != nil { // the trimmed name: surrounding spaces and tabs go
		return err
	}
	if err := NameTaken(d, w.Name); err != nil {
		return err
	}
	d.Workflows = append(d.Workflows, w.Clone())
	return nil
}

// UpdateWorkflow replaces the definition with the same name, exactly as stored (an update
// never renames, so a name is not trimmed here). Running runs keep the steps they
// started with.
func UpdateWorkflow(d *store.Doc, w store.Workflow) error {
	name := w.Name
	if err := Normalize(&w); err != nil {
		return err
	}
	cur := d.Workflow(name)
	if cur == nil {
		return fmt.Errorf("%w: no workflow named %q", ErrNotFound, name)
	}
	w.Name = cur.Name
	*cur = w.Clone()
	return nil
}

// DeleteWorkflow removes a definition. A workflow with queued or running runs cannot be
// deleted (cancel them first); its schedules are deleted with it.
func DeleteWorkflow(d *store.Doc, name string) error {
	idx := -1
	for i := range d.Workflows {
		if d.Workflows[i].Name == name {
			idx = i
		}
	}
	if idx < 0 {
		return fmt.Errorf("%w: no workflow named %q", ErrNotFound, name)
	}
	for i := range d.Runs {
		if d.Runs[i].Workflow == name && d.Runs[i].Active() {
			return fmt.Errorf("%w: workflow %q has an active run %s; cancel it first", ErrConflict, name, d.Runs[i].ID)
		}
	}
	d.Workflows = append(d.Workflows[:idx], d.Workflows[idx+1:]...)
	kept := d.Schedules[:0]
	for _, s := range d.Schedules {
		if s.Workflow != name {
			kept = append(kept, s)
		}
	}
	d.Schedules = kept
	return nil
}

// Enqueue adds a queued run of workflow name to d and returns a copy of it.
func Enqueue(d *store.Doc, name, task string, now time.Time) (store.Run, error) {
	w := d.Workflow(name)
	if w == nil {
		return store.Run{}, fmt.Errorf("%w: no workflow named %q", ErrNotFound, name)
	}
	d.Seq++
	r := store.Run{
		ID:       NewRunID(d.Seq),
		Seq:      d.Seq,
		Workflow: name,
		Task:     task,
		Status:   store.StatusQueued,
		Steps:    len(w.Steps),
		Created:  now.UTC(),
	}
	d.Runs = append(d.Runs, r)
	return r, nil
}

// NewRunID returns a run id that is unique across homes: the sequence number for people,
// and a random suffix so that process markers of two homes never collide.
func NewRunID(seq uint64) string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return fmt.Sprintf("r%d-%s", seq, hex.EncodeToString(b[:]))
}

// Finish records the end of a run: its status, exit code, error and end time.
func Finish(r *store.Run, status string, exit *int, errText string, now time.Time) {
	r.Status = status
	r.ExitCode = exit
	r.Error = errText
	r.Ended = now.UTC()
	r.PGID, r.StepPID, r.StepStart = 0, 0, 0
}

// ending is how a run ended, as the run records it.
type ending struct {
	status string
	exit   *int
	err    string
	at     time.Time     // when it ended; zero: when it is recorded
	step   int           // the step it ended at (0-based); -1: the one the run records
	logCut *store.LogCut // its log could not be written whole
}

// failedWith is a run failed for reason, at the step the run records, now.
func failedWith(reason string) ending {
	return ending{status: store.StatusFailed, err: reason, step: -1}
}

// endingOf is the end j records: its status and reason, the step it ended at (the last
// the journal shows: the step that failed or could not start, whether or not a writer
// saw it begin), when it ended, and whether its log was cut.
func endingOf(j Journal) ending {
	end := ending{status: j.Status, exit: j.Exit, err: j.Error, at: j.EndedAt, step: -1, logCut: j.LogCut}
	if n := len(j.Steps); n > 0 {
		end.step = j.Steps[n-1].Index
	}
	return end
}

// apply records end in r; now is the end time when end has none.
func (end ending) apply(r *store.Run, now time.Time) {
	at := end.at
	if at.IsZero() {
		at = now
	}
	Finish(r, end.status, end.exit, end.err, at)
	if end.step >= 0 {
		r.Step = end.step
	}
	if end.logCut != nil {
		c := *end.logCut
		r.LogCut = &c
	}
}
