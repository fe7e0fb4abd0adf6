package workflow

import (
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"

	"baton/store"
)

// The end line. A finished run's log ends with one line saying how the run ended: which
// step failed and how, who cancelled it, or that it succeeded. Whoever records the run's
// end writes it, in the update that records the end and before its save: the engine
// (recordEnd) and the reaper (ApplyReap). So the line is in the log before any reader
// can see the run ended (`baton logs --follow` stops there), and it is written once: an
// update tried again appends nothing when the log already ends with the line. The window
// shows the log's own line; it draws the line itself only for a log that lacks it (a run
// recorded before this line was written, or a log cut by a full disk).

// EndLine is the line that ends a finished run's log ("== run failed at step 2 of 3:
// step 2 (build) exited with code 2"); "" while the run is active.
func EndLine(r *store.Run) string {
	if r.Active() {
		return ""
	}
	switch r.Status {
	case store.StatusSucceeded:
		return fmt.Sprintf("== run succeeded: %s ran, exit code %s", plural(max(r.Steps, 1), "step", "steps"), ExitText(r))
	case store.StatusFailed, store.StatusCancelled:
		what := "failed"
		if r.Status == store.StatusCancelled {
			what = "cancelled"
		}
		s := "== run " + what
		if r.Steps > 0 {
			s += fmt.Sprintf(" at step %d of %d", r.Step+1, r.Steps)
		}
		if r.Error != "" {
			return s + ": " + ErrorText(r.Error)
		}
		return s + " (exit code " + ExitText(r) + ")"
	}
	return "== run " + r.Status
}

// EndsWithLine reports whether log ends with line as a whole line of its own.
func EndsWithLine(log, line string) bool {
	rest, ok := strings.CutSuffix(log, line+"\n")
	return ok && (rest == "" || strings.HasSuffix(rest, "\n"))
}

// writeEndLine appends r's end line to its log (r.Log), creating the log if the run
// never wrote one, unless the log already ends with it. A log cut by a full disk is left
// as it was cut (the run records the cut; the window says how it ended). It never follows
// a symbolic link (openRunLogAs). A write that fails is not an error of the run's end:
// the window draws the line for a log that lacks it.
func writeEndLine(r *store.Run) {
	line := EndLine(r)
	if line == "" || r.Log == "" || r.LogCut != nil {
		return
	}
	f, err := openRunLogAs(r.Log, os.O_RDWR)
	if err != nil {
		return
	}
	defer f.Close()
	tail, err := logTail(f, int64(len(line))+2)
	if err != nil || EndsWithLine(tail, line) {
		return
	}
	if tail != "" && !strings.HasSuffix(tail, "\n") {
		line = "\n" + line // the step's last line had no newline of its own
	}
	_, _ = f.Write([]byte(line + "\n"))
}

// logTail returns the last n bytes of f (all of it if shorter).
func logTail(f *os.File, n int64) (string, error) {
	fi, err := f.Stat()
	if err != nil {
		return "", err
	}
	off := max(0, fi.Size()-n)
	b, err := io.ReadAll(io.NewSectionReader(f, off, fi.Size()-off))
	return string(b), err
}

// ExitText is a run's exit code in words, the same wherever it shows: the code of a
// step that exited; "—" while the run is active; otherwise the step had no exit code
// (it could not start, or a signal or a cancel stopped it), which some records hold as
// a negative code.
func ExitText(r *store.Run) string {
	switch {
	case r.ExitCode != nil && *r.ExitCode >= 0:
		return strconv.Itoa(*r.ExitCode)
	case r.Active():
		return "—"
	case NotStarted(r.Error):
		return "none: the step could not start"
	}
	return "none: the step was stopped before it exited"
}

// stepPrefix matches a step's name in an error, "step 2 (step 2)" when the step has no
// name of its own.
var stepPrefix = regexp.MustCompile(`^step (\d+) \(([^()]*)\)`)

// startError matches the error of a step that could not start: what it ran and why.
var startError = regexp.MustCompile(`:? cannot start ("[^"]*"): (?:fork/exec[^:]*: )?(.*)$`)

// NotStarted reports whether a run's error says its step could not start.
func NotStarted(err string) bool { return startError.MatchString(err) }

// ErrorText is a run's error in plain words: a step is named once ("step 1", not "step 1
// (step 1)"), and a program that could not start says so without the system call's
// words ("step 1 could not start: program \"x\" not found").
func ErrorText(err string) string {
	if m := stepPrefix.FindStringSubmatch(err); m != nil && m[2] == "step "+m[1] {
		err = "step " + m[1] + err[len(m[0]):]
	}
	m := startError.FindStringSubmatchIndex(err)
	if m == nil {
		return err
	}
	prog, why := err[m[2]:m[3]], err[m[4]:m[5]]
	switch {
	case strings.Contains(why, "no such file or directory"), strings.Contains(why, "executable file not found"):
		why = "program " + prog + " not found"
	case strings.Contains(why, "permission denied"):
		why = "program " + prog + " may not be run (permission denied)"
	default:
		why = prog + ": " + why
	}
	return err[:m[0]] + " could not start: " + why
}

func plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}
