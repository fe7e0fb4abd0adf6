package store

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"
)

// AuditName is the append-only audit log in the home folder.
const AuditName = "audit.log"

// AuditMaxSize is the size at which the audit log is rotated to audit.log.1.
const AuditMaxSize = 4 << 20

// auditRotateAt is AuditMaxSize; a variable for tests.
var auditRotateAt int64 = AuditMaxSize

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
//
// A full disk loses no entry without a word: the log keeps AuditReserve bytes of room
// reserved past its end, so the entries of a while of full disk still fit; an entry the
// disk refuses anyway is kept in memory and written, in its order and with its own time,
// before the next one, or by a retry in the background, once the disk takes it. Past
// auditHeldMax entries held the oldest are dropped, and the gap itself is written first
// when the disk takes entries again (an AuditGap: "N audit entries lost while the disk
// was full"). Entries written whose fsync then failed may be missing after a crash: the
// next gap counts them as Unsynced. Entries still held when the process ends are lost
// unrecorded.
type Audit struct {
	path string

	mu      sync.Mutex  // guards the fields below; serialises appends and rotation
	held    []heldEntry // entries the disk refused, oldest first
	heldB   int         // bytes of held
	newName bool        // the file was created or rotated and its folder not yet fsynced
	gap     AuditGap    // entries dropped from held since the last gap written (Lost > 0)
	retry   *time.Timer // the background retry, while entries are held
	backoff time.Duration
	closed  bool // Close was called: no more background retries
}

// heldEntry is an encoded entry not yet written.
type heldEntry struct {
	at   time.Time
	line []byte
}

// AuditReserve is the room the audit log keeps reserved past its end (see Audit).
const AuditReserve = 64 << 10

// auditHeldMax bounds the entries (and auditHeldBytes their bytes) an Audit holds in
// memory while the disk refuses them. A variable for tests.
var auditHeldMax, auditHeldBytes = 4096, 4 << 20

// KindAuditGap: audit entries that could not be written were lost (AuditGap).
const KindAuditGap = "audit_gap"

// AuditGap records audit entries lost while the disk refused them: how many, the times
// of the first and last, and why.
type AuditGap struct {
	Lost     int       `json:"lost"`
	Unsynced int       `json:"unsynced,omitempty"` // written, but their fsync failed: perhaps missing after a crash
	From     time.Time `json:"from"`
	To       time.Time `json:"to"`
	Reason   string    `json:"reason"`
}

// AuditKind is "audit_gap".
func (AuditGap) AuditKind() string { return KindAuditGap }

// String says it in words: "3 audit entries lost while the disk was full (no space left
// on device)".
func (g AuditGap) String() string {
	switch {
	case g.Unsynced == 0:
		return fmt.Sprintf("%d audit entries lost while the disk was full (%s)", g.Lost, g.Reason)
	case g.Lost == 0:
		return fmt.Sprintf("%d audit entries may be missing after a crash: their fsync failed (%s)", g.Unsynced, g.Reason)
	}
	return fmt.Sprintf("%d audit entries lost while the disk refused them, and %d more may be missing after a crash: their fsync failed (%s)",
		g.Lost, g.Unsynced, g.Reason)
}

// ErrAuditHeld is wrapped by Append's error when the entry could not be written now: it
// is held in memory and written later, in order (see Audit).
var ErrAuditHeld = errors.New("held in memory and written once the log takes them")

// NewAudit returns the audit log of a home folder.
func NewAudit(dir string) *Audit { return &Audit{path: filepath.Join(dir, AuditName)} }

// Append writes one record, as an entry of its kind, after every entry held before it,
// and fsyncs them. An error says the entry is held in memory (see Audit); it is never
// fatal. It blocks for the write and the fsync.
func (a *Audit) Append(rec Record) error {
	if rec == nil {
		return fmt.Errorf("audit: no record")
	}
	at := time.Now().UTC()
	line, err := encodeEntry(at, rec)
	if err != nil {
		return err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.held = append(a.held, heldEntry{at: at, line: line})
	a.heldB += len(line)
	if err := a.flush(); err != nil {
		a.trim()
		a.retryLater()
		return fmt.Errorf("audit %s: %w; %d entries are %w", a.path, err, len(a.held), ErrAuditHeld)
	}
	return nil
}

// Close stops the background retry and tries the held entries once more. It returns an
// error if entries are still held: they are lost when the process ends. Append still
// works after Close.
func (a *Audit) Close() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.closed = true
	if a.retry != nil {
		a.retry.Stop()
		a.retry = nil
	}
	if err := a.flush(); err != nil {
		return fmt.Errorf("audit %s: %d entries could not be written: %w", a.path, len(a.held), err)
	}
	return nil
}

