package view

import (
	"fmt"
	"strings"
	"time"

	"baton/host"
	"baton/store"
	"baton/workflow"
)

// TakeoverNoteFor is how long the role bar keeps saying what the last takeover did.
const TakeoverNoteFor = 2 * time.Minute

// RoleOf is the role of a window's status.
func RoleOf(st host.Status) host.Role { return st.Role }

// Writable reports whether the window may write: only the writer may.
func Writable(st host.Status) bool { return RoleOf(st) == host.RoleWriter }

// RoleTone is how the role bar looks for a role.
func RoleTone(r host.Role) Tone {
	switch r {
	case host.RoleWriter:
		return ToneSuccess
	case host.RolePromoting:
		return TonePrimary
	case host.RoleClosed:
		return ToneDisabled
	}
	return ToneWarning
}

// RoleText is the role bar's text for a window's status, its last takeover and the
// document it shows. now decides whether the takeover note is still shown.
func RoleText(st host.Status, tk host.Takeover, doc *store.Doc, now time.Time) string {
	switch RoleOf(st) {
	case host.RoleWriter:
		if st.WriterMachine != "" && st.Problem != "" { // an etcd home it cannot reach: nothing is saved
			return "Read-only: " + st.Problem
		}
		quiet := tk.OldOwner == nil && len(tk.Reaped) == 0 && len(tk.Adopted) == 0 // the last writer closed: nothing to tell
		if tk.Epoch == 0 || quiet || now.Sub(tk.Completed) > TakeoverNoteFor {
			return "Writer"
		}
		return "Writer — " + TakeoverText(tk)
	case host.RolePromoting:
		return "Taking over…"
	case host.RoleClosed:
		return "Closed"
	}
	if st.Problem != "" {
		return "Read-only: " + st.Problem
	}
	if st.WriterPID > 0 {
		s := fmt.Sprintf("Read-only: window pid %d on this computer is writing", st.WriterPID)
		if st.WriterMachine != "" { // an etcd home: the writer may be on another machine
			s = fmt.Sprintf("Read-only: machine %s, window pid %d, is writing", st.WriterMachine, st.WriterPID)
		}
		if doc != nil && doc.Writer != nil && doc.Writer.PID == st.WriterPID && !doc.Writer.Since.IsZero() {
			s += fmt.Sprintf(" (since %s)", Clock(doc.Writer.Since, now))
		}
		return s
	}
	return "Read-only: waiting for the writer"
}

// TakeoverText says what a takeover did: "took over from pid 41, failed 2 runs it left
// running, 41 ms".
func TakeoverText(tk host.Takeover) string {
	var failed, requeued, recorded int
	for _, o := range tk.Reaped {
		switch o.Action {
		case workflow.ActionRequeued:
			requeued++
		case workflow.ActionRecorded:
			recorded++
		default:
			failed++
		}
	}
	var did []string
	if failed > 0 {
		did = append(did, "failed "+Plural(failed, "run", "runs"))
	}
	if requeued > 0 {
		did = append(did, "re-queued "+Plural(requeued, "run", "runs"))
	}
	var what []string
	if len(did) > 0 {
		what = append(what, strings.Join(did, " and ")+" it left running")
	}
	if n := len(tk.Adopted); n > 0 {
		what = append(what, "adopted "+Plural(n, "run", "runs")+" still going")
	}
	if recorded > 0 {
		what = append(what, "recorded "+Plural(recorded, "run", "runs")+" that finished meanwhile")
	}
	from := "became the writer" // the last writer closed normally
	switch {
	case tk.HandedOver && tk.OldOwner != nil: // nobody died: nothing was "left"
		from = fmt.Sprintf("pid %d handed over", tk.OldOwner.PID)
		if len(what) == 0 {
			what = append(what, "no runs were going")
		}
	case tk.OldOwner != nil:
		from = fmt.Sprintf("took over from pid %d", tk.OldOwner.PID)
	}
	if len(what) == 0 {
		what = append(what, "no runs were left running")
	}
	return fmt.Sprintf("%s, %s, %s", from, strings.Join(what, ", "), fmtMS(tk.TookMS))
}

func fmtMS(ms float64) string {
	if ms < 10 {
		return fmt.Sprintf("%.1f ms", ms)
	}
	return fmt.Sprintf("%.0f ms", ms)
}

// ReadOnlyReason is the reason shown next to disabled write controls; "" for a writer.
func ReadOnlyReason(st host.Status) string {
	switch RoleOf(st) {
	case host.RoleWriter:
		return ""
	case host.RolePromoting:
		return "Read-only while this window takes over; a moment…"
	case host.RoleClosed:
		return "This window is closed."
	}
	if st.Problem != "" {
		return "Read-only: " + st.Problem
	}
	if st.WriterPID > 0 {
		return fmt.Sprintf("Read-only: make changes in window pid %d, or close it and this window takes over. Your edits here are kept.", st.WriterPID)
	}
	return "Read-only until this window becomes the writer. Your edits here are kept."
}

// HandoverResult is what the role bar says after "Make this window the writer".
func HandoverResult(err error) string {
	if err != nil {
		return "Not handed over: " + err.Error()
	}
	return "This window is the writer now."
}
