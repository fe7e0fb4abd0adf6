// Package store keeps workflows.json: loading with validation and a size cap, atomic
// durable saves, the generation and the writer epoch (fencing), refresh-before-write and a
// watch of the home folder; the home's identity, damage refused without a change
// (damage.go) and its explicit recovery (recover.go). It knows nothing of roles or windows.
//
// README.md in this folder is its design: the write-ahead log's format, checkpoints,
// damage detection and recovery, the named durability points and their power-cut tests,
// the archive and retention.
package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// SchemaVersion is the version of workflows.json this Baton writes and understands.
const SchemaVersion = 1

// Run statuses.
const (
	StatusQueued    = "queued"
	StatusRunning   = "running"
	StatusSucceeded = "succeeded"
	StatusFailed    = "failed"
	StatusCancelled = "cancelled"
)

// Doc is the whole workflows.json document. A Doc handed out by the store is a snapshot:
// callers must not modify it; Update passes a private copy to its function.
type Doc struct {
	Schema int `json:"schema"`
	// Home is the home's id: random, made at its first save and never changed. The log's
	// header and every frame's checksum carry it too, so a log or a document of another
	// home is refused. A home from before ids has none until its writer's next save.
	Home       string `json:"home,omitempty"`
	Generation uint64 `json:"generation"`
	Epoch      uint64 `json:"epoch"`
	Writer     *Owner `json:"writer,omitempty"`
	// HandoverTo names the window the last writer handed over to on request: other
	// windows that win state.lock give way to it while it lives. Its takeover clears it.
	HandoverTo *Owner     `json:"handover_to,omitempty"`
	Seq        uint64     `json:"seq"`
	Workflows  []Workflow `json:"workflows"`
	Runs       []Run      `json:"runs"`
	Schedules  []Schedule `json:"schedules"`
	// Applied lists the forwarded requests (requests/<id>.json) this document has applied,
	// oldest first, each with the reply its requester gets. A request is applied in the
	// same save that adds its id here, so no writer, before or after a takeover, applies
	// it twice. Bounded: the oldest entries go once they are provably answered or old.
	Applied []Applied `json:"applied,omitempty"`
	// Retention is the home's default history retention and its size cap; a workflow's
	// own Retention overrides the per-workflow part.
	Retention *Retention `json:"retention,omitempty"`
	// Log ties this document to the cycles of workflows.wal (see wal.go): set at each
	// whole save, never by an update. Absent in a home from before it.
	Log *LogLink `json:"log,omitempty"`
}

// LogLink names, by their salts (16 hex digits), the log cycle a whole save of
// workflows.json absorbed, whose header the log may still hold, and the cycle that
// follows it. Any other cycle in the log means saves may be missing: damage.
type LogLink struct {
	After string `json:"after"`
	Next  string `json:"next"`
}

// Applied records one forwarded request that a writer applied, with its reply.
type Applied struct {
	ID    string          `json:"id"`
	At    time.Time       `json:"at"`
	Reply json.RawMessage `json:"reply,omitempty"`
}

// Retention bounds how much finished history (run logs and archived runs) is kept.
// Zero fields mean "the default" (see package workflow).
type Retention struct {
	KeepRuns     int      `json:"keep_runs,omitempty"`      // the newest N finished runs of a workflow
	KeepFor      Duration `json:"keep_for,omitzero"`        // and every finished run younger than this
	MaxHomeBytes int64    `json:"max_home_bytes,omitempty"` // home-wide cap on logs and archive (Doc level only)
}

// MinHomeBytes is the smallest size cap a home may set: below it a cap would delete all
// history at once, which is never what a person meant.
const MinHomeBytes = 1 << 20

