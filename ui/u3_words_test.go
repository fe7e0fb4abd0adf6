package ui

import (
	"context"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"

	"baton/store"
	"baton/ui/view"
)

// TestNoContradictingWords (issue 22, bug 8): "Saved." goes once the person edits what
// was saved, in the editor and in the schedule form, so it never stands above the
// problems of the edit; an untouched New draft is left without a question (the
// confirmation in newUI fails the test when asked).
func TestNoContradictingWords(t *testing.T) {
	_, w, m, q := writerUI(t)
	addWorkflow(t, w, "report", "true")
	q.waitFor(t, "the workflow listed", func() bool { return m.Workflows.Length() == 1 })

	m.NewWorkflow()
	m.OpenWorkflow("report") // leaves the untouched draft: no question
	m.NewWorkflow()
	m.NewWorkflow()

	m.OpenWorkflow("report")
	m.Editor.MaxConcurrent.SetText("2")
	m.SaveWorkflow()
	q.waitFor(t, "the workflow saved", func() bool { return m.Editor.Message.Text == view.SavedText(false) })
	m.Editor.MaxConcurrent.SetText("many")
	if msg, prob := m.Editor.Message.Text, m.Editor.Errors["max_concurrent"].Text; prob == "" || msg == view.SavedText(false) {
		t.Errorf("the editor says %q above the problem %q", msg, prob)
	}
	m.Editor.revert()

	m.ShowTab("Schedules")
	sc, _, err := w.Intents().AddSchedule(context.Background(), store.Schedule{Workflow: "report", Every: store.Duration(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	q.waitFor(t, "the schedule listed", func() bool { return m.doc.Schedule(sc.ID) != nil })
	m.Schedules.List.Select(0)
	m.Schedules.Every.SetText("2h")
	test.Tap(m.Schedules.Save)
	q.waitFor(t, "the schedule saved", func() bool { return m.Schedules.Message.Text == "Saved." })
	m.Schedules.Every.SetText("soon")
	if msg, prob := m.Schedules.Message.Text, m.Schedules.Problem.Text; prob == "" || msg == "Saved." {
		t.Errorf("the schedule form says %q above %q", msg, prob)
	}
}
