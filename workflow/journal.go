package workflow

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
	"unicode/utf8"

	"baton/store"
)

// The run journal, runs/<id>.events: the truth about a run executed by a supervisor.
// The supervisor appends one JSON object per line, so every process sees a record as soon
// as it is written, and makes each step and end record durable (fdatasync, and once the
// folder's fsync for the file's name) before it acts on having written it. The start
// record alone is not synced by itself: it becomes durable with the first step's record.
// A machine crash kills every process, so it can only matter after a reboot, and then a
// run without an end record is failed or re-queued whether its journal shows a start or
// nothing; not syncing it keeps two syncs off the path from start_run to the first step.
// The file is created once (O_EXCL) by the run's supervisor, with the room of every record
// the run can write reserved on disk (so a full disk cannot keep its end from being
// recorded), and never rewritten; only the writer folds it into workflows.json (see
// ReadJournal).
//
// Records, in the only order a supervisor writes them:
//
//	{"type":"start","at":T,"pid":P,"start":TICKS,"boot":B}
//	{"type":"step_start","at":T,"step":I,"pid":P,"pgid":G,"start":TICKS}   (per step)
//	{"type":"step_end","at":T,"step":I,"exit":N|null,"error":"..."}        (per step)
//	{"type":"end","at":T,"status":"succeeded|failed|cancelled","error":"...","exit":N|null,
//	 "log_cut":{"kept":N,"reason":"..."}}                                   (log_cut only if cut)
//
// A step that could not be started has a step_end without a step_start.

// Journal record types.
const (
	recStart     = "start"
	recStepStart = "step_start"
	recStepEnd   = "step_end"
	recEnd       = "end"
)

// ErrJournal is returned by ReadJournal when a journal line other than a torn last line
// is malformed or out of order; the message names the file and the line.
var ErrJournal = errors.New("malformed run journal")

// Journal is a run's journal folded into one value.
type Journal struct {
	SupervisorPID   int       // pid of the supervisor that wrote the journal
	SupervisorStart uint64    // its start time, clock ticks since boot
	Boot            string    // kernel boot id when it ran
	Started         time.Time // when the supervisor recorded its start
	Steps           []JournalStep
	Ended           bool          // the end record is present
	EndedAt         time.Time     // when the run ended (if Ended)
	Status          string        // succeeded, failed or cancelled (if Ended)
	Error           string        // why it failed or was cancelled (if Ended)
	Exit            *int          // the last step's exit code (if Ended; nil if it had none)
	LogCut          *store.LogCut // the run's log could not be written whole (if Ended)
	Torn            bool          // an incomplete last line (a crash mid-append) was ignored
}

// JournalStep is one step as far as the journal tells.
type JournalStep struct {
	Index   int       // 0-based step index
	PID     int       // the step's process (0 if it could not be started)
	PGID    int       // its process group (equal to PID)
	Start   uint64    // its start time, clock ticks since boot
	Started time.Time // when it was recorded started
	Ended   bool      // step_end is present
	EndedAt time.Time
	Exit    *int   // its exit code; nil if it had none (not started, killed)
	Error   string // why it failed, was killed or timed out
}

// Records as written. Each type has its own struct so that "exit" is written as null
// rather than left out when a step has no exit code.
type (
	startRec struct {
		Type  string    `json:"type"`
		At    time.Time `json:"at"`
		PID   int       `json:"pid"`
		Start uint64    `json:"start"`
		Boot  string    `json:"boot"`
	}
	stepStartRec struct {
		Type  string    `json:"type"`
		At    time.Time `json:"at"`
		Step  int       `json:"step"`
		PID   int       `json:"pid"`
		PGID  int       `json:"pgid"`
		Start uint64    `json:"start"`
	}
	stepEndRec struct {
		Type  string    `json:"type"`
		At    time.Time `json:"at"`
		Step  int       `json:"step"`
		Exit  *int      `json:"exit"`
		Error string    `json:"error"`
	}
	endRec struct {
		Type   string        `json:"type"`
		At     time.Time     `json:"at"`
		Status string        `json:"status"`
		Error  string        `json:"error"`
		Exit   *int          `json:"exit"`
		LogCut *store.LogCut `json:"log_cut,omitempty"`
	}
)

// anyRec is any record as read: the union of the fields above.
type anyRec struct {
	Type   string        `json:"type"`
	At     time.Time     `json:"at"`
	PID    int           `json:"pid"`
	Start  uint64        `json:"start"`
	Boot   string        `json:"boot"`
	Step   *int          `json:"step"`
	PGID   int           `json:"pgid"`
	Exit   *int          `json:"exit"`
	Status string        `json:"status"`
	Error  string        `json:"error"`
	LogCut *store.LogCut `json:"log_cut"`
}

// journalWriter appends records to a journal. Used by the supervisor's main goroutine only.
type journalWriter struct {
	f     *os.File
	path  string
	named bool // the file's name is durable (its folder was fsynced)
}

// createJournal creates the journal at path (it must not exist) for a run of steps
// steps, with the room every record of the run can take reserved on disk (see
// journalRoom): once it returns, a full disk cannot keep the run's steps and end from
// being recorded. A disk too full for that room is an error naming it; no file is left.
// The name is made durable with the first synced record.
func createJournal(path string, steps int) (*journalWriter, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("create journal: %w", err)
	}
	if err := store.Reserve(f, journalRoom(steps)); err != nil {
		_ = f.Close()
		_ = os.Remove(path)
		return nil, fmt.Errorf("reserve %s of room for the run's journal %s: %w", store.HumanBytes(journalRoom(steps)), path, err)
	}
	return &journalWriter{f: f, path: path}, nil
}