// Validate checks a retention setting, r at the home level when home is set, else a
// workflow's, and returns a FieldErrors naming each broken field ("retention.keep_runs").
// A nil r (the defaults) is valid.
func (r *Retention) Validate(home bool) error {
	if r == nil {
		return nil
	}
	var errs FieldErrors
	if r.KeepRuns < 0 {
		errs.Add("retention.keep_runs", fmt.Sprintf("must be at least 1 (or 0 for the default), got %d", r.KeepRuns))
	}
	if r.KeepFor < 0 {
		errs.Add("retention.keep_for", fmt.Sprintf("must not be negative, got %s", r.KeepFor.D()))
	}
	switch {
	case !home && r.MaxHomeBytes != 0:
		errs.Add("retention.max_home_bytes", "is a setting of the whole home, not of one workflow")
	case r.MaxHomeBytes != 0 && r.MaxHomeBytes < MinHomeBytes:
		errs.Add("retention.max_home_bytes", fmt.Sprintf("must be at least %d (1 MiB, or 0 for the default), got %d", MinHomeBytes, r.MaxHomeBytes))
	}
	return errs.Err()
}

// Owner names a window (an OS process) with enough evidence to tell it from a later
// process that reuses its pid.
type Owner struct {
	PID      int       `json:"pid"`
	Start    uint64    `json:"start"`    // process start time, clock ticks since boot
	Boot     string    `json:"boot"`     // kernel boot id
	Instance string    `json:"instance"` // random id of the window, names instances/<id>.lock
	Since    time.Time `json:"since,omitzero"`
}

// Workflow is a named list of steps with a concurrency lane.
type Workflow struct {
	Name          string `json:"name"`
	MaxConcurrent int    `json:"max_concurrent"`
	OnOwnerLost   string `json:"on_owner_lost"` // "fail", "requeue" or "adopt"
	Steps         []Step `json:"steps"`
	// Retention overrides the home's default retention for this workflow's history.
	Retention *Retention `json:"retention,omitempty"`
}

