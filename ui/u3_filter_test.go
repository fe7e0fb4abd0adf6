package ui

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"baton/store"
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

	// The runs' workflow filter filters as you type too.
	rw := m.RunsWorkflow
	for _, r := range "mail" {
		rw.TypedRune(r)
	}
	if len(rw.Options) != 1 || rw.Selected != "backup mail" {
		t.Errorf("the runs' workflow filter after typing mail: %q, chosen %q", rw.Options, rw.Selected)
	}
	rw.FocusLost()
	rw.SetSelected(allWorkflows)

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

// TestActivityAndSchedulesSaySkips (issue 22, daily use 5): the Activity tab names the
// workflow of a skipped occurrence and can be filtered; the schedule's row counts its
// skips and says why.
func TestActivityAndSchedulesSaySkips(t *testing.T) {
	_, w, m, q := writerUI(t)
	addWorkflow(t, w, "backup", "true")
	addWorkflow(t, w, "other", "true")
	sc, _, err := w.Intents().AddSchedule(context.Background(), store.Schedule{Workflow: "backup", Every: store.Duration(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	q.waitFor(t, "the schedule listed", func() bool { return len(m.doc.Schedules) == 1 })
	now := time.Now()
	skip := store.Entry{Time: now, Kind: store.KindSkipped, Data: map[string]any{"schedule": sc.ID, "run": "r1",
		"due": now.UTC().Format(time.RFC3339Nano)}}
	m.setActivity([]store.Entry{{Time: now, Kind: store.KindShutdown, PID: 3}, skip, skip})
	m.ShowTab("Activity")
	if len(m.entries) != 2 || !strings.Contains(m.entries[0].What, "schedule of backup") || !strings.Contains(m.entries[0].What, "2 occurrences") {
		t.Fatalf("Activity shows %+v", m.entries)
	}
	m.ActivityFilter.SetText("backup")
	if len(m.entries) != 1 {
		t.Errorf("filtered by backup: %d lines", len(m.entries))
	}
	row := newScheduleRow()
	m.Schedules.updateRow(0, row)
	found := false
	for _, o := range rowsOfAny(row.(*fyne.Container)) {
		if l, ok := o.(*widget.Label); ok && strings.Contains(l.Text, "2 occurrences skipped") {
			found = true
		}
	}
	if !found {
		t.Error("the schedule's row does not count its skips")
	}
}

// rowsOfAny returns l and every object in it.
func rowsOfAny(l fyne.CanvasObject) []fyne.CanvasObject {
	var out []fyne.CanvasObject
	var walk func(o fyne.CanvasObject)
	walk = func(o fyne.CanvasObject) {
		out = append(out, o)
		switch x := o.(type) {
		case *fyne.Container:
			for _, c := range x.Objects {
				walk(c)
			}
		case fyne.Widget:
			for _, c := range test.WidgetRenderer(x).Objects() {
				walk(c)
			}
		}
	}
	walk(l)
	return out
}