// maxRecText is the longest error text a journal record carries (clip cuts longer ones):
// it bounds a record, so that the room reserved for the journal always holds the run.
const maxRecText = 512

// journalRoom is the room the records of a run of steps steps take at most: the start
// record, a step_start and a step_end per step and the end record, each with room for an
// error text of maxRecText bytes as JSON escapes it (at most 6 bytes a byte).
func journalRoom(steps int) int64 {
	const rec = 512 + 6*maxRecText
	return int64(2+2*steps) * rec
}

// clip cuts s to at most maxRecText bytes, on a rune boundary, marking the cut.
func clip(s string) string {
	if len(s) <= maxRecText {
		return s
	}
	const mark = " …"
	cut := maxRecText - len(mark)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + mark
}

// write writes rec as one line in a single write: every process sees it at once, and it
// is durable once a later append returns.
func (j *journalWriter) write(rec any) error {
	b, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("journal %s: %w", j.path, err)
	}
	if _, err := j.f.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("journal %s: %w", j.path, err)
	}
	return nil
}

// append writes rec as write does and returns once it, every record before it and the
// journal's name are on disk.
func (j *journalWriter) append(rec any) error {
	if err := j.write(rec); err != nil {
		return err
	}
	store.Failpoint("journal.after-write")
	if err := store.DatasyncAt(store.SyncJournal, j.f); err != nil {
		return fmt.Errorf("journal %s: fdatasync: %w", j.path, err)
	}
	if !j.named {
		if err := store.SyncDirAt(store.SyncJournalFolder, filepath.Dir(j.path)); err != nil {
			return fmt.Errorf("journal %s: fsync of its folder: %w", j.path, err)
		}
		j.named = true
	}
	return nil
}

// ReadJournal reads and folds the journal of run runID in home. It does not block on the
// supervisor and may be called while the supervisor appends: the answer is then the
// journal as far as it was written. An incomplete last line (no newline: a crash in the
// middle of an append, or, while the supervisor lives, a line being written at that
// instant) is ignored and reported in Journal.Torn; any other bad line is an
// ErrJournal naming the file and line. A missing journal is an error wrapping
// fs.ErrNotExist.
func ReadJournal(home, runID string) (Journal, error) {
	path := journalPath(home, runID)
	b, err := store.ReadInHome(path)
	if err != nil {
		return Journal{}, err
	}
	return foldJournal(path, b)
}

func foldJournal(path string, b []byte) (Journal, error) {
	var j Journal
	if i := bytes.LastIndexByte(b, '\n'); i+1 < len(b) {
		j.Torn = true
		b = b[:i+1]
	}
	for n, line := range bytes.SplitAfter(b, []byte("\n")) {
		if len(line) == 0 {
			continue // after the last newline
		}
		var r anyRec
		if err := json.Unmarshal(line, &r); err != nil {
			return j, fmt.Errorf("%w: %s line %d: %v", ErrJournal, path, n+1, err)
		}
		if err := j.apply(r); err != nil {
			return j, fmt.Errorf("%w: %s line %d: %v", ErrJournal, path, n+1, err)
		}
	}
	return j, nil
}

// apply folds one record into j, checking that it comes in the order a supervisor writes.
func (j *Journal) apply(r anyRec) error {
	if r.Type != recStart && j.SupervisorPID == 0 {
		return fmt.Errorf("%q record before the start record", r.Type)
	}
	if j.Ended {
		return fmt.Errorf("%q record after the end record", r.Type)
	}
	var last *JournalStep
	if len(j.Steps) > 0 {
		last = &j.Steps[len(j.Steps)-1]
	}
	switch r.Type {
	case recStart:
		if j.SupervisorPID != 0 {
			return errors.New("a second start record")
		}
		if r.PID <= 0 {
			return errors.New("start record without a pid")
		}
		j.SupervisorPID, j.SupervisorStart, j.Boot, j.Started = r.PID, r.Start, r.Boot, r.At
	case recStepStart:
		if r.Step == nil || *r.Step != len(j.Steps) || (last != nil && !last.Ended) {
			return fmt.Errorf("step_start %s out of order after %d steps", stepName(r.Step), len(j.Steps))
		}
		j.Steps = append(j.Steps, JournalStep{Index: *r.Step, PID: r.PID, PGID: r.PGID, Start: r.Start, Started: r.At})
	case recStepEnd:
		switch {
		case r.Step != nil && last != nil && !last.Ended && *r.Step == last.Index:
		case r.Step != nil && *r.Step == len(j.Steps) && (last == nil || last.Ended):
			j.Steps = append(j.Steps, JournalStep{Index: *r.Step}) // it could not be started
			last = &j.Steps[len(j.Steps)-1]
		default:
			return fmt.Errorf("step_end %s does not match a started step", stepName(r.Step))
		}
		last.Ended, last.EndedAt, last.Exit, last.Error = true, r.At, r.Exit, r.Error
	case recEnd:
		if last != nil && !last.Ended {
			return fmt.Errorf("end record while step %d has not ended", last.Index)
		}
		if !knownEndStatus(r.Status) {
			return fmt.Errorf("end record with unknown status %q", r.Status)
		}
		j.Ended, j.EndedAt, j.Status, j.Error, j.Exit, j.LogCut = true, r.At, r.Status, r.Error, r.Exit, r.LogCut
	default:
		return fmt.Errorf("unknown record type %q", r.Type)
	}
	return nil
}

func knownEndStatus(s string) bool {
	return s == store.StatusSucceeded || s == store.StatusFailed || s == store.StatusCancelled
}

func stepName(i *int) string {
	if i == nil {
		return "without a step index"
	}
	return fmt.Sprint(*i)
}