// CloseWithin is Close for a process about to exit (a command such as `baton recover`),
// whose held entries would be lost with it: while another process holds the log's lock
// (it appends one entry and fsyncs: milliseconds), it tries again, for at most d. Other
// failures (the disk refuses) return at once, as Close's do.
func (a *Audit) CloseWithin(d time.Duration) error {
	deadline := time.Now().Add(d)
	for wait := time.Millisecond; ; wait = min(2*wait, 50*time.Millisecond) {
		err := a.Close()
		if err == nil || !errors.Is(err, syscall.EWOULDBLOCK) || time.Now().Add(wait).After(deadline) {
			return err
		}
		time.Sleep(wait) // the other process's lock has no event to wait on
	}
}

func encodeEntry(at time.Time, rec Record) ([]byte, error) {
	line, err := json.Marshal(struct {
		Time time.Time `json:"time"`
		Kind string    `json:"kind"`
		PID  int       `json:"pid"`
		Data Record    `json:"data"`
	}{at, rec.AuditKind(), os.Getpid(), rec})
	if err != nil {
		return nil, fmt.Errorf("audit: %w", err)
	}
	return append(line, '\n'), nil
}

// trim drops the oldest held entries (counted in the gap) past the bounds. Call with a.mu
// held.
func (a *Audit) trim() {
	for len(a.held) > 1 && (len(a.held) > auditHeldMax || a.heldB > auditHeldBytes) {
		old := a.held[0]
		a.held, a.heldB = a.held[1:], a.heldB-len(old.line)
		if a.gap.Lost == 0 {
			a.gap.From = old.at
		}
		a.gap.Lost++
		a.gap.To = old.at
	}
}

// flush writes the gap, if entries were dropped, and every held entry, in order, and
// fsyncs them; what the disk refuses stays held. Call with a.mu held.
func (a *Audit) flush() error {
	if len(a.held) == 0 && a.gap.Lost == 0 && a.gap.Unsynced == 0 {
		return nil
	}
	f, err := a.open(int64(a.heldB))
	if err != nil {
		a.noteReason(err)
		return err
	}
	defer f.Close()
	// The gap is forgotten only once its record is synced: written again after a failure,
	// it keeps its From, and Read keeps only the last record of a gap.
	told := false
	if a.gap.Lost > 0 || a.gap.Unsynced > 0 {
		line, err := encodeEntry(time.Now().UTC(), a.gap)
		if err == nil {
			err = appendLine(f, line)
		}
		if err != nil {
			a.noteReason(err)
			return err
		}
		told = true
	}
	written := 0
	var at0, at1 time.Time // the times of the first and last entry written here
	for len(a.held) > 0 {
		if err := appendLine(f, a.held[0].line); err != nil {
			a.noteReason(err)
			return err
		}
		if written == 0 {
			at0 = a.held[0].at
		}
		written, at1 = written+1, a.held[0].at
		a.heldB -= len(a.held[0].line)
		a.held = a.held[1:]
	}
	a.held = nil
	// A failed fsync leaves the entries just written in the file but perhaps not on the
	// disk (and the kernel may not report it again): the next gap says so, counted.
	if err := FsyncAt(SyncAudit, f); err != nil {
		a.unsure(written, at0, at1, err)
		return fmt.Errorf("audit: fsync %s: %w", a.path, err)
	}
	if a.newName { // a new file's name (and a rotation's) is durable only with its folder
		if err := SyncDirAt(SyncAuditFolder, filepath.Dir(a.path)); err != nil {
			a.unsure(written, at0, at1, err)
			return fmt.Errorf("audit: fsync %s: %w", filepath.Dir(a.path), err)
		}
		a.newName = false
	}
	if told {
		a.gap = AuditGap{}
	}
	if fi, err := f.Stat(); err == nil {
		_ = Reserve(f, fi.Size()+AuditReserve) // room for the next entries; a full disk shrinks it
	}
	return nil
}

