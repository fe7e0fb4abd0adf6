package workflow

import (
	"errors"
	"slices"
	"testing"

	"baton/store"
)

func renameDoc() *store.Doc {
	step := []store.Step{{Argv: []string{"true"}}}
	return &store.Doc{
		Workflows: []store.Workflow{{Name: "report", MaxConcurrent: 1, OnOwnerLost: "fail", Steps: step},
			{Name: "other", MaxConcurrent: 1, OnOwnerLost: "fail", Steps: step}},
		Runs: []store.Run{{ID: "r1", Workflow: "report", Status: store.StatusSucceeded},
			{ID: "r2", Workflow: "report", Status: store.StatusRunning},
			{ID: "r3", Workflow: "report", Status: store.StatusQueued},
			{ID: "r4", Workflow: "other", Status: store.StatusFailed}},
		Schedules: []store.Schedule{{ID: "s1", Workflow: "report"}, {ID: "s2", Workflow: "other"}},
	}
}

// TestRenameWorkflowRunsAndSchedulesFollow: the definition, every run (finished, running,
// queued) and every schedule of the workflow take the new name in one change; the other
// workflow's are left alone; the lane still counts the running run under the new name.
func TestRenameWorkflowRunsAndSchedulesFollow(t *testing.T) {
	d := renameDoc()
	got, err := RenameWorkflow(d, "report", "  weekly report ")
	if err != nil || got != "weekly report" {
		t.Fatalf("rename = %q, %v", got, err)
	}
	if d.Workflow("report") != nil || d.Workflow("weekly report") == nil {
		t.Fatalf("workflows %v", namesOf(d))
	}
	var runs, scheds []string
	for _, r := range d.Runs {
		runs = append(runs, r.Workflow)
	}
	for _, s := range d.Schedules {
		scheds = append(scheds, s.Workflow)
	}
	if want := []string{"weekly report", "weekly report", "weekly report", "other"}; !slices.Equal(runs, want) {
		t.Errorf("runs' workflows %q, want %q", runs, want)
	}
	if want := []string{"weekly report", "other"}; !slices.Equal(scheds, want) {
		t.Errorf("schedules' workflows %q, want %q", scheds, want)
	}
	// The running run still holds the lane of one: the queued run waits.
	if s := Startable(d); len(s) != 0 {
		t.Errorf("startable after the rename: %v, want none (r2 still runs in the lane of 1)", s)
	}
}

func TestRenameWorkflowRefusals(t *testing.T) {
	for _, c := range []struct {
		from, to string
		want     error
		field    string
	}{
		{"report", "Other ", ErrConflict, "name"}, // another workflow's, ignoring case and spaces
		{"report", "   ", ErrInvalid, "name"},
		{"gone", "new", ErrNotFound, ""},
		{"report", "report", store.ErrNoChange, ""},
	} {
		d := renameDoc()
		before := d.Clone()
		_, err := RenameWorkflow(d, c.from, c.to)
		if !errors.Is(err, c.want) {
			t.Errorf("rename %q → %q: %v, want %v", c.from, c.to, err, c.want)
		}
		var fe store.FieldErrors
		if c.field != "" && (!errors.As(err, &fe) || fe[0].Field != c.field) {
			t.Errorf("rename %q → %q: %v, want a problem of field %q", c.from, c.to, err, c.field)
		}
		if namesOf(d)[0] != namesOf(before)[0] || d.Runs[0].Workflow != before.Runs[0].Workflow {
			t.Errorf("rename %q → %q refused but changed the document", c.from, c.to)
		}
	}
	// A change of case of its own name is a rename, not a conflict with itself.
	d := renameDoc()
	if got, err := RenameWorkflow(d, "report", "Report"); err != nil || got != "Report" || d.Runs[0].Workflow != "Report" {
		t.Errorf("rename to Report: %q, %v", got, err)
	}
}

// namesOf lists d's workflow names, for messages.
func namesOf(d *store.Doc) []string {
	var out []string
	for _, w := range d.Workflows {
		out = append(out, w.Name)
	}
	return out
}
