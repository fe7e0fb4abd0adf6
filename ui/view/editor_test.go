package view

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"baton/host"
	"baton/store"
	"baton/workflow"
)

func TestFormOfAndDraftRoundTrip(t *testing.T) {
	w := store.Workflow{Name: "backup", MaxConcurrent: 2, OnOwnerLost: "requeue", Steps: []store.Step{
		{Name: "copy", Argv: []string{"rsync", "-a", "two words"}, Timeout: store.Duration(90 * time.Second), Dir: "/data",
			Env: map[string]string{"LANG": "C", "DEST": "/backup"}},
		{Name: "step 2"}, // no argv: a blank field to type into
	}}
	f := FormOf(&w, nil)
	if f.Name != "backup" || f.MaxConcurrent != "2" || f.OnOwnerLost != "requeue" || len(f.Steps) != 2 {
		t.Fatalf("form %+v", f)
	}
	if s := f.Steps[0]; s.Timeout != "1m30s" || s.Env != "DEST=/backup\nLANG=C" || !slices.Equal(s.Argv, w.Steps[0].Argv) {
		t.Errorf("step 0 %+v", s)
	}
	if !slices.Equal(f.Steps[1].Argv, []string{""}) || f.Steps[1].Timeout != "" {
		t.Errorf("step 1 %+v", f.Steps[1])
	}
	f.Steps[0].Argv[0] = "cp"
	if w.Steps[0].Argv[0] != "rsync" {
		t.Error("editing the form changed the workflow it shows")
	}
	f.Steps[0].Argv[0] = "rsync"
	got, errs := f.Draft()
	w.Steps[1].Argv = []string{}
	if len(errs) != 0 || !SameWorkflow(&got, &w) {
		t.Errorf("draft of the form: %+v errs %v\nwant %+v", got, errs, w)
	}
}

func TestDraftParsing(t *testing.T) {
	step := func(d StepDraft) WorkflowForm {
		return WorkflowForm{Name: " n ", MaxConcurrent: "1", OnOwnerLost: "fail", Steps: []StepDraft{d}}
	}
	for _, c := range []struct {
		name  string
		f     WorkflowForm
		field string // the field with a message ("" for none)
		check func(store.Workflow) bool
	}{
		{"trims the name and argv's trailing blanks", step(StepDraft{Argv: []string{"echo", "", "x", "", ""}}), "",
			func(w store.Workflow) bool {
				return w.Name == "n" && slices.Equal(w.Steps[0].Argv, []string{"echo", "", "x"})
			}},
		{"empty max concurrent is left to the core", WorkflowForm{Name: "n"}, "", func(w store.Workflow) bool { return w.MaxConcurrent == 0 }},
		{"max concurrent must be a number", WorkflowForm{Name: "n", MaxConcurrent: "many"}, "max_concurrent", nil},
		{"timeout must parse", step(StepDraft{Argv: []string{"x"}, Timeout: "soon"}), "steps[0].timeout", nil},
		{"timeout must not be negative", step(StepDraft{Argv: []string{"x"}, Timeout: "-1m"}), "steps[0].timeout", nil},
		{"env lines, comments and blanks", step(StepDraft{Argv: []string{"x"}, Env: "# c\n\n A =1=2 \nB="}), "",
			func(w store.Workflow) bool {
				e := w.Steps[0].Env
				return len(e) == 2 && e["A"] == "1=2" && e["B"] == ""
			}},
		{"env line without =", step(StepDraft{Argv: []string{"x"}, Env: "A=1\nNOEQUALS"}), "steps[0].env", nil},
		{"env line without a name", step(StepDraft{Argv: []string{"x"}, Env: "=1"}), "steps[0].env", nil},
	} {
		w, errs := c.f.Draft()
		if c.field == "" && len(errs) != 0 || c.field != "" && (len(errs) != 1 || errs[c.field] == "") {
			t.Errorf("%s: messages %v, want one for %q", c.name, errs, c.field)
		}
		if c.check != nil && !c.check(w) {
			t.Errorf("%s: parsed %+v", c.name, w)
		}
	}
}

func TestValidateUsesTheCoresRules(t *testing.T) {
	for _, c := range []struct {
		f     WorkflowForm
		field string
	}{
		{WorkflowForm{MaxConcurrent: "1", Steps: []StepDraft{{Argv: []string{"x"}}}}, "name"},
		{WorkflowForm{Name: "n", MaxConcurrent: "-1", Steps: []StepDraft{{Argv: []string{"x"}}}}, "max_concurrent"},
		{WorkflowForm{Name: "n", Steps: []StepDraft{{Argv: []string{"x"}}, {Argv: []string{""}}}}, "steps[1].argv"},
		{WorkflowForm{Name: "n", MaxConcurrent: "x", Steps: []StepDraft{{Argv: []string{""}}}}, "max_concurrent"}, // parsing first
		{WorkflowForm{Name: "n", Steps: []StepDraft{{Argv: []string{"true"}}}}, ""},
	} {
		_, errs := c.f.Validate()
		if c.field == "" && len(errs) != 0 || c.field != "" && (len(errs) != 1 || errs[c.field] == "") {
			t.Errorf("Validate(%+v) = %v, want a message for %q only", c.f, errs, c.field)
		}
	}
}

