package view

import (
	"fmt"
	"time"

	"baton/store"
)

// RunRow is what one row of the runs list shows.
type RunRow struct {
	Tone     Tone   // the status's look, for the icon
	Title    string // "r12 backup · task"
	Step     string // the progress bar's text
	Progress float64
	Duration string // how long it ran, or its status if it never started
	Owner    string
}

// RowOf is the row of run r; self is this window's pid.
func RowOf(r *store.Run, self int, now time.Time) RunRow {
	row := RunRow{Tone: StatusTone(r.Status), Title: r.ID + "  " + r.Workflow, Step: StepText(r), Progress: Progress(r),
		Owner: OwnerText(r, self)}
	if r.Task != "" {
		row.Title += " · " + r.Task
	}
	if d := RunDuration(r, now); d > 0 {
		row.Duration = Human(d)
	} else {
		row.Duration = r.Status
	}
	return row
}

// RunFacts is what the run view shows of one run.
type RunFacts struct {
	Title    string
	Status   string // the status, and whether a cancel was asked for
	Tone     Tone   // the status's look, for the icon
	Step     string
	Progress float64
	Exit     string
	Error    string // "" hides the error line
	Owner    string
	// Supervisor names the run's supervisor process ("supervisor pid 812"), running or
	// finished; "" when the run has none (queued, or from before supervisors).
	Supervisor string
	Times      string
}

// FactsOf is what the run view shows of r; self is this window's pid.
func FactsOf(r *store.Run, self int, now time.Time) RunFacts {
	f := RunFacts{Title: fmt.Sprintf("Run %s of %s", r.ID, r.Workflow), Status: r.Status, Tone: StatusTone(r.Status),
		Step: StepText(r), Progress: Progress(r), Owner: OwnerText(r, self), Times: RunTimes(r, now)}
	if r.Task != "" {
		f.Title += " · " + r.Task
	}
	if r.CancelRequested && r.Active() {
		f.Status += " (cancel requested)"
	}
	switch {
	case r.ExitCode != nil:
		f.Exit = fmt.Sprintf("%d", *r.ExitCode)
	case r.Active():
		f.Exit = "—"
	default:
		f.Exit = "none (the step did not exit by itself)"
	}
	if r.Error != "" {
		f.Error = "Error: " + r.Error
	}
	if r.OwnerPID == 0 {
		f.Owner = "none yet"
	}
	if r.SupervisorPID != 0 {
		f.Supervisor = fmt.Sprintf("supervisor pid %d", r.SupervisorPID)
	}
	return f
}

// RunTimes says when r was queued, or started and ended, and how long it took.
func RunTimes(r *store.Run, now time.Time) string {
	if r.Started.IsZero() {
		return "queued at " + Clock(r.Created, now)
	}
	s := "started " + Clock(r.Started, now)
	if !r.Ended.IsZero() {
		s += ", ended " + Clock(r.Ended, now)
	}
	return s + ", " + Human(RunDuration(r, now))
}

// MayCancel reports whether a window that may write (writable) may ask to cancel r (nil:
// no run chosen): only an active run.
func MayCancel(writable bool, r *store.Run) bool { return writable && r != nil && r.Active() }

// CancelEnabled reports whether the Cancel button is enabled: the run may be cancelled
// and no cancel was asked for yet.
func CancelEnabled(writable bool, r *store.Run) bool {
	return MayCancel(writable, r) && !r.CancelRequested
}

// CancelResult is the run view's note after a cancel: "" when it went through.
func CancelResult(err error) string {
	if err != nil {
		return "Not cancelled: " + ErrText(err)
	}
	return ""
}

// NoteChange says what the run view's note does when the role or the run changes.
type NoteChange int

// Note changes.
const (
	NoteKeep   NoteChange = iota // leave the note as it is
	NoteReason                   // show why Cancel is disabled (the read-only reason)
	NoteClear                    // clear the reason shown before
)

// RoleNote decides the run view's note: a read-only window showing an active run says
// why Cancel is disabled, unless the note already shows something else (a cancel
// result); the reason goes when it no longer applies. roleNote says the note now shows
// the reason; noteShown that it shows anything.
func RoleNote(writable bool, r *store.Run, roleNote, noteShown bool) NoteChange {
	switch {
	case r != nil && r.Active() && !writable && (roleNote || !noteShown):
		return NoteReason
	case roleNote:
		return NoteClear
	}
	return NoteKeep
}

// AnyRunning reports whether a run of doc is running: then durations and the live log
// change with time.
func AnyRunning(doc *store.Doc) bool {
	for i := len(doc.Runs) - 1; i >= 0; i-- {
		if doc.Runs[i].Status == store.StatusRunning {
			return true
		}
	}
	return false
}