// Step is one command. Argv is executed directly, never through a shell.
type Step struct {
	Name    string            `json:"name,omitempty"`
	Argv    []string          `json:"argv"`
	Timeout Duration          `json:"timeout,omitzero"`
	Dir     string            `json:"dir,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
}

// Run is one execution of a workflow.
type Run struct {
	ID              string    `json:"id"`
	Seq             uint64    `json:"seq"`
	Workflow        string    `json:"workflow"`
	Task            string    `json:"task,omitempty"`
	Status          string    `json:"status"`
	Attempt         int       `json:"attempt,omitempty"`
	OwnerPID        int       `json:"owner_pid,omitempty"`
	Owner           *Owner    `json:"owner,omitempty"`
	Step            int       `json:"step"`  // index of the current (or last) step
	Steps           int       `json:"steps"` // number of steps when the run was created
	PGID            int       `json:"pgid,omitempty"`
	StepPID         int       `json:"step_pid,omitempty"`
	StepStart       uint64    `json:"step_start,omitempty"`       // start time (ticks) of StepPID
	SupervisorPID   int       `json:"supervisor_pid,omitempty"`   // the run's supervisor process
	SupervisorStart uint64    `json:"supervisor_start,omitempty"` // its start time (ticks)
	Machine         string    `json:"machine,omitempty"`          // the machine it runs on (etcd homes)
	Created         time.Time `json:"created"`
	Started         time.Time `json:"started,omitzero"`
	Ended           time.Time `json:"ended,omitzero"`
	ExitCode        *int      `json:"exit_code,omitempty"`
	Error           string    `json:"error,omitempty"`
	Log             string    `json:"log,omitempty"`
	LogCut          *LogCut   `json:"log_cut,omitempty"` // the log could not be written whole
	Schedule        string    `json:"schedule,omitempty"`
	Due             time.Time `json:"due,omitzero"`
	CancelRequested bool      `json:"cancel_requested,omitempty"`
	CancelReason    string    `json:"cancel_reason,omitempty"` // why, when not asked by a person
	Overrun         bool      `json:"overrun,omitempty"`       // ran past its schedule's max_runtime
}

// Before reports whether d comes before o in the order writers save documents in: a
// lower writer epoch, or the same epoch and a lower generation. A view never goes back to
// a document before the one it shows.
func (d *Doc) Before(o *Doc) bool {
	return d.Epoch < o.Epoch || (d.Epoch == o.Epoch && d.Generation < o.Generation)
}

// Active reports whether the run is queued or running.
func (r *Run) Active() bool { return r.Status == StatusQueued || r.Status == StatusRunning }

// Schedule starts a workflow on a timer. Its fields are interpreted by package workflow.
type Schedule struct {
	ID            string      `json:"id"`
	Workflow      string      `json:"workflow"`
	Every         Duration    `json:"every,omitzero"`
	Cron          string      `json:"cron,omitempty"`
	TZ            string      `json:"tz,omitempty"`
	Paused        bool        `json:"paused,omitempty"`
	Overlap       string      `json:"overlap,omitempty"`
	MaxRuntime    Duration    `json:"max_runtime,omitzero"`
	OnOverrun     string      `json:"on_overrun,omitempty"`
	CatchUp       string      `json:"catch_up,omitempty"`
	CatchUpWindow Duration    `json:"catch_up_window,omitzero"`
	Watermark     *string     `json:"watermark,omitempty"`
	Created       time.Time   `json:"created"`
	LastDue       time.Time   `json:"last_due,omitzero"` // newest occurrence key handled
	NextDue       time.Time   `json:"next_due,omitzero"`
	Lock          *RunLock    `json:"lock,omitempty"`
	Pending       []time.Time `json:"pending,omitempty"` // queued occurrences (overlap=queue)
	LastRun       string      `json:"last_run,omitempty"`
	LastStatus    string      `json:"last_status,omitempty"`
	// Ticked is when a `tick --once` last looked at the schedule, and TickGap the time
	// between that tick and the one before: how late an occurrence may be and still be the
	// tick's own work (see workflow.MarkTick). Zero when no tick drove it.
	Ticked  time.Time `json:"ticked,omitzero"`
	TickGap Duration  `json:"tick_gap,omitzero"`
}

// RunLock says which run of a schedule holds its lock, and who owns that run.
type RunLock struct {
	Run   string    `json:"run"`
	Owner Owner     `json:"owner"`
	Since time.Time `json:"since"`
}

// Duration is a time.Duration written as a Go duration string ("30s").
type Duration time.Duration

// D returns the value as a time.Duration.
func (d Duration) D() time.Duration { return time.Duration(d) }

// MarshalJSON writes the duration as a string.
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(time.Duration(d).String()) }

// UnmarshalJSON reads a duration string such as "1m30s".
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("duration must be a string such as \"30s\": %w", err)
	}
	if s == "" {
		*d = 0
		return nil
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("bad duration %q: %w", s, err)
	}
	if v < 0 {
		return fmt.Errorf("bad duration %q: negative", s)
	}
	*d = Duration(v)
	return nil
}

// Clone returns a deep copy of d.
func (d *Doc) Clone() *Doc {
	c := *d
	if d.Writer != nil {
		w := *d.Writer
		c.Writer = &w
	}
	if d.HandoverTo != nil {
		h := *d.HandoverTo
		c.HandoverTo = &h
	}
	c.Applied = slices.Clone(d.Applied)
	if d.Retention != nil {
		r := *d.Retention
		c.Retention = &r
	}
	if d.Log != nil {
		l := *d.Log
		c.Log = &l
	}
	c.Workflows = make([]Workflow, len(d.Workflows))
	for i, w := range d.Workflows {
		c.Workflows[i] = w.Clone()
	}
	c.Runs = make([]Run, len(d.Runs))
	for i, r := range d.Runs {
		c.Runs[i] = r.Clone()
	}
	c.Schedules = make([]Schedule, len(d.Schedules))
	for i, s := range d.Schedules {
		c.Schedules[i] = s.Clone()
	}
	return &c
}

// cloneForUpdate returns a copy of d for an update's functions to change: deep, but for
// the runs' Owner and ExitCode, which it shares with d. Copying every run's two pointers
// was a third of a save's own work; an update replaces them (r.Owner = &o), never writes
// through them, and a test build checks that at each commit (checkShared, hooks_on.go).
func (d *Doc) cloneForUpdate() *Doc {
	shell := *d
	shell.Runs = nil
	c := shell.Clone()
	c.Runs = slices.Clone(d.Runs)
	if c.Runs == nil {
		c.Runs = []Run{}
	}
	return c
}

// runPointees is what one run's pointer fields point at.
type runPointees struct {
	owner             Owner
	exit              int
	hasOwner, hasExit bool
}

func pointeesOf(runs []Run) []runPointees {
	out := make([]runPointees, len(runs))
	for i := range runs {
		if o := runs[i].Owner; o != nil {
			out[i].owner, out[i].hasOwner = *o, true
		}
		if e := runs[i].ExitCode; e != nil {
			out[i].exit, out[i].hasExit = *e, true
		}
	}
	return out
}

// Clone returns a deep copy of w.
func (w Workflow) Clone() Workflow {
	if w.Retention != nil {
		r := *w.Retention
		w.Retention = &r
	}
	w.Steps = slices.Clone(w.Steps)
	for i := range w.Steps {
		w.Steps[i].Argv = slices.Clone(w.Steps[i].Argv)
		w.Steps[i].Env = maps.Clone(w.Steps[i].Env)
	}
	return w
}

// Clone returns a deep copy of r.
func (r Run) Clone() Run {
	if r.Owner != nil {
		o := *r.Owner
		r.Owner = &o
	}
	if r.ExitCode != nil {
		e := *r.ExitCode
		r.ExitCode = &e
	}
	if r.LogCut != nil {
		c := *r.LogCut
		r.LogCut = &c
	}
	return r
}

// Clone returns a deep copy of s.
func (s Schedule) Clone() Schedule {
	if s.Watermark != nil {
		w := *s.Watermark
		s.Watermark = &w
	}
	if s.Lock != nil {
		l := *s.Lock
		s.Lock = &l
	}
	s.Pending = slices.Clone(s.Pending)
	return s
}

// Workflow returns the workflow named name, or nil.
func (d *Doc) Workflow(name string) *Workflow {
	for i := range d.Workflows {
		if d.Workflows[i].Name == name {
			return &d.Workflows[i]
		}
	}
	return nil
}

// Run returns the run with the given id, or nil.
func (d *Doc) Run(id string) *Run {
	for i := range d.Runs {
		if d.Runs[i].ID == id {
			return &d.Runs[i]
		}
	}
	return nil
}

// Schedule returns the schedule with the given id, or nil.
func (d *Doc) Schedule(id string) *Schedule {
	for i := range d.Schedules {
		if d.Schedules[i].ID == id {
			return &d.Schedules[i]
		}
	}
	return nil
}

// Validate checks the structural rules every saved document obeys. Workflow-level rules
// (argv not empty and so on) are checked too, so a hand-edited file cannot smuggle in a
// workflow the app would refuse.
func (d *Doc) Validate() error {
	if d.Schema != SchemaVersion {
		return fmt.Errorf("%w: schema %d, want %d", ErrInvalid, d.Schema, SchemaVersion)
	}
	if err := d.validIdentity(); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	names := make(map[string]bool, len(d.Workflows))
	for i := range d.Workflows {
		w := &d.Workflows[i]
		if err := w.Validate(); err != nil {
			return fmt.Errorf("%w: workflows[%d]: %w", ErrInvalid, i, err)
		}
		if names[w.Name] {
			return fmt.Errorf("%w: workflows[%d]: duplicate name %q", ErrInvalid, i, w.Name)
		}
		names[w.Name] = true
	}
	if err := d.Retention.Validate(true); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	ids := make(map[string]bool, len(d.Runs))
	for i := range d.Runs {
		r := &d.Runs[i]
		if r.ID == "" || ids[r.ID] {
			return fmt.Errorf("%w: runs[%d]: missing or duplicate id %q", ErrInvalid, i, r.ID)
		}
		ids[r.ID] = true
		switch r.Status {
		case StatusQueued, StatusRunning, StatusSucceeded, StatusFailed, StatusCancelled:
		default:
			return fmt.Errorf("%w: runs[%d] (%s): unknown status %q", ErrInvalid, i, r.ID, r.Status)
		}
	}
	for i := range d.Schedules {
		if d.Schedules[i].ID == "" {
			return fmt.Errorf("%w: schedules[%d]: missing id", ErrInvalid, i)
		}
	}
	return nil
}

// validIdentity checks the home id (32 hex digits) and the log link (16 each).
func (d *Doc) validIdentity() error {
	if d.Home != "" && !isHex(d.Home, 32) {
		return fmt.Errorf("home: %q is not a home id (32 hex digits)", d.Home)
	}
	if l := d.Log; l != nil && (!isHex(l.Next, 16) || (l.After != "" && !isHex(l.After, 16))) {
		return fmt.Errorf("log: %q, %q are not log cycles (16 hex digits each)", l.After, l.Next)
	}
	return nil
}

func isHex(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for _, c := range s {
		if !strings.ContainsRune("0123456789abcdef", c) {
			return false
		}
	}
	return true
}

// Validate checks one workflow definition and says everything that is wrong with it: the
// error, if any, is a FieldErrors naming each field with a broken rule.
func (w *Workflow) Validate() error {
	var errs FieldErrors
	switch {
	case w.Name == "":
		errs.Add("name", "must not be empty")
	case len(w.Name) > 200:
		errs.Add("name", "longer than 200 characters")
	}
	if w.MaxConcurrent < 1 {
		errs.Add("max_concurrent", fmt.Sprintf("must be at least 1, got %d", w.MaxConcurrent))
	}
	switch w.OnOwnerLost {
	case "fail", "requeue", "adopt":
	default:
		errs.Add("on_owner_lost", fmt.Sprintf("must be \"fail\", \"requeue\" or \"adopt\", got %q", w.OnOwnerLost))
	}
	if len(w.Steps) == 0 {
		errs.Add("steps", "a workflow needs at least one step")
	}
	for i, s := range w.Steps {
		if len(s.Argv) == 0 || s.Argv[0] == "" {
			errs.Add(fmt.Sprintf("steps[%d].argv", i), "must name a program (argv is empty)")
		}
	}
	var rerrs FieldErrors
	if errors.As(w.Retention.Validate(false), &rerrs) {
		errs = append(errs, rerrs...)
	}
	return errs.Err()
}

// SameName reports whether two workflow names are the same to a person: equal once
// surrounding spaces are trimmed, ignoring case. A new workflow may not take a name that
// is the same as another's.
func SameName(a, b string) bool {
	return strings.EqualFold(strings.TrimSpace(a), strings.TrimSpace(b))
}

// FieldError is one broken rule of a definition. Field names the field as the JSON
// spells it ("name", "max_concurrent", "steps[0].argv", "cron"); Message says what is
// wrong in plain words, without the field's name.
type FieldError struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

func (e FieldError) Error() string {
	if e.Field == "" {
		return e.Message
	}
	return e.Field + ": " + e.Message
}

// FieldErrors is every broken rule of one definition, in the order of its fields. Readers
// find it with errors.As; whoever returns it wraps it with the sentinel of the failure
// (ErrInvalid, workflow.ErrInvalid or workflow.ErrConflict): FieldErrors itself matches none.
type FieldErrors []FieldError

// Add appends a broken rule of field.
func (es *FieldErrors) Add(field, msg string) {
	*es = append(*es, FieldError{Field: field, Message: msg})
}

// Err returns es as an error, or nil when it holds none.
func (es FieldErrors) Err() error {
	if len(es) == 0 {
		return nil
	}
	return es
}

// Error joins the problems: "name: must not be empty; steps: a workflow needs at least one step".
func (es FieldErrors) Error() string {
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = e.Error()
	}
	return strings.Join(parts, "; ")
}