func TestFieldOfAndSaveError(t *testing.T) {
	has := func(k string) bool { return k == "name" || k == "steps[0].argv" }
	for _, c := range []struct {
		err                      error
		field, fieldMsg, message string
	}{
		{fmt.Errorf("%w: a workflow named %q already exists", workflow.ErrConflict, "x"), "name", "another workflow already has this name",
			"Not saved: another workflow already has this name"},
		{fmt.Errorf("%w: workflow %q: steps[0].argv: must name a program", workflow.ErrInvalid, "x"), "steps[0].argv", "must name a program",
			"Not saved: must name a program"},
		// A field this editor does not have (a step since removed): the message only.
		{fmt.Errorf("%w: workflow %q: steps[3].argv: must name a program", workflow.ErrInvalid, "x"), "", "",
			`Not saved: invalid: workflow "x": steps[3].argv: must name a program`},
		// A field-like message that is not a rule broken is not put next to the field.
		{errors.New("name: disk full"), "", "", "Not saved: name: disk full"},
		{&host.ReadOnlyError{WriterPID: 4}, "", "", "Not saved: read-only: window pid 4 is the writer; make changes there"},
	} {
		f, fm, m := SaveError(c.err, has)
		if f != c.field || fm != c.fieldMsg || m != c.message {
			t.Errorf("SaveError(%v) = %q %q %q, want %q %q %q", c.err, f, fm, m, c.field, c.fieldMsg, c.message)
		}
	}
	if k, msg := FieldOf(errors.New("something else")); k != "" || msg != "something else" {
		t.Errorf("FieldOf(other) = %q %q", k, msg)
	}
}

func TestEditorControls(t *testing.T) {
	type c = EditorControls
	for _, tc := range []struct {
		name           string
		writable, open bool
		dirty          bool
		existing       string
		want           EditorControls
	}{
		{"nothing open", true, false, false, "", c{}},
		{"writer, saved workflow", true, true, false, "w", c{RunNow: true, Duplicate: true, Delete: true, AddStep: true}},
		{"writer, edited", true, true, true, "w", c{Save: true, Revert: true, RunNow: true, Duplicate: true, Delete: true, AddStep: true}},
		{"writer, new draft", true, true, true, "", c{Save: true, AddStep: true}},
		{"reader, edited: may type and revert, not save", false, true, true, "w", c{Revert: true, Duplicate: true, AddStep: true, ReadOnlyNote: true}},
		{"reader, nothing open: no note", false, false, false, "", c{}},
	} {
		if got := EditorControlsFor(tc.writable, tc.open, tc.dirty, tc.existing); got != tc.want {
			t.Errorf("%s:\n got %+v\nwant %+v", tc.name, got, tc.want)
		}
	}
}

func TestStepEdits(t *testing.T) {
	steps := []StepDraft{{Name: "a"}, {Name: "b"}, {Name: "c"}}
	if MoveStep(steps, 0, -1) || MoveStep(steps, 2, 1) {
		t.Error("moved a step past an end")
	}
	if !MoveStep(steps, 2, -1) || steps[1].Name != "c" || steps[2].Name != "b" {
		t.Errorf("move up: %+v", steps)
	}
	for _, c := range []struct {
		i, n     int
		up, down bool
	}{{0, 1, false, false}, {0, 3, false, true}, {1, 3, true, true}, {2, 3, true, false}} {
		if up, down := StepMoves(c.i, c.n); up != c.up || down != c.down {
			t.Errorf("StepMoves(%d, %d) = %v %v", c.i, c.n, up, down)
		}
	}
	if got := RemoveArg([]string{"a", "b"}, 0); !slices.Equal(got, []string{"b"}) {
		t.Errorf("RemoveArg = %q", got)
	}
	if got := RemoveArg([]string{"a"}, 0); !slices.Equal(got, []string{""}) {
		t.Errorf("RemoveArg of the last argument = %q, want one blank", got)
	}
}

func TestEditorFollow(t *testing.T) {
	base := store.Workflow{Name: "w", MaxConcurrent: 1}
	changed := store.Workflow{Name: "w", MaxConcurrent: 2}
	same := &store.Doc{Workflows: []store.Workflow{base}}
	moved := &store.Doc{Workflows: []store.Workflow{changed}}
	gone := &store.Doc{}
	for _, c := range []struct {
		name     string
		doc      *store.Doc
		open     bool
		existing string
		dirty    bool
		want     Follow
		msg      string
	}{
		{"nothing open", moved, false, "w", false, FollowKeep, ""},
		{"a new draft", gone, true, "", true, FollowKeep, ""},
		{"unchanged", same, true, "w", true, FollowKeep, ""},
		{"changed, not edited", moved, true, "w", false, FollowLoad, ""},
		{"changed while edited: the edit wins", moved, true, "w", true, FollowRebase, "This workflow changed since you opened it; saving replaces that change with yours."},
		{"deleted, not edited", gone, true, "w", false, FollowClose, `"w" was deleted.`},
		{"deleted while edited", gone, true, "w", true, FollowOrphan, `"w" was deleted by the writer; saving adds it back.`},
	} {
		act, w, msg := EditorFollow(c.doc, c.open, c.existing, &base, c.dirty)
		if act != c.want || msg != c.msg {
			t.Errorf("%s: %v %q, want %v %q", c.name, act, msg, c.want, c.msg)
		}
		if (act == FollowLoad || act == FollowRebase) && (w == nil || w.MaxConcurrent != 2) {
			t.Errorf("%s: workflow %+v, want the new definition", c.name, w)
		}
	}
	if got := SavedText(false); got != "Saved." {
		t.Errorf("SavedText(false) = %q", got)
	}
	if got := SavedText(true); got != "Saved; your newer changes are not saved yet." {
		t.Errorf("SavedText(true) = %q", got)
	}
}
