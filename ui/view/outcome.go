package view

import (
	"fmt"

	"baton/store"
)

// Why did it fail? The run view says how a run ended first (Outcome, above its facts),
// its log ends with a line saying the same (EndLine), and the runs list says when a run
// started and, for one that did not succeed, the word (RowOf).

// Outcome is the run view's first line under the title: how the run ended, in words,
// with its error; "" while it is active or when it succeeded. A log cut by a full disk
// is said too (LogCutText), whatever the status: a "succeeded" with a cut log is never
// silent.
func Outcome(r *store.Run) string {
	how, cut := outcomeOf(r), LogCutText(r)
	switch {
	case cut == "":
		return how
	case how == "":
		return cut
	}
	return how + "\n" + cut
}

// LogCutText says that r's log was cut, where and why ("Log cut at 832.0 KiB: no space
// left on device"), or "".
func LogCutText(r *store.Run) string {
	if r.LogCut == nil {
		return ""
	}
	return "Log cut at " + store.HumanBytes(r.LogCut.Kept) + ": " + r.LogCut.Reason
}

// LogCutMark is the runs row's short marker of a run whose log was cut.
const LogCutMark = "log cut"

func outcomeOf(r *store.Run) string {
	switch r.Status {
	case store.StatusFailed:
		if r.Error == "" {
			return "Failed."
		}
		return "Failed: " + ErrorText(r.Error)
	case store.StatusCancelled:
		if r.Error == "" {
			return "Cancelled."
		}
		return "Cancelled: " + ErrorText(r.Error)
	}
	return ""
}

// EndLine is the line that ends a finished run's log: how it ended (which step failed
// and how, who cancelled it); "" while the run is active.
func EndLine(r *store.Run) string {
	if r.Active() {
		return ""
	}
	switch r.Status {
	case store.StatusSucceeded:
		return fmt.Sprintf("== run succeeded: %s ran, exit code %s", Plural(max(r.Steps, 1), "step", "steps"), ExitText(r))
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
