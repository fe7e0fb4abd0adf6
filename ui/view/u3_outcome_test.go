package view

import (
	"strings"
	"testing"

	"baton/store"
)

// TestOutcomeAndEndLine (issue 22, daily use 1): a finished run says how it ended, first
// in the run view and last in its log: which step failed and how, who cancelled it.
func TestOutcomeAndEndLine(t *testing.T) {
	code := 2
	failed := store.Run{Status: store.StatusFailed, Steps: 3, Step: 1, ExitCode: &code, Error: "step 2 (build) exited with code 2"}
	cancelled := store.Run{Status: store.StatusCancelled, Steps: 2, Error: "cancelled by window pid 41"}
	ok0 := 0
	done := store.Run{Status: store.StatusSucceeded, Steps: 2, Step: 1, ExitCode: &ok0}
	for _, c := range []struct {
		r             store.Run
		outcome, line string
	}{
		{failed, "Failed: step 2 (build) exited with code 2", "== run failed at step 2 of 3: step 2 (build) exited with code 2"},
		{cancelled, "Cancelled: cancelled by window pid 41", "== run cancelled at step 1 of 2: cancelled by window pid 41"},
		{done, "", "== run succeeded: 2 steps ran, exit code 0"},
		{store.Run{Status: store.StatusRunning}, "", ""},
	} {
		if got := Outcome(&c.r); got != c.outcome {
			t.Errorf("%s: outcome %q, want %q", c.r.Status, got, c.outcome)
		}
		if got := EndLine(&c.r); !strings.HasPrefix(got, c.line) || (c.line == "") != (got == "") {
			t.Errorf("%s: end line %q, want %q", c.r.Status, got, c.line)
		}
	}
	if row := RowOf(&failed, 0, at(12, 0, 0)); !strings.Contains(row.Step, "failed") {
		t.Errorf("a failed run's row says %q: not the word failed", row.Step)
	}
	started := store.Run{Status: store.StatusSucceeded, Started: at(9, 30, 0), Ended: at(9, 31, 0)}
	if row := RowOf(&started, 0, at(12, 0, 0)); !strings.Contains(row.Duration, "09:30") {
		t.Errorf("a run's row says %q: not when it started", row.Duration)
	}
}
