package ui

import (
	"context"
	"strings"
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

// TestSaveFlagsAProgramThatWillNotRun (issue 22, daily use 4): saving a step whose
// program is a whole command line, or not on PATH, saves and marks the step, offering
// Split into arguments for the first.
func TestSaveFlagsAProgramThatWillNotRun(t *testing.T) {
	_, _, m, q := writerUI(t)
	m.NewWorkflow()
	m.Editor.Name.SetText("sync")
	m.Editor.Steps[0].Args[0].SetText("rsync -a src dst")
	test.Tap(m.Editor.AddStep)
	m.Editor.Steps[1].Args[0].SetText("no-such-program-here")
	test.Tap(m.Editor.AddStep)
	m.Editor.Steps[2].Args[0].SetText("true")
	m.SaveWorkflow()
	q.waitFor(t, "the save", func() bool { return m.doc.Workflow("sync") != nil && m.Editor.existing == "sync" })
	if got := m.Editor.Steps[0].ArgvError.Text; !strings.Contains(got, "whole command line") || !m.Editor.Steps[0].Split.Visible() {
		t.Errorf("step 1 says %q (Split offered: %v)", got, m.Editor.Steps[0].Split.Visible())
	}
	if got := m.Editor.Steps[1].ArgvError.Text; !strings.Contains(got, "not on PATH") {
		t.Errorf("step 2 says %q", got)
	}
	if got := m.Editor.Steps[2].ArgvError.Text; got != "" {
		t.Errorf("step 3 (true) says %q", got)
	}
	if !strings.HasPrefix(m.Editor.Message.Text, "Saved, but 2 steps") {
		t.Errorf("the message says %q", m.Editor.Message.Text)
	}
}
