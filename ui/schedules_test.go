package ui

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"
)

func TestSchedulesEditPreviewPauseAndReadOnly(t *testing.T) {
	home, w, m, q := writerUI(t)
	addWorkflow(t, w, "report", "true")
	q.waitFor(t, "the workflow listed", func() bool { return m.Workflows.Length() == 1 })

	s := m.Schedules
	test.Tap(s.NewButton)
	s.Every.SetText("")
	test.Type(s.Cron, "0 3 * * *")
	if got := strings.Count(s.Preview.Text, "03:00"); got != 5 {
		t.Errorf("preview of 0 3 * * * = %q, want 5 times at 03:00", s.Preview.Text)
	}
	test.Type(s.Every, "1h")
	if !s.Problem.Visible() || !strings.Contains(s.Problem.Text, "not both") {
		t.Errorf("problem = %q (visible %v), want the core's 'not both'", s.Problem.Text, s.Problem.Visible())
	}
	if !s.Save.Disabled() {
		t.Error("Save enabled for an invalid schedule")
	}
	s.Every.SetText("")
	test.Tap(s.Save)
	q.waitFor(t, "the schedule saved", func() bool { d := w.Snapshot(); return len(d.Schedules) == 1 && s.id != "" })
	if got := w.Snapshot().Schedules[0]; got.Cron != "0 3 * * *" || got.Workflow != "report" {
		t.Errorf("saved %+v", got)
	}
	q.waitFor(t, "the schedule listed", func() bool { return s.List.Length() == 1 })

	test.Tap(s.Pause)
	q.waitFor(t, "paused", func() bool { return w.Snapshot().Schedules[0].Paused && s.Pause.Text == "Resume" })
	test.Tap(s.Pause)
	q.waitFor(t, "resumed", func() bool { return !w.Snapshot().Schedules[0].Paused && s.Pause.Text == "Pause" })

	// A second window on the home is read-only: the same schedule, nothing to press.
	w2 := openCore(t, home)
	m2, q2 := newUI(t, w2)
	if err := w2.Start(); err != nil {
		t.Fatal(err)
	}
	q2.waitFor(t, "reader", roleIs(m2, "Read-only"))
	q2.waitFor(t, "the schedule in the reader", func() bool { return m2.Schedules.List.Length() == 1 })
	m2.Schedules.List.Select(0)
	for name, b := range map[string]interface{ Disabled() bool }{"Save": m2.Schedules.Save, "Pause": m2.Schedules.Pause, "Delete": m2.Schedules.Delete} {
		if !b.Disabled() {
			t.Errorf("%s enabled in a read-only window", name)
		}
	}
	if !m2.Schedules.Note.Visible() {
		t.Error("no read-only reason next to the schedule's disabled buttons")
	}
}