// open opens the audit log to append add bytes, rotating it first if it would grow past
// auditRotateAt, and returns it locked (flock, released by Close). Rotation happens under
// the lock of the file rotated, and a process that opened a file another one rotated
// meanwhile opens again: two processes (a writer and the held entries of the one before
// it) never both rotate, so a rotated file is never pushed out by a nearly empty one.
// It never waits for the other process: while that one holds the lock the entries stay
// held and are tried again in the background. Call with a.mu held.
func (a *Audit) open(add int64) (*os.File, error) {
	for try := 0; ; try++ {
		f, err := OpenInHome(a.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if err != nil {
			return nil, err
		}
		if err := FlockFile(f, syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			f.Close() // another process appends (or is stopped while it did): held, tried again later
			return nil, fmt.Errorf("lock %s: %w", a.path, err)
		}
		fi, err := f.Stat()
		if err != nil {
			f.Close()
			return nil, err
		}
		if now, err := os.Lstat(a.path); err != nil || !os.SameFile(fi, now) {
			f.Close() // rotated by another process since we opened it
			if try < 16 {
				continue
			}
			return nil, fmt.Errorf("%s keeps being replaced while it is opened", a.path)
		}
		if fi.Size() == 0 {
			a.newName = true // perhaps made by this open: its name is durable with its folder
		}
		// A log at least half full is rotated when the entries would take it past
		// auditRotateAt; a younger one takes them (held entries may be many), so a rotated
		// file is never a nearly empty one.
		if fi.Size() < auditRotateAt/2 || fi.Size()+add <= auditRotateAt {
			return f, nil
		}
		auditRotateHook()
		err = os.Rename(a.path, a.path+".1")
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("rotate %s: %w", a.path, err)
		}
		a.newName = true
	}
}

// unsure counts n entries written (from, to: their times) whose sync failed with err in
// the next gap record: they may be missing after a crash. Call with a.mu held.
func (a *Audit) unsure(n int, from, to time.Time, err error) {
	if n == 0 {
		return
	}
	if a.gap.Lost == 0 && a.gap.Unsynced == 0 || from.Before(a.gap.From) {
		a.gap.From = from
	}
	if to.After(a.gap.To) {
		a.gap.To = to
	}
	a.gap.Unsynced += n
	a.noteReason(err)
	a.retryLater() // the gap itself is written by the next flush, or by the retry
}

// noteReason keeps why the disk refused an entry, for the gap record.
func (a *Audit) noteReason(err error) {
	var pe *os.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	a.gap.Reason = err.Error()
}

// appendLine appends line whole or not at all: a write the disk cut short is taken back,
// so the log never holds half an entry that the next one would run into.
func appendLine(f *os.File, line []byte) error {
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	n, err := f.Write(line)
	if err != nil && n > 0 {
		_ = f.Truncate(fi.Size())
	}
	return err
}

// retryLater tries the held entries again in the background, backing off up to 10 s,
// until they are written or Close. Call with a.mu held.
func (a *Audit) retryLater() {
	if a.closed || a.retry != nil {
		return
	}
	a.backoff = min(max(2*a.backoff, 250*time.Millisecond), 10*time.Second)
	a.retry = time.AfterFunc(a.backoff, func() {
		a.mu.Lock()
		defer a.mu.Unlock()
		a.retry = nil
		if a.closed {
			return
		}
		if a.flush() != nil {
			a.retryLater()
		} else {
			a.backoff = 0
		}
	})
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
	out = lastOfEachGap(out)
	if max > 0 && len(out) > max {
		out = out[len(out)-max:]
	}
	return out, nil
}

// lastOfEachGap drops every record of a gap but its last: a gap whose record could not be
// synced is written again, with the same pid and From, counting what was added since.
func lastOfEachGap(es []Entry) []Entry {
	type gapKey struct {
		pid  int
		from time.Time
	}
	last := map[gapKey]int{}
	keys := make([]*gapKey, len(es))
	for i, e := range es {
		var g AuditGap
		if e.Kind != KindAuditGap || e.Decode(&g) != nil {
			continue
		}
		k := gapKey{e.PID, g.From.UTC()}
		last[k], keys[i] = i, &k
	}
	out := es[:0]
	for i, e := range es {
		if keys[i] == nil || last[*keys[i]] == i {
			out = append(out, e)
		}
	}
	return out
}
