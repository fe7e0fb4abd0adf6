package view

import (
	"baton/store"
	"baton/workflow"
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
// and how, who cancelled it); "" while the run is active. The writer writes it into the
// log (workflow.EndLine); the window draws it only after a log that lacks it.
func EndLine(r *store.Run) string { return workflow.EndLine(r) }

// EndsWithLine reports whether log ends with line as a whole line of its own: a log the
// writer ended with its EndLine (workflow.EndsWithLine).
func EndsWithLine(log, line string) bool { return workflow.EndsWithLine(log, line) }
