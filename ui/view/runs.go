package view

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"baton/host"
	"baton/store"
	"baton/workflow"
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
	row := RunRow{Tone: StatusTone(r.Status), Title: r.ID + "  " + r.Workflow, Step: rowStep(r), Progress: Progress(r),
		Owner: OwnerOn(r, self)}
	if r.Task != "" {
		row.Title += " · " + r.Task
	}
	if d := RunDuration(r, now); d > 0 {
		row.Duration = Clock(r.Started, now) + " · " + Human(d) // when it started, and for how long
	} else {
		row.Duration = r.Status
	}
	if r.LogCut != nil {
		row.Duration += " · " + LogCutMark // a cut log is never silent, even in a green row
	}
	return row
}

// rowStep is the bar's text in the runs list: StepText, without how a run ended, which
// the row's icon and the bar's colour show, so that it fits the narrow bar.
func rowStep(r *store.Run) string {
	if r.Steps > 0 && (r.Status == store.StatusFailed || r.Status == store.StatusCancelled) {
		return fmt.Sprintf("%s at %d/%d", r.Status, r.Step+1, r.Steps) // the word, not only the colour
	}
	return StepText(r)
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
	// finished; "" when the run has none (queued, or from before supervisors). On an etcd
	// home it names the machine ("supervisor pid 812 on machine laptop").
	Supervisor string
	// Machine is the whole name of the machine the run runs on when Supervisor and Owner
	// show it shortened (MachineShort); "" hides the line.
	Machine string
	Times   string
}

// LogGoneText is what the log pane shows for a finished run whose log file is gone.
const LogGoneText = "(This run's log is gone: history retention removed it, as the workflow's retention settings say, or it was deleted by hand.)\n"

// FactsOf is what the run view shows of r; self is this window's pid.
func FactsOf(r *store.Run, self int, now time.Time) RunFacts {
	f := RunFacts{Title: fmt.Sprintf("Run %s of %s", r.ID, r.Workflow), Status: r.Status, Tone: StatusTone(r.Status),
		Step: StepText(r), Progress: Progress(r), Owner: OwnerOn(r, self), Times: RunTimes(r, now)}
	if r.Task != "" {
		f.Title += " · " + r.Task
	}
	if r.CancelRequested && r.Active() {
		f.Status += " (cancel requested)"
	}
	f.Exit = ExitText(r)
	if r.Error != "" {
		f.Error = "Error: " + ErrorText(r.Error)
	}
	if r.OwnerPID == 0 {
		f.Owner = "none yet"
	}
	if r.SupervisorPID != 0 {
		f.Supervisor = fmt.Sprintf("supervisor pid %d", r.SupervisorPID)
		if r.Machine != "" {
			f.Supervisor += " on machine " + MachineShort(r.Machine)
		}
	}
	if MachineShort(r.Machine) != r.Machine {
		f.Machine = r.Machine
	}
	return f
}

// MaxMachineShown is the most characters of a machine's name a runs row and the run
// view's Window line show: a longer name ends in an ellipsis there and is whole on the
// run view's Machine line, so that no machine's name widens the window.
const MaxMachineShown = 24

// MachineShort is machine's name cut to MaxMachineShown characters, ending in an ellipsis
// when it was cut.
func MachineShort(machine string) string {
	if utf8.RuneCountInString(machine) <= MaxMachineShown {
		return machine
	}
	return string([]rune(machine)[:MaxMachineShown-1]) + "…"
}

// OwnerOn is OwnerText naming the machine the run runs on, when it has one (an etcd
// home): "pid 812 on laptop". A folder home's runs have none: OwnerText.
func OwnerOn(r *store.Run, self int) string {
	s := OwnerText(r, self)
	if s == "" || r.Machine == "" {
		return s
	}
	on := fmt.Sprintf("pid %d on %s", r.OwnerPID, MachineShort(r.Machine))
	if r.OwnerPID == self {
		on += " (this window)"
	}
	return on
}

// ExitText is a run's exit code in words, the same wherever it shows (workflow.ExitText).
func ExitText(r *store.Run) string { return workflow.ExitText(r) }

// ErrorText is a run's error in plain words (workflow.ErrorText): a step is named once,
// and a program that could not start says so without the system call's words.
func ErrorText(err string) string { return workflow.ErrorText(err) }

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

// MayCancel reports whether a window may ask to cancel r (nil: no run chosen): only an
// active run. Any open window may: a read-only one forwards the cancel to the writer.
func MayCancel(r *store.Run) bool { return r != nil && r.Active() }

// CancelEnabled reports whether the Cancel button is enabled: the run may be cancelled
// and no cancel was asked for yet.
func CancelEnabled(r *store.Run) bool { return MayCancel(r) && !r.CancelRequested }

// ForwardNote is what a read-only window says beside Cancel and Run now: they are sent
// to the writer.
func ForwardNote(st host.Status) string {
	if st.WriterPID > 0 {
		return fmt.Sprintf("Read-only window: Cancel and Run now are sent to the writer, window pid %d.", st.WriterPID)
	}
	return "Read-only window: Cancel and Run now are sent to the writer once there is one."
}

// SentText says what a window did with a forwarded run or cancel: "" when this window
// wrote it itself (forwardedTo 0).
func SentText(forwardedTo int) string {
	if forwardedTo == 0 {
		return ""
	}
	return fmt.Sprintf(" (sent to the writer, pid %d)", forwardedTo)
}

// CancelResult is the run view's note after a cancel: "" when this window cancelled it,
// "Cancelled (sent to the writer, pid N)." when it was forwarded there.
func CancelResult(err error, forwardedTo int) string {
	switch {
	case err != nil:
		return "Not cancelled: " + ErrText(err)
	case forwardedTo != 0:
		return "Cancelled" + SentText(forwardedTo) + "."
	}
	return ""
}

// NoteChange says what the run view's note does when the role or the run changes.
type NoteChange int

// Note changes.
const (
	NoteKeep   NoteChange = iota // leave the note as it is
	NoteReason                   // show the read-only note (Cancel is sent to the writer)
	NoteClear                    // clear the reason shown before
)

// RoleNote decides the run view's note: a read-only window showing an active run says
// that Cancel is sent to the writer, unless the note already shows something else (a cancel
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

// FoundText says how many log lines match the log's find text.
func FoundText(n int) string {
	if n == 0 {
		return "no line matches"
	}
	return Plural(n, "line matches", "lines match")
}

// CopiedText says what Copy put on the clipboard: the selection or the whole log, in
// lines and characters, and note (what part of a very long log it is).
func CopiedText(text string, selection bool, note string) string {
	lines := strings.Count(text, "\n")
	if text != "" && !strings.HasSuffix(text, "\n") {
		lines++
	}
	what := "Copied the whole log"
	if selection {
		what = "Copied the selection"
	}
	return fmt.Sprintf("%s: %s, %s%s", what, Plural(lines, "line", "lines"), Plural(utf8.RuneCountInString(text), "character", "characters"), note)
}
