package ui

import (
	"context"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
)

// TestFailureNotificationsSwitch (issue 22, daily use 7): a failed run is told by the
// desktop while View › Notify when a run fails is on, not at all once it is off, and in
// the window (with Show run) when the desktop shows no notifications.
func TestFailureNotificationsSwitch(t *testing.T) {
	_, w, m, q := writerUI(t)
	addWorkflow(t, w, "broken", "false")
	failRun := func() string {
		run, _, err := w.Intents().StartRun(context.Background(), "broken", "")
		if err != nil {
			t.Fatal(err)
		}
		q.waitFor(t, "the run failed", func() bool { r := m.doc.Run(run.ID); return r != nil && r.Status == "failed" })
		q.settle(0)
		return run.ID
	}
	want := &fyne.Notification{Title: "Baton: a run failed"}
	test.AssertNotificationSent(t, want, func() {
		id := failRun()
		want.Content = "Run " + id + " of broken failed: " + m.doc.Run(id).Error
	})
	m.notifyItem.Action() // off
	if m.notifyOn() || m.notifyItem.Checked {
		t.Fatal("the switch did not turn notifications off")
	}
	test.AssertNotificationSent(t, nil, func() { failRun() })
	if m.Failures.obj.Visible() {
		t.Error("the window told of a failure with notifications off")
	}

	m.notifyItem.Action() // on again
	desktopNotifies = func(fyne.App) bool { return false }
	t.Cleanup(func() { desktopNotifies = canNotify })
	id := failRun()
	if !m.Failures.obj.Visible() || m.Failures.run != id {
		t.Fatalf("without desktop notifications the window says %q (shown: %v)", m.Failures.Label.Text, m.Failures.obj.Visible())
	}
	m.ShowTab("Workflow")
	test.Tap(m.Failures.Show)
	if m.selRun != id || m.Tabs.Selected().Text != "Runs" || m.Failures.obj.Visible() {
		t.Errorf("Show run: run %q, tab %q", m.selRun, m.Tabs.Selected().Text)
	}
}
