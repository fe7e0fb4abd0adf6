package view

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
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
	}, Retention: &store.Retention{KeepRuns: 100, KeepFor: store.Duration(720 * time.Hour)}}
	f := FormOf(&w, nil)
	if f.Name != "backup" || f.MaxConcurrent != "2" || f.OnOwnerLost != "requeue" || len(f.Steps) != 2 ||
		f.KeepRuns != "100" || f.KeepFor != "30d" {
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

// TestSameWorkflowComparesRetentionByValue: two copies of a workflow with a retention
// are the same, so an editor does not take a clone for a change by another window.
func TestSameWorkflowComparesRetentionByValue(t *testing.T) {
	a := store.Workflow{Name: "w", Retention: &store.Retention{KeepRuns: 5}}
	b := a.Clone()
	if !SameWorkflow(&a, &b) {
		t.Error("a clone with a retention is not the same workflow")
	}
	b.Retention.KeepRuns = 6
	if SameWorkflow(&a, &b) {
		t.Error("a different retention is the same workflow")
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
		{"no retention typed: the default", WorkflowForm{Name: "n"}, "", func(w store.Workflow) bool { return w.Retention == nil }},
		{"retention in days", WorkflowForm{Name: "n", KeepFor: " 30d "}, "",
			func(w store.Workflow) bool {
				return *w.Retention == store.Retention{KeepFor: store.Duration(720 * time.Hour)}
			}},
		{"retention runs", WorkflowForm{Name: "n", KeepRuns: "100", KeepFor: "36h"}, "",
			func(w store.Workflow) bool {
				return *w.Retention == store.Retention{KeepRuns: 100, KeepFor: store.Duration(36 * time.Hour)}
			}},
		{"keep runs must be a number", WorkflowForm{Name: "n", KeepRuns: "all"}, "retention.keep_runs", nil},
		{"keep for must parse", WorkflowForm{Name: "n", KeepFor: "a month"}, "retention.keep_for", nil},
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
		f      WorkflowForm
		fields []string
	}{
		{WorkflowForm{MaxConcurrent: "1", Steps: []StepDraft{{Argv: []string{"x"}}}}, []string{"name"}},
		{WorkflowForm{Name: "n", MaxConcurrent: "-1", Steps: []StepDraft{{Argv: []string{"x"}}}}, []string{"max_concurrent"}},
		{WorkflowForm{Name: "n", Steps: []StepDraft{{Argv: []string{"x"}}, {Argv: []string{""}}}}, []string{"steps[1].argv"}},
		// A field that does not parse has its parsing message; the core's rules of the others show beside it.
		{WorkflowForm{Name: "n", MaxConcurrent: "x", Steps: []StepDraft{{Argv: []string{""}}}}, []string{"max_concurrent", "steps[0].argv"}},
		{WorkflowForm{Name: "n", Steps: []StepDraft{{Argv: []string{"true"}}}}, nil},
	} {
		_, errs := c.f.Validate(nil)
		if got := slices.Sorted(maps.Keys(errs)); !slices.Equal(got, c.fields) {
			t.Errorf("Validate(%+v) = %v, want messages for %q", c.f, errs, c.fields)
		}
	}
}

// TestValidateShowsEveryProblemAtOnce: every broken rule of the form has its message at
// once, each keyed by its field; the core's messages carry no field prefix.
func TestValidateShowsEveryProblemAtOnce(t *testing.T) {
	f := WorkflowForm{Name: "  ", MaxConcurrent: "-1", OnOwnerLost: "sometimes", Steps: []StepDraft{
		{Argv: []string{""}}, {Argv: []string{""}, Timeout: "soon"}, {Argv: []string{"true"}, Env: "NOEQUALS"}}}
	_, errs := f.Validate(nil)
	want := []string{"max_concurrent", "name", "on_owner_lost", "steps[0].argv", "steps[1].argv", "steps[1].timeout", "steps[2].env"}
	if got := slices.Sorted(maps.Keys(errs)); !slices.Equal(got, want) {
		t.Fatalf("messages for %q, want %q: %v", got, want, errs)
	}
	if errs["max_concurrent"] != "must be at least 1, got -1" || errs["name"] != "must not be empty" {
		t.Errorf("messages %v, want the core's words without the field's name", errs)
	}
	has := func(k string) bool { return k != "steps[2].env" } // a field the form would lack
	if got, want := ProblemsText(errs, has), "Not saved. Fix the 6 problems marked below. steps[2].env: "+errs["steps[2].env"]; got != want {
		t.Errorf("ProblemsText = %q, want %q", got, want)
	}
	all := func(string) bool { return true }
	if got := ProblemsText(map[string]string{"name": "x"}, all); got != "Not saved. Fix the problem marked below." {
		t.Errorf("one problem: %q", got)
	}
	if got := FixText(nil, all); got != "" {
		t.Errorf("no problem: %q", got)
	}
}

// TestValidateRefusesATakenName: a new workflow may not take a name another has, ignoring
// case and surrounding spaces; the core's rule, shown beside the name before saving.
func TestValidateRefusesATakenName(t *testing.T) {
	doc := &store.Doc{Workflows: []store.Workflow{{Name: "backup"}}}
	for _, name := range []string{"backup", "Backup ", "  BACKUP"} {
		f := WorkflowForm{Name: name, Steps: []StepDraft{{Argv: []string{"true"}}}}
		_, errs := f.Validate(doc)
		if len(errs) != 1 || errs["name"] != `a workflow named "backup" already exists` {
			t.Errorf("Validate(name %q) = %v, want the name taken", name, errs)
		}
		if _, errs := f.Validate(nil); len(errs) != 0 {
			t.Errorf("Validate(name %q) without a document = %v, want none (an existing workflow)", name, errs)
		}
	}
	f := WorkflowForm{Name: "backup2", Steps: []StepDraft{{Argv: []string{"true"}}}}
	if _, errs := f.Validate(doc); len(errs) != 0 {
		t.Errorf("a free name: %v", errs)
	}
}

func TestSaveError(t *testing.T) {
	has := func(k string) bool { return k == "name" || k == "steps[0].argv" || k == "max_concurrent" }
	doc := &store.Doc{Schema: store.SchemaVersion}
	good := store.Workflow{Name: "x", Steps: []store.Step{{Argv: []string{"true"}}}}
	if err := workflow.AddWorkflow(doc, good); err != nil {
		t.Fatal(err)
	}
	taken := workflow.AddWorkflow(doc, store.Workflow{Name: " X", Steps: []store.Step{{Argv: []string{"true"}}}})
	twoBad := workflow.AddWorkflow(doc, store.Workflow{Name: "y", MaxConcurrent: -1, Steps: []store.Step{{}}})
	gone := workflow.AddWorkflow(doc, store.Workflow{Name: "z", Steps: []store.Step{{Argv: []string{"true"}}, {}, {}, {}}})
	docErr := fmt.Errorf("%w: workflows[0]: %w", store.ErrInvalid, store.FieldErrors{{Field: "name", Message: "must not be empty"}})
	for _, c := range []struct {
		err     error
		fields  map[string]string
		message string
	}{
		{taken, map[string]string{"name": `a workflow named "x" already exists`}, "Not saved. Fix the problem marked below."},
		{twoBad, map[string]string{"max_concurrent": "must be at least 1, got -1", "steps[0].argv": "must name a program (argv is empty)"},
			"Not saved. Fix the 2 problems marked below."},
		// A field this editor does not have (a step since removed): in the message.
		{gone, map[string]string{}, "Not saved: steps[1].argv: must name a program (argv is empty); steps[2].argv: must name a program (argv is empty); steps[3].argv: must name a program (argv is empty)"},
		// Field errors of the document, not of this save's definition, are not put next to a field.
		{docErr, nil, "Not saved: invalid document: workflows[0]: name: must not be empty"},
		{errors.New("name: disk full"), nil, "Not saved: name: disk full"},
		{&host.ReadOnlyError{WriterPID: 4}, nil, "Not saved: read-only: window pid 4 is the writer; make changes there"},
	} {
		f, m := SaveError(c.err, has)
		if !maps.Equal(f, c.fields) || m != c.message {
			t.Errorf("SaveError(%v) = %v %q, want %v %q", c.err, f, m, c.fields, c.message)
		}
	}
	if errs, ok := FieldProblems(errors.New("something else")); ok || errs != nil {
		t.Errorf("FieldProblems(other) = %v %v", errs, ok)
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
		{"writer, saved workflow", true, true, false, "w", c{RunNow: true, Duplicate: true, Delete: true, AddStep: true, Rename: true}},
		{"writer, edited", true, true, true, "w", c{Save: true, Revert: true, RunNow: true, Duplicate: true, Delete: true, AddStep: true}},
		{"writer, new draft", true, true, true, "", c{Save: true, AddStep: true}},
		{"reader, edited: may type, revert and run (forwarded), not save", false, true, true, "w", c{Revert: true, RunNow: true, Duplicate: true, AddStep: true, ReadOnlyNote: true}},
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

// TestOwnerLostChoices: the editor offers on_owner_lost in plain words, each mapping to
// the core's value and back; a value it does not know is offered as it is, not dropped.
func TestOwnerLostChoices(t *testing.T) {
	if got, want := OwnerLostOptions("fail"), []string{"Fail", "Run again", "Keep running"}; !slices.Equal(got, want) {
		t.Errorf("OwnerLostOptions = %q, want %q", got, want)
	}
	for label, value := range map[string]string{"Fail": "fail", "Run again": "requeue", "Keep running": "adopt"} {
		if got := OwnerLostValue(label); got != value {
			t.Errorf("OwnerLostValue(%q) = %q, want %q", label, got, value)
		}
		if got := OwnerLostLabel(value); got != label {
			t.Errorf("OwnerLostLabel(%q) = %q, want %q", value, got, label)
		}
		if OwnerLostHint(value) == "" {
			t.Errorf("no hint for %q", value)
		}
		// The core accepts every value offered.
		f := WorkflowForm{Name: "n", MaxConcurrent: "1", OnOwnerLost: OwnerLostValue(label), Steps: []StepDraft{{Argv: []string{"true"}}}}
		if w, errs := f.Validate(nil); len(errs) != 0 || w.OnOwnerLost != value {
			t.Errorf("%q: validated as %q with %v", label, w.OnOwnerLost, errs)
		}
	}
	if got := OwnerLostLabel(""); got != "Fail" {
		t.Errorf("the default shows as %q, want Fail", got)
	}
	if !strings.Contains(OwnerLostHint("adopt"), "goes on when the window running it closes or crashes") ||
		!strings.Contains(OwnerLostHint("fail"), "Closing the window cancels it") {
		t.Errorf("hints %q / %q", OwnerLostHint("adopt"), OwnerLostHint("fail"))
	}
	if got := OwnerLostOptions("migrate"); !slices.Equal(got, []string{"Fail", "Run again", "Keep running", "migrate"}) ||
		OwnerLostValue(OwnerLostLabel("migrate")) != "migrate" {
		t.Errorf("an unknown value: options %q, round trip %q", got, OwnerLostValue(OwnerLostLabel("migrate")))
	}
	w := store.Workflow{Name: "n", MaxConcurrent: 1, OnOwnerLost: "adopt", Steps: []store.Step{{Argv: []string{"true"}}}}
	f := FormOf(&w, nil)
	if got, _ := f.Draft(); f.OnOwnerLost != "adopt" || got.OnOwnerLost != "adopt" {
		t.Errorf("adopt: form %q, draft %q", f.OnOwnerLost, got.OnOwnerLost)
	}
}

// TestRenamedTo: a workflow gone and one new with its definition is a rename; a delete,
// an edit of the definition in the same snapshot, or two candidates are not.
func TestRenamedTo(t *testing.T) {
	step := []store.Step{{Argv: []string{"true"}}}
	prev := &store.Doc{Workflows: []store.Workflow{{Name: "report", MaxConcurrent: 1, Steps: step}, {Name: "other", Steps: step}}}
	doc := func(ws ...store.Workflow) *store.Doc { return &store.Doc{Workflows: ws} }
	renamed := store.Workflow{Name: "weekly", MaxConcurrent: 1, Steps: step}
	for _, c := range []struct {
		name string
		doc  *store.Doc
		want string
	}{
		{"renamed", doc(renamed, prev.Workflows[1]), "weekly"},
		{"still there", doc(prev.Workflows...), ""},
		{"deleted", doc(prev.Workflows[1]), ""},
		{"a new workflow that is not the same", doc(store.Workflow{Name: "weekly", MaxConcurrent: 2, Steps: step}), ""},
		{"two candidates", doc(renamed, store.Workflow{Name: "daily", MaxConcurrent: 1, Steps: step}), ""},
	} {
		if got := RenamedTo(prev, c.doc, "report"); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
	if got := RenamedTo(nil, doc(renamed), "report"); got != "" {
		t.Errorf("no previous snapshot: %q", got)
	}
}
