package view

import (
	"slices"
	"strings"
	"testing"

	"baton/host"
	"baton/store"
)

func TestFilterWorkflowsAndLastStatuses(t *testing.T) {
	doc := &store.Doc{Workflows: []store.Workflow{{Name: "Backup photos"}, {Name: "report"}, {Name: "backup mail"}},
		Runs: []store.Run{{Workflow: "report", Status: store.StatusFailed}, {Workflow: "Backup photos", Status: store.StatusRunning},
			{Workflow: "report", Status: store.StatusSucceeded}}}
	for q, want := range map[string][]int{"": {0, 1, 2}, "BACKUP": {0, 2}, "port": {1}, "none": nil} {
		if got := FilterWorkflows(nil, doc, q); !slices.Equal(got, want) {
			t.Errorf("FilterWorkflows(%q) = %v, want %v", q, got, want)
		}
	}
	last := map[string]string{"deleted": store.StatusFailed}
	LastStatuses(last, doc)
	if len(last) != 2 || last["report"] != store.StatusSucceeded || last["Backup photos"] != store.StatusRunning {
		t.Errorf("last statuses %v: want each workflow's newest run and nothing else", last)
	}
}

func TestWorkflowTexts(t *testing.T) {
	w := store.Workflow{Name: "w", MaxConcurrent: 2, Steps: []store.Step{{}}}
	if got := WorkflowDetail(&w); got != "1 step · up to 2 runs at once" {
		t.Errorf("WorkflowDetail = %q", got)
	}
	doc := &store.Doc{Workflows: []store.Workflow{{Name: "a"}, {Name: "a copy"}, {Name: "a copy 2"}, {Name: "b"}}}
	for name, want := range map[string]string{"a": "a copy 3", "b": "b copy", "a copy": "a copy copy"} {
		if got := CopyName(doc, name); got != want {
			t.Errorf("CopyName(%q) = %q, want %q", name, got, want)
		}
	}
	if _, q := DiscardQuestion(""); q != "You have unsaved changes to the new workflow. Discard them?" {
		t.Errorf("discard a new draft: %q", q)
	}
	if _, q := DiscardQuestion("nightly"); q != "You have unsaved changes to nightly. Discard them?" {
		t.Errorf("discard: %q", q)
	}
	if _, q := DeleteQuestion("nightly"); !strings.HasPrefix(q, `Delete "nightly"?`) {
		t.Errorf("delete: %q", q)
	}
	if got := StartedText("r5", 0); got != "Started run r5; see Runs." {
		t.Errorf("StartedText = %q", got)
	}
	if got := StartedText("r5", 41); got != "Started run r5 (sent to the writer, pid 41); see Runs." {
		t.Errorf("started: %q", got)
	}
	st := host.Status{Home: "/h", PID: 7}
	d := &store.Doc{Generation: 12, Epoch: 3, Workflows: []store.Workflow{{}}, Runs: []store.Run{{}, {}}}
	if got := Footer(st, d); got != "/h · this window pid 7 · 1 workflow · 2 runs" { // issue 22: generation and epoch are in About
		t.Errorf("footer %q", got)
	}
	if got := AboutText("1", st, d); !strings.HasSuffix(got, "Document: generation 12, writer epoch 3") {
		t.Errorf("about %q", got)
	}
	if got := WorkflowDetail(&store.Workflow{MaxConcurrent: 1}); got != "0 steps · runs one at a time" {
		t.Errorf("a lane of one: %q", got)
	}
	if got := WindowTitle(st); got != "Baton — /h" {
		t.Errorf("title %q", got)
	}
	if nw := NewWorkflow(); nw.MaxConcurrent != 1 || nw.OnOwnerLost != "fail" || len(nw.Steps) != 1 || !slices.Equal(nw.Steps[0].Argv, []string{""}) {
		t.Errorf("new workflow %+v", nw)
	}
}

func TestAutoOpen(t *testing.T) {
	doc := &store.Doc{Workflows: []store.Workflow{{Name: "first"}, {Name: "second"}}}
	if w := AutoOpen(false, false, doc); w != &doc.Workflows[0] {
		t.Errorf("AutoOpen = %v, want the first workflow", w)
	}
	for _, c := range []struct {
		done, open bool
		doc        *store.Doc
	}{{true, false, doc}, {false, true, doc}, {false, false, &store.Doc{}}} {
		if w := AutoOpen(c.done, c.open, c.doc); w != nil {
			t.Errorf("AutoOpen(done %v, open %v, %d workflows) = %v, want nil", c.done, c.open, len(c.doc.Workflows), w.Name)
		}
	}
}

func TestFailureNotices(t *testing.T) {
	opened := at(11, 0, 0)
	doc := &store.Doc{Runs: []store.Run{
		{ID: "r1", Workflow: "w", Status: store.StatusFailed, Error: "exit code 1", Ended: at(11, 30, 0)},
		{ID: "r2", Workflow: "w", Status: store.StatusFailed, Ended: at(10, 0, 0)}, // ended before the window opened
		{ID: "r3", Workflow: "v", Status: store.StatusFailed, Ended: at(11, 40, 0)},
	}}
	failed := func(id string) host.Event { return host.Event{Kind: "run", Run: id, Status: store.StatusFailed} }
	evs := []host.Event{failed("r1"), failed("r1"), failed("r2"), failed("r3"), failed("gone"),
		{Kind: "run", Run: "r1", Status: store.StatusSucceeded}, {Kind: "changed", Run: "r3", Status: store.StatusFailed}}
	writer := host.Status{Role: host.RoleWriter}
	notified := map[string]bool{}
	got := FailureNotices(writer, evs, doc, opened, notified)
	want := []Notice{{"Baton: a run failed", "Run r1 of w failed: exit code 1", "r1"}, {"Baton: a run failed", "Run r3 of v failed", "r3"}}
	if !slices.Equal(got, want) {
		t.Errorf("notices %+v, want %+v", got, want)
	}
	if again := FailureNotices(writer, evs, doc, opened, notified); len(again) != 0 {
		t.Errorf("the same failures noticed twice: %+v", again)
	}
	if got := FailureNotices(host.Status{Role: host.RoleReader}, evs, doc, opened, map[string]bool{}); got != nil {
		t.Errorf("a reader notices %+v", got)
	}
}
