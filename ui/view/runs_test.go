package view

import (
	"errors"
	"testing"
	"time"

	"baton/host"
	"baton/store"
)

func TestRowOf(t *testing.T) {
	now := at(12, 0, 0)
	for _, c := range []struct {
		name string
		r    store.Run
		want RunRow
	}{
		{"queued", store.Run{ID: "r1", Workflow: "w", Status: store.StatusQueued, Steps: 2},
			RunRow{Tone: ToneDisabled, Title: "r1  w", Step: "waiting", Duration: store.StatusQueued}},
		{"running here, with a task", store.Run{ID: "r2", Workflow: "w", Task: "photos", Status: store.StatusRunning, Steps: 4, Step: 1,
			OwnerPID: 10, Started: at(11, 58, 0)},
			RunRow{Tone: TonePrimary, Title: "r2  w · photos", Step: "step 2 of 4", Progress: 0.25, Duration: "11:58 · 2 min 00 s", Owner: "pid 10 (this window)"}},
		{"failed elsewhere", store.Run{ID: "r3", Workflow: "w", Status: store.StatusFailed, Steps: 1, OwnerPID: 11,
			Started: at(11, 0, 0), Ended: at(11, 0, 3)},
			RunRow{Tone: ToneError, Title: "r3  w", Step: "failed at 1/1", Duration: "11:00 · 3.0 s", Owner: "pid 11"}},
	} {
		if got := RowOf(&c.r, 10, now); got != c.want {
			t.Errorf("%s:\n got %+v\nwant %+v", c.name, got, c.want)
		}
	}
}

func TestFactsOf(t *testing.T) {
	now := at(12, 0, 0)
	three := 3
	for _, c := range []struct {
		name string
		r    store.Run
		want RunFacts
	}{
		{"queued", store.Run{ID: "r1", Workflow: "w", Status: store.StatusQueued, Steps: 1, Created: at(11, 59, 0)},
			RunFacts{Title: "Run r1 of w", Status: "queued", Tone: ToneDisabled, Step: "waiting", Exit: "—", Owner: "none yet", Times: "queued at 11:59"}},
		{"running, cancel asked", store.Run{ID: "r2", Workflow: "w", Task: "t", Status: store.StatusRunning, CancelRequested: true, Steps: 2,
			OwnerPID: 10, Started: at(11, 59, 0)},
			RunFacts{Title: "Run r2 of w · t", Status: "running (cancel requested)", Tone: TonePrimary, Step: "step 1 of 2", Exit: "—",
				Owner: "pid 10 (this window)", Times: "started 11:59, 1 min 00 s"}},
		{"failed with a code", store.Run{ID: "r3", Workflow: "w", Status: store.StatusFailed, Steps: 1, ExitCode: &three, Error: "exit code 3",
			OwnerPID: 11, Started: at(11, 0, 0), Ended: at(11, 0, 30)},
			RunFacts{Title: "Run r3 of w", Status: "failed", Tone: ToneError, Step: "failed at step 1 of 1", Exit: "3", Error: "Error: exit code 3",
				Owner: "pid 11", Times: "started 11:00, ended 11:00, 30 s"}},
		{"cancelled (a cancel asked of a finished run says nothing)", store.Run{ID: "r4", Workflow: "w", Status: store.StatusCancelled,
			CancelRequested: true, Steps: 1, OwnerPID: 11, Started: at(11, 0, 0), Ended: at(11, 1, 0)},
			RunFacts{Title: "Run r4 of w", Status: "cancelled", Tone: ToneWarning, Step: "cancelled at step 1 of 1",
				Exit: "none: the step was stopped before it exited", Owner: "pid 11", Times: "started 11:00, ended 11:01, 1 min 00 s"}},
		{"running under a supervisor", store.Run{ID: "r5", Workflow: "w", Status: store.StatusRunning, Steps: 1, OwnerPID: 10,
			SupervisorPID: 812, Started: at(11, 59, 0)},
			RunFacts{Title: "Run r5 of w", Status: "running", Tone: TonePrimary, Step: "step 1 of 1", Exit: "—",
				Owner: "pid 10 (this window)", Supervisor: "supervisor pid 812", Times: "started 11:59, 1 min 00 s"}},
		{"finished under a supervisor", store.Run{ID: "r6", Workflow: "w", Status: store.StatusSucceeded, Steps: 1, ExitCode: new(int),
			OwnerPID: 11, SupervisorPID: 813, Started: at(11, 0, 0), Ended: at(11, 0, 30)},
			RunFacts{Title: "Run r6 of w", Status: "succeeded", Tone: ToneSuccess, Step: "done, 1 step", Progress: 1, Exit: "0",
				Owner: "pid 11", Supervisor: "supervisor pid 813", Times: "started 11:00, ended 11:00, 30 s"}},
	} {
		if got := FactsOf(&c.r, 10, now); got != c.want {
			t.Errorf("%s:\n got %+v\nwant %+v", c.name, got, c.want)
		}
	}
	// A run of another day shows the date.
	r := store.Run{Created: at(9, 0, 0).AddDate(0, 0, -2)}
	if got := RunTimes(&r, now); got != "queued at 2 May 09:00" {
		t.Errorf("RunTimes of an old run = %q", got)
	}
}

