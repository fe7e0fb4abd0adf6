package view

import (
	"testing"

	"baton/store"
)

// TestExitAndErrorReadTheSameForTheSameCase: a step with no exit code reads the same
// whether its record holds none or a negative code; a step is named once; a program that
// could not start says so in plain words, without fork/exec.
func TestExitAndErrorReadTheSameForTheSameCase(t *testing.T) {
	minus, three := -1, 3
	stopped := "none: the step was stopped before it exited"
	for _, c := range []struct {
		name string
		r    store.Run
		exit string
		err  string
	}{
		{"killed, no code recorded", store.Run{Status: store.StatusFailed, Error: "step 1 (step 1) was killed: signal: killed"},
			stopped, "step 1 was killed: signal: killed"},
		{"killed, recorded as -1", store.Run{Status: store.StatusFailed, ExitCode: &minus, Error: "step 1 (step 1) was killed: signal: killed"},
			stopped, "step 1 was killed: signal: killed"},
		{"cancelled", store.Run{Status: store.StatusCancelled, ExitCode: &minus, Error: "step 2 (build) was cancelled: cancelled by request"},
			stopped, "step 2 (build) was cancelled: cancelled by request"},
		{"exited", store.Run{Status: store.StatusFailed, ExitCode: &three, Error: "step 1 (step 1) exited with code 3"},
			"3", "step 1 exited with code 3"},
		{"no such program", store.Run{Status: store.StatusFailed,
			Error: `step 1 (step 1): cannot start "x": fork/exec: no such file or directory`},
			"none: the step could not start", `step 1 could not start: program "x" not found`},
		{"no such program on PATH", store.Run{Status: store.StatusFailed,
			Error: `step 2 (fetch): cannot start "curlz": executable file not found in $PATH`},
			"none: the step could not start", `step 2 (fetch) could not start: program "curlz" not found`},
		{"not executable", store.Run{Status: store.StatusFailed,
			Error: `step 1 (step 1): cannot start "/tmp/a.txt": fork/exec /tmp/a.txt: permission denied`},
			"none: the step could not start", `step 1 could not start: program "/tmp/a.txt" may not be run (permission denied)`},
		{"running", store.Run{Status: store.StatusRunning}, "—", ""},
	} {
		f := FactsOf(&c.r, 1, at(12, 0, 0))
		want := ""
		if c.err != "" {
			want = "Error: " + c.err
		}
		if f.Exit != c.exit || f.Error != want {
			t.Errorf("%s: exit %q, error %q; want %q, %q", c.name, f.Exit, f.Error, c.exit, want)
		}
	}
}
