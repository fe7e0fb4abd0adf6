package ui

import (
	"context"
	"fmt"
	"testing"

	"fyne.io/fyne/v2"

	"baton/ui/view"
)

// TestLongDropdownFiltersAndSidebarSorts (issue 22, daily use 6): typing in the
// schedule form's workflow choice keeps the workflows whose name holds the text and
// picks the first; Backspace widens it again. View › Sort workflows orders the sidebar
// by name or by last run, remembered.
func TestLongDropdownFiltersAndSidebarSorts(t *testing.T) {
	_, w, m, q := writerUI(t)
	for i := range 30 {
		addWorkflow(t, w, fmt.Sprintf("job %02d", 29-i), "true")
	}
	addWorkflow(t, w, "Backup photos", "true")
	addWorkflow(t, w, "backup mail", "true")
	q.waitFor(t, "the workflows listed", func() bool { return m.Workflows.Length() == 32 })
	m.ShowTab("Schedules")
	sc := m.Schedules
	sc.newDraft()
	sel := sc.Workflow
	m.Win.Canvas().Focus(sel)
	for _, r := range "back" {
		sel.TypedRune(r)
	}
	if len(sel.Options) != 2 || sel.Selected != "Backup photos" {
		t.Fatalf("after typing back: choices %q, chosen %q", sel.Options, sel.Selected)
	}
	sel.TypedRune('m')
	if len(sel.Options) != 0 && sel.Options[0] != "backup mail" {
		t.Errorf("after typing backm: %q", sel.Options)
	}
	sel.TypedKey(&fyne.KeyEvent{Name: fyne.KeyBackspace})
	sel.TypedKey(&fyne.KeyEvent{Name: fyne.KeyEscape})
	if len(sel.Options) != 32 {
		t.Errorf("after Escape %d choices, want all 32", len(sel.Options))
	}

	if _, _, err := w.Intents().RunNow(context.Background(), "job 17", ""); err != nil {
		t.Fatal(err)
	}
	q.waitFor(t, "the run listed", func() bool { return m.Runs.Length() == 1 })
	first := func() string { return m.doc.Workflows[m.wfIdx[0]].Name }
	m.SortSidebar(view.SortName)
	if first() != "backup mail" && first() != "Backup photos" {
		t.Errorf("sorted by name, the sidebar starts with %q", first())
	}
	m.SortSidebar(view.SortRecent)
	if first() != "job 17" {
		t.Errorf("sorted by last run, the sidebar starts with %q", first())
	}
	if m.sortBy() != view.SortRecent {
		t.Error("the order is not remembered")
	}
}
