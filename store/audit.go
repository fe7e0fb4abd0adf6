package store

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// AuditName is the append-only audit log in the home folder.
const AuditName = "audit.log"

// AuditMaxSize is the size at which the audit log is rotated to audit.log.1.
const AuditMaxSize = 4 << 20

// Entry is one line of the audit log, as read back. Kind names what happened (a Record's
// AuditKind); Data holds its details, the record's JSON fields. Data stays a generic map:
// the log is read by the Activity tab and by tests across versions, so an entry of a kind
// this Baton does not know, or with fields it does not know, is still shown in full. Decode
// gives the typed record of a known kind.
type Entry struct {
	Time time.Time      `json:"time"`
	Kind string         `json:"kind"`
	PID  int            `json:"pid"`
	Data map[string]any `json:"data,omitempty"`
}

// Decode fills rec, a pointer to a record of e's kind (&store.Reap{} for "reap"), from e.
func (e Entry) Decode(rec Record) error {
	if rec.AuditKind() != e.Kind {
		return fmt.Errorf("audit: a %q entry is not a %q record", e.Kind, rec.AuditKind())
	}
	b, err := json.Marshal(e.Data)
	if err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	if err := json.Unmarshal(b, rec); err != nil {
		return fmt.Errorf("audit: %s entry: %w", e.Kind, err)
	}
	return nil
}

// Record is one typed audit record: its kind names the entry, its JSON fields are the
// entry's data. The field names are the log's format: change them only compatibly.
type Record interface{ AuditKind() string }

// The kinds of audit entries.
const (
	KindTakeover = "takeover" // a window became the writer (Takeover)
	KindReap     = "reap"     // a run whose owner died was failed or queued again (Reap)
	KindReclaim  = "reclaim"  // a schedule's run lock was freed from a dead owner (Reclaim)
	KindClean    = "clean"    // abandoned temp files were removed (Clean)
	KindShutdown = "shutdown" // the writer closed (Shutdown)
	KindHandover = "handover" // the writer handed over to the window that asked (Handover)
	KindSkipped  = "skipped"  // a schedule skipped an occurrence (Skipped)
	KindQueued   = "queued"   // a schedule queued an occurrence (Queued)
	KindReplace  = "replace"  // a schedule's occurrence replaces its live run (Replace)
	KindCatchUp  = "catch_up" // a schedule handled missed occurrences (CatchUp)
	KindOverrun  = "overrun"  // a scheduled run went past its max_runtime (Overrun)
	// KindRetention: a retention pass removed run logs and archived runs (RetentionPass).
	KindRetention = "retention"
	// A person's own changes, saved through the window's intents.
	KindWorkflowChange = "workflow" // a workflow was created, updated, renamed or deleted (WorkflowChange)
	KindScheduleChange = "schedule" // a schedule was added, changed, paused, resumed or deleted (ScheduleChange)
)

// The changes a person makes, as WorkflowChange and ScheduleChange name them.
const (
	ChangeCreated = "created"
	ChangeUpdated = "updated"
	ChangeRenamed = "renamed"
	ChangeDeleted = "deleted"
	ChangePaused  = "paused"
	ChangeResumed = "resumed"
)

// WorkflowChange records a workflow a person created, updated, renamed or deleted, once
// the change was saved.
type WorkflowChange struct {
	Action     string `json:"action"` // Change*
	Workflow   string `json:"workflow"`
	From       string `json:"from,omitempty"` // the name a renamed workflow had
	Generation uint64 `json:"generation"`     // the document's generation that holds the change
}

// ScheduleChange records a schedule a person added, changed, paused, resumed or deleted,
// once the change was saved.
type ScheduleChange struct {
	Action     string   `json:"action"` // Change*
	Schedule   string   `json:"schedule"`
	Workflow   string   `json:"workflow,omitempty"`
	Every      Duration `json:"every,omitzero"` // when it runs, for an added or changed schedule
	Cron       string   `json:"cron,omitempty"`
	Generation uint64   `json:"generation"`
}

// AuditKind is "workflow".
func (WorkflowChange) AuditKind() string { return KindWorkflowChange }

// AuditKind is "schedule".
func (ScheduleChange) AuditKind() string { return KindScheduleChange }

// Takeover records one BecomeWriter: the new epoch, the old and new writer, the runs it
// reaped, how long each step took.
type Takeover struct {
	Epoch        uint64         `json:"epoch"`
	NewOwner     Owner          `json:"new_owner"`
	OldOwner     *Owner         `json:"old_owner,omitempty"`
	Reaped       []Reaped       `json:"reaped"`
	Adopted      []string       `json:"adopted,omitempty"`
	Steps        []TakeoverStep `json:"steps"`
	TookMS       float64        `json:"took_ms"`
	CleanedTemps []string       `json:"cleaned_temps"`
}

// TakeoverStep is how long one named step of a takeover took.
type TakeoverStep struct {
	Name string  `json:"name"`
	MS   float64 `json:"ms"`
}

// Reaped is a run the reaper failed or queued again because its owner died, and the
// evidence of that death.
type Reaped struct {
	Run      string `json:"run"`
	Workflow string `json:"workflow"`
	OwnerPID int    `json:"owner_pid"`
	Action   string `json:"action"` // failed, requeued, adopted or recorded (workflow.Action*)
	Evidence string `json:"evidence"`
	PGID     int    `json:"pgid,omitempty"`
	// The outcome a recorded run's journal showed.
	Status string `json:"status,omitempty"`
	Error  string `json:"error,omitempty"`
	// SupervisorPID is the run's supervisor, when it had one.
	SupervisorPID int `json:"supervisor_pid,omitempty"`
}

