package ui

import (
	"context"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"

	"baton/store"
)

// TestIdleWindowPostsNoTicks: the ticker posts to the UI goroutine (which wakes Fyne's
// run loop from its sleep) only while something changes with time: a running run's
// duration and log, the audit log, the role bar's text. Once what changed is shown, an
// idle window posts nothing, tick after tick (a second of them: about 20); a running run
// gets its ticks again.
func TestIdleWindowPostsNoTicks(t *testing.T) {
	_, w, m, q := writerUI(t) // ticks every 50 ms
	quiet := func(what string) {
		t.Helper()
		deadline := time.Now().Add(15 * time.Second)
		for {
			n := m.ticks
			q.settle(time.Second)
			if m.ticks == n {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: the window still applies ticks (%d in its last second), want none", what, m.ticks-n)
			}
		}
	}
	addWorkflow(t, w, "slow", "sh", "-c", "echo started; exec sleep 60")
	q.waitFor(t, "the workflow listed", func() bool { return m.Workflows.Length() == 1 })
	quiet("idle")

	m.OpenWorkflow("slow")
	test.Tap(m.Editor.RunNow)
	q.waitFor(t, "the run running", func() bool { return m.RunView.Status.Text == store.StatusRunning })
	running := m.ticks
	q.waitFor(t, "ticks while the run runs", func() bool { return m.ticks >= running+5 })

	id := m.selRun
	if _, err := w.Intents().CancelRun(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	q.waitFor(t, "the run cancelled", func() bool {
		r := m.doc.Run(id)
		return r != nil && r.Status != store.StatusRunning
	})
	quiet("idle again")
}
