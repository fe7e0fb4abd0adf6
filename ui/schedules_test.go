package ui

import (
	"context"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"

	"baton/ui/view"
)

func TestSchedulesEditPreviewPauseAndReadOnly(t *testing.T) {
	home, w, m, q := writerUI(t)
	addWorkflow(t, w, "report", "true")
	q.waitFor(t, "the workflow listed", func() bool { return m.Workflows.Length() == 1 })

	s := m.Schedules
	if !s.Empty.Visible() {
		t.Error("no schedule open, and the tab does not say what to do")
	}
	test.Tap(s.NewButton)
	if s.Empty.Visible() {
		t.Errorf("%q is drawn behind the form's buttons", s.Empty.Text) // issue 12, bug 5
	}
	// Issue 12, usability 4: "every" is pre-filled, yet choosing cron and typing one
	// is all it takes; only the chosen field shows, and it reads "1h", not "1h0m0s".
	if s.Every.Text != "1h" || !s.every.Visible() || s.cron.Visible() {
		t.Errorf("new schedule: every %q (visible %v), cron visible %v", s.Every.Text, s.every.Visible(), s.cron.Visible())
	}
	s.Repeat.SetSelected(view.RepeatCron)
	if s.every.Visible() || !s.cron.Visible() {
		t.Errorf("cron chosen: every visible %v, cron visible %v", s.every.Visible(), s.cron.Visible())
	}
	if l := s.Errors["cron"]; l.Text == "" {
		t.Error("cron chosen and empty: no problem beside it")
	}
	test.Type(s.Cron, "0 3 * * *")
	if got := strings.Count(s.Preview.Text, "03:00"); got != 5 || !strings.HasPrefix(s.Preview.Text, "Times in local time:") {
		t.Errorf("preview of 0 3 * * * = %q, want 5 times at 03:00 in a named zone", s.Preview.Text)
	}
	for k, l := range s.Errors {
		if l.Text != "" {
			t.Errorf("%s: %q with a valid cron and every's old text hidden", k, l.Text)
		}
	}
	if s.Save.Disabled() {
		t.Error("Save disabled for a valid schedule")
	}
	test.Tap(s.Save)
	q.waitFor(t, "the schedule saved", func() bool { d := w.Snapshot(); return len(d.Schedules) == 1 && s.id != "" })
	if got := w.Snapshot().Schedules[0]; got.Cron != "0 3 * * *" || got.Workflow != "report" {
		t.Errorf("saved %+v", got)
	}
	q.waitFor(t, "the schedule listed", func() bool { return s.List.Length() == 1 })

	if got := w.Snapshot().Schedules[0]; got.Every != 0 {
		t.Errorf("saved every %v beside the cron", got.Every)
	}

	// Issue 12, bug 13: pausing says so, not "Saved.".
	test.Tap(s.Pause)
	q.waitFor(t, "paused, and the form saying so", func() bool {
		return w.Snapshot().Schedules[0].Paused && s.Pause.Text == "Resume" && s.Message.Text == "Paused."
	})
	test.Tap(s.Pause)
	q.waitFor(t, "resumed, and the form saying so", func() bool {
		return !w.Snapshot().Schedules[0].Paused && s.Pause.Text == "Pause" && s.Message.Text == "Resumed."
	})

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

// TestScheduleProblemsBesideTheirFields (issue 12, bug 12): a cron expression's problem
// shows beside the Cron field in plain words, never the cron library's text at the top;
// every problem shows at once, and the top of the form counts them.
func TestScheduleProblemsBesideTheirFields(t *testing.T) {
	_, w, m, q := writerUI(t)
	addWorkflow(t, w, "report", "true")
	q.waitFor(t, "the workflow listed", func() bool { return m.Workflows.Length() == 1 })
	s := m.Schedules
	test.Tap(s.NewButton)
	s.Repeat.SetSelected(view.RepeatCron)
	test.Type(s.Cron, "61 * * * *")
	test.Type(s.TZ, "Mars/Base")
	if l := s.Errors["cron"]; !l.Visible() || l.Text != "minute must be 0–59, got 61" {
		t.Errorf("cron: %q (visible %v), want the minute's problem in plain words", l.Text, l.Visible())
	}
	if l := s.Errors["tz"]; !l.Visible() || !strings.Contains(l.Text, "Mars/Base") {
		t.Errorf("tz: %q (visible %v), want the unknown zone beside it", l.Text, l.Visible())
	}
	if s.Problem.Text != "Fix the 2 problems marked below." || strings.Contains(s.Problem.Text, "range") {
		t.Errorf("top of the form: %q", s.Problem.Text)
	}
	if !s.Save.Disabled() {
		t.Error("Save enabled with problems")
	}
	s.Cron.SetText("0 3 * * *")
	s.TZ.SetText("")
	for k, l := range s.Errors {
		if l.Text != "" {
			t.Errorf("%s: %q still shown", k, l.Text)
		}
	}
	if s.Problem.Text != "" || s.Save.Disabled() {
		t.Errorf("valid draft: problem %q (visible %v), save disabled %v", s.Problem.Text, s.Problem.Visible(), s.Save.Disabled())
	}
}

// TestScheduleSaveRefusedShowsBesideTheField: a rule the core breaks only at save time
// (the workflow was deleted since the form checked) shows beside its field, and the
// message says to fix it, not the core's raw text.
func TestScheduleSaveRefusedShowsBesideTheField(t *testing.T) {
	_, w, m, q := writerUI(t)
	addWorkflow(t, w, "report", "true")
	q.waitFor(t, "the workflow listed", func() bool { return m.Workflows.Length() == 1 })
	s := m.Schedules
	test.Tap(s.NewButton)
	if s.Save.Disabled() {
		t.Fatal("Save disabled for the new schedule's defaults")
	}
	if _, err := w.Intents().DeleteWorkflow(context.Background(), "report"); err != nil {
		t.Fatal(err)
	}
	test.Tap(s.Save)
	q.waitFor(t, "the refusal beside the workflow", func() bool {
		l := s.Errors["workflow"]
		return l.Visible() && l.Text == `no workflow named "report"`
	})
	if s.Message.Text != "Not saved. Fix the problem marked below." {
		t.Errorf("message %q", s.Message.Text)
	}
}

// TestNewSchedulePicksTheSelectedWorkflow (issue 12, usability 11).
func TestNewSchedulePicksTheSelectedWorkflow(t *testing.T) {
	_, w, m, q := writerUI(t)
	addWorkflow(t, w, "first", "true")
	addWorkflow(t, w, "second", "true")
	q.waitFor(t, "the workflows listed", func() bool { return m.Workflows.Length() == 2 })
	m.Workflows.Select(1)
	q.waitFor(t, "second open", func() bool { return m.Editor.existing == "second" })
	test.Tap(m.Schedules.NewButton)
	if got := m.Schedules.Workflow.Selected; got != "second" {
		t.Errorf("new schedule for %q, want the selected workflow %q", got, "second")
	}
}
