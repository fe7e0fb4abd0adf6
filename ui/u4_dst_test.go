package ui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"

	"baton/ui/view"
)

// TestSchedulePreviewAcrossAClockChange (issue 24): the schedule form's preview, typed
// into as a person does, names the zone and marks the occurrence a clock change shifted
// and moved; a cron with a CRON_TZ= prefix beside tz is refused beside the Cron field.
func TestSchedulePreviewAcrossAClockChange(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Skip("no zone database")
	}
	isolate(t)
	w := startWriter(t, newHome(t))
	addWorkflow(t, w, "report", "true")
	q := &uiQueue{ch: make(chan func(), 4096), done: make(chan struct{})}
	before := time.Date(2026, 3, 28, 12, 0, 0, 0, berlin) // the day before Berlin's clocks go forward
	m := New(test.NewTempApp(t), w, Options{Do: q.Do, Now: func() time.Time { return before },
		Confirm:     func(string, string, func(bool)) { t.Error("unexpected confirmation dialog") },
		OpenAnother: func(string) error { return fmt.Errorf("not in tests") }})
	m.Watch()
	t.Cleanup(func() { m.Stop(); close(q.done) })
	q.waitFor(t, "the workflow listed", func() bool { return m.Workflows.Length() == 1 })

	s := m.Schedules
	test.Tap(s.NewButton)
	s.Repeat.SetSelected(view.RepeatCron)
	test.Type(s.TZ, "Europe/Berlin")
	test.Type(s.Cron, "30 2 * * *")
	lines := strings.Split(s.Preview.Text, "\n")
	if len(lines) < 4 || lines[0] != "Times in Europe/Berlin:" || lines[1] != "Sun 29 Mar 03:00 CEST (+1h: clocks went forward)" ||
		!strings.Contains(lines[2], "skipped") || lines[3] != "Mon 30 Mar 02:30 CEST" {
		t.Errorf("preview of 30 2 * * * in Berlin the day before the change:\n%s", s.Preview.Text)
	}

	s.Cron.SetText("CRON_TZ=Asia/Tokyo 0 3 * * *")
	if l := s.Errors["cron"]; !l.Visible() || !strings.Contains(l.Text, "Asia/Tokyo") || !strings.Contains(l.Text, "Europe/Berlin") {
		t.Errorf("cron with CRON_TZ= beside tz: %q (visible %v), want the refusal beside Cron", l.Text, l.Visible())
	}
	if !s.Save.Disabled() {
		t.Error("Save enabled for a cron that names its zone beside tz")
	}
	s.TZ.SetText("")
	if l := s.Errors["cron"]; l.Text != "" {
		t.Errorf("CRON_TZ= without tz: %q beside Cron", l.Text)
	}
	if !strings.HasPrefix(s.Preview.Text, "Times in Asia/Tokyo:") {
		t.Errorf("preview of CRON_TZ=Asia/Tokyo without tz:\n%s", s.Preview.Text)
	}
}