func TestCancelDecisions(t *testing.T) {
	running := &store.Run{Status: store.StatusRunning}
	queued := &store.Run{Status: store.StatusQueued}
	asked := &store.Run{Status: store.StatusRunning, CancelRequested: true}
	done := &store.Run{Status: store.StatusSucceeded}
	for _, c := range []struct {
		name            string
		writable        bool
		r               *store.Run
		mayCancel, butn bool
	}{
		{"writer, running", true, running, true, true},
		{"writer, queued", true, queued, true, true},
		{"writer, cancel asked", true, asked, true, false},
		{"writer, finished", true, done, false, false},
		{"writer, no run", true, nil, false, false},
		{"reader, running: forwarded to the writer", false, running, true, true},
		{"reader, finished", false, done, false, false},
	} {
		if got := MayCancel(c.r); got != c.mayCancel {
			t.Errorf("%s: MayCancel = %v", c.name, got)
		}
		if got := CancelEnabled(c.r); got != c.butn {
			t.Errorf("%s: CancelEnabled = %v", c.name, got)
		}
	}
	if got := CancelResult(nil, 0); got != "" {
		t.Errorf("CancelResult(nil) = %q", got)
	}
	if got := CancelResult(nil, 41); got != "Cancelled (sent to the writer, pid 41)." {
		t.Errorf("CancelResult(forwarded) = %q", got)
	}
	if got := CancelResult(&host.ReadOnlyError{WriterPID: 9}, 0); got != "Not cancelled: read-only: window pid 9 is the writer; make changes there" {
		t.Errorf("CancelResult(read-only) = %q", got)
	}
	if got := CancelResult(errors.New("gone"), 0); got != "Not cancelled: gone" {
		t.Errorf("CancelResult = %q", got)
	}
}

func TestRoleNote(t *testing.T) {
	running := &store.Run{Status: store.StatusRunning}
	done := &store.Run{Status: store.StatusFailed}
	for _, c := range []struct {
		name                string
		writable            bool
		r                   *store.Run
		roleNote, noteShown bool
		want                NoteChange
	}{
		{"reader, active run, empty note: say why", false, running, false, false, NoteReason},
		{"reader, active run, reason shown: keep saying it", false, running, true, true, NoteReason},
		{"reader, active run, a cancel result shown: leave it", false, running, false, true, NoteKeep},
		{"reader, finished run, reason shown: clear it", false, done, true, true, NoteClear},
		{"became the writer, reason shown: clear it", true, running, true, true, NoteClear},
		{"writer, a cancel result shown: leave it", true, running, false, true, NoteKeep},
		{"reader, no run, nothing shown", false, nil, false, false, NoteKeep},
	} {
		if got := RoleNote(c.writable, c.r, c.roleNote, c.noteShown); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

func TestAnyRunning(t *testing.T) {
	for _, c := range []struct {
		statuses []string
		want     bool
	}{
		{nil, false},
		{[]string{store.StatusQueued, store.StatusSucceeded}, false},
		{[]string{store.StatusRunning, store.StatusSucceeded}, true},
	} {
		doc := &store.Doc{}
		for _, s := range c.statuses {
			doc.Runs = append(doc.Runs, store.Run{Status: s, Started: time.Now()})
		}
		if got := AnyRunning(doc); got != c.want {
			t.Errorf("AnyRunning(%v) = %v", c.statuses, got)
		}
	}
}