// Reap records one reaped run, in the writer epoch that reaped it.
type Reap struct {
	Reaped
	Epoch uint64 `json:"epoch"`
}

// Reclaim records a schedule's run lock freed because the run's owner died.
type Reclaim struct {
	Schedule      string `json:"schedule"`
	Run           string `json:"run"`
	OwnerPID      int    `json:"owner_pid"`
	OwnerInstance string `json:"owner_instance"`
	Evidence      string `json:"evidence"`
	Action        string `json:"action"`
	Epoch         uint64 `json:"epoch"`
}

// Clean records the abandoned temp files a writer removed.
type Clean struct {
	Removed []string `json:"removed"`
}

// Shutdown records a writer that closed.
type Shutdown struct {
	Epoch    uint64 `json:"epoch"`
	Instance string `json:"instance"`
}

// Handover records a writer handing over to the window that asked (request_write).
type Handover struct {
	Epoch uint64   `json:"epoch"`
	From  Owner    `json:"from"`
	To    Owner    `json:"to"`
	Runs  []string `json:"runs,omitempty"` // the runs left running for the requester to adopt
}

// AuditKind names the record's kind.
func (Handover) AuditKind() string { return KindHandover }

// ScheduleNote is what every schedule decision records: the schedule, why, and the
// occurrence and run concerned.
type ScheduleNote struct {
	Schedule string    `json:"schedule"`
	Reason   string    `json:"reason"`
	Due      time.Time `json:"due,omitzero"`
	Run      string    `json:"run,omitempty"` // the run started, or the live run in the way
}

// Skipped records an occurrence skipped because the schedule's run was still going.
type Skipped struct{ ScheduleNote }

// Queued records an occurrence left waiting for the schedule's live run.
type Queued struct{ ScheduleNote }

// Replace records an occurrence that cancels the schedule's live run to start.
type Replace struct{ ScheduleNote }

// Overrun records a scheduled run that went past its schedule's max_runtime.
type Overrun struct{ ScheduleNote }

// CatchUp records occurrences missed while no writer ran them, and those run for them.
type CatchUp struct {
	ScheduleNote
	Missed  int         `json:"missed"`
	Running []time.Time `json:"running,omitempty"` // the missed occurrences that run
}

// RetentionPass records a retention pass that removed history: the logs of the finished runs
// the workflows' rules (or the home's size cap) let go, and their archived records.
type RetentionPass struct {
	LogsRemoved     int     `json:"logs_removed"`
	LogBytes        int64   `json:"log_bytes"`         // what the removed logs took on disk
	ArchivedRemoved int     `json:"archived_removed"`  // archived run records removed
	ByRule          int     `json:"by_rule"`           // runs let go by the keep rules (newest N, D days)
	ByCap           int     `json:"by_cap"`            // more runs let go by the home's size cap
	Pending         int     `json:"pending,omitempty"` // left for the next pass (a pass is bounded)
	KeptBytes       int64   `json:"kept_bytes"`        // what the history kept takes
	TookMS          float64 `json:"took_ms"`
}

// AuditKind is "retention".
func (RetentionPass) AuditKind() string { return KindRetention }

// AuditKind is "takeover".
func (Takeover) AuditKind() string { return KindTakeover }

// AuditKind is "reap".
func (Reap) AuditKind() string { return KindReap }

// AuditKind is "reclaim".
func (Reclaim) AuditKind() string { return KindReclaim }

// AuditKind is "clean".
func (Clean) AuditKind() string { return KindClean }

// AuditKind is "shutdown".
func (Shutdown) AuditKind() string { return KindShutdown }

// AuditKind is "skipped".
func (Skipped) AuditKind() string { return KindSkipped }

// AuditKind is "queued".
func (Queued) AuditKind() string { return KindQueued }

// AuditKind is "replace".
func (Replace) AuditKind() string { return KindReplace }

// AuditKind is "overrun".
func (Overrun) AuditKind() string { return KindOverrun }

// AuditKind is "catch_up".
func (CatchUp) AuditKind() string { return KindCatchUp }

// Audit appends entries to the audit log. Only the writer appends. Safe for concurrent use.
type Audit struct {
	path string
	mu   sync.Mutex // serialises appends and rotation
}

// NewAudit returns the audit log of a home folder.
func NewAudit(dir string) *Audit { return &Audit{path: filepath.Join(dir, AuditName)} }

// Append writes one record, as an entry of its kind, and fsyncs it. Errors are returned,
// never fatal.
func (a *Audit) Append(rec Record) error {
	if rec == nil {
		return fmt.Errorf("audit: no record")
	}
	line, err := json.Marshal(struct {
		Time time.Time `json:"time"`
		Kind string    `json:"kind"`
		PID  int       `json:"pid"`
		Data Record    `json:"data"`
	}{time.Now().UTC(), rec.AuditKind(), os.Getpid(), rec})
	if err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	line = append(line, '\n')
	a.mu.Lock()
	defer a.mu.Unlock()
	if fi, err := os.Stat(a.path); err == nil && fi.Size()+int64(len(line)) > AuditMaxSize {
		_ = os.Rename(a.path, a.path+".1")
	}
	f, err := OpenInHome(a.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	defer f.Close()
	if _, err := f.Write(line); err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	return f.Sync()
}

// Read returns the entries of the audit log (the rotated file first), oldest first, at most
// the last max entries. A torn last line is skipped.
func (a *Audit) Read(max int) ([]Entry, error) {
	var out []Entry
	for _, p := range []string{a.path + ".1", a.path} {
		data, err := ReadInHome(p)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			var e Entry
			if json.Unmarshal(sc.Bytes(), &e) == nil {
				out = append(out, e)
			}
		}
	}
	if max > 0 && len(out) > max {
		out = out[len(out)-max:]
	}
	return out, nil
}
