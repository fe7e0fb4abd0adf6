package ui

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"baton/host"
	"baton/store"
	"baton/ui/view"
)

// addPolicy adds a workflow of one step argv whose on_owner_lost is policy.
func addPolicy(t *testing.T, w *host.Core, name, policy string, argv ...string) {
	t.Helper()
	def := store.Workflow{Name: name, OnOwnerLost: policy, Steps: []store.Step{{Argv: argv}}}
	if _, err := w.Intents().AddWorkflow(context.Background(), def); err != nil {
		t.Fatal(err)
	}
}

// startRunning starts a run of name in w and waits until it is running.
func startRunning(t *testing.T, w *host.Core, q *uiQueue, name string) string {
	t.Helper()
	r, _, err := w.Intents().StartRun(context.Background(), name, "")
	if err != nil {
		t.Fatal(err)
	}
	q.waitFor(t, "run "+r.ID+" running", func() bool {
		got := w.Snapshot().Run(r.ID)
		return got != nil && got.Status == store.StatusRunning
	})
	return r.ID
}

// cancelAndWait cancels run id in w and waits until it is recorded as ended, so that no
// step outlives the test.
func cancelAndWait(t *testing.T, w *host.Core, q *uiQueue, id string) {
	t.Helper()
	if _, err := w.Intents().CancelRun(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	q.waitFor(t, "run "+id+" to end", func() bool {
		r := w.Snapshot().Run(id)
		return r != nil && !r.Active()
	})
}

// labelTexts are the texts of the labels laid out in o.
func labelTexts(o fyne.CanvasObject) []string {
	var s []string
	for _, x := range test.LaidOutObjects(o) {
		if l, ok := x.(*widget.Label); ok {
			s = append(s, l.Text)
		}
	}
	return s
}

// TestEditorOwnerLostInPlainWords: the editor shows on_owner_lost as "When the window
// running it closes or crashes: Fail / Run again / Keep running", loads each workflow's
// policy into it, and saves the choice as the core's value.
func TestEditorOwnerLostInPlainWords(t *testing.T) {
	_, w, m, q := writerUI(t)
	m.Win.Resize(fyne.NewSize(1000, 800))
	addPolicy(t, w, "keep", "adopt", "true")
	addPolicy(t, w, "plain", "", "true")
	q.waitFor(t, "the workflows listed", func() bool { return m.Workflows.Length() == 2 })

	m.OpenWorkflow("keep")
	e := m.Editor
	if got, want := e.OnOwnerLost.Options, []string{"Fail", "Run again", "Keep running"}; !slices.Equal(got, want) {
		t.Errorf("choices %q, want %q", got, want)
	}
	if got := e.OnOwnerLost.Selected; got != "Keep running" {
		t.Errorf("an adopt workflow shows %q, want Keep running", got)
	}
	if !strings.Contains(e.OwnerLostHint.Text, "goes on when the window running it closes or crashes") {
		t.Errorf("hint for Keep running: %q", e.OwnerLostHint.Text)
	}
	if !slices.Contains(labelTexts(m.Win.Content()), view.OwnerLostTitle+":") {
		t.Errorf("no %q label in the editor", view.OwnerLostTitle)
	}

	m.OpenWorkflow("plain")
	if got := e.OnOwnerLost.Selected; got != "Fail" {
		t.Errorf("a workflow with the default policy shows %q, want Fail", got)
	}
	e.OnOwnerLost.SetSelected("Run again")
	if !strings.Contains(e.OwnerLostHint.Text, "queued to start again") {
		t.Errorf("hint for Run again: %q", e.OwnerLostHint.Text)
	}
	test.Tap(e.Save)
	q.waitFor(t, "the choice saved", func() bool { return w.Snapshot().Workflow("plain").OnOwnerLost == "requeue" })
	q.waitFor(t, "the editor to show it saved", func() bool { return !e.dirty && e.Save.Disabled() })
	e.OnOwnerLost.SetSelected("Keep running")
	test.Tap(e.Save)
	q.waitFor(t, "keep running saved", func() bool { return w.Snapshot().Workflow("plain").OnOwnerLost == "adopt" })
	q.waitFor(t, "the editor to show it saved", func() bool { return !e.dirty && e.Save.Disabled() })
	m.OpenWorkflow("keep")
	m.OpenWorkflow("plain")
	if got := e.OnOwnerLost.Selected; got != "Keep running" {
		t.Errorf("reloaded, the saved choice shows %q, want Keep running", got)
	}

	// A policy this editor does not know (a newer Baton's) is shown as it is and kept.
	e.load(&store.Workflow{Name: "future", MaxConcurrent: 1, OnOwnerLost: "migrate", Steps: []store.Step{{Argv: []string{"true"}}}})
	if got, d := e.OnOwnerLost.Selected, e.typed(); got != "migrate" || d.OnOwnerLost != "migrate" ||
		!slices.Contains(e.OnOwnerLost.Options, "migrate") {
		t.Errorf("an unknown policy shows %q among %q and reads back as %q", got, e.OnOwnerLost.Options, d.OnOwnerLost)
	}
}

// TestCloseAsksOnlyWhenRunsWouldBeCancelled: a run whose workflow keeps running when its
// window closes is not a reason to ask; the question names it beside runs that closing
// cancels, and with only such runs going the window closes at once.
func TestCloseAsksOnlyWhenRunsWouldBeCancelled(t *testing.T) {
	_, w, m, q := writerUI(t)
	m.Win.Resize(fyne.NewSize(1000, 700))
	closed := false
	m.Win.SetOnClosed(func() { closed = true })
	addPolicy(t, w, "keep", "adopt", "sleep", "30")
	addPolicy(t, w, "stop", "fail", "sleep", "30")
	keep := startRunning(t, w, q, "keep")
	t.Cleanup(func() { cancelAndWait(t, w, q, keep) })
	stop := startRunning(t, w, q, "stop")

	if n, k := m.RunsGoingHere(), m.RunsKeptGoing(); n != 1 || k != 1 {
		t.Errorf("%d runs would be cancelled and %d kept, want 1 and 1", n, k)
	}
	m.RequestClose()
	if overlayButton(m, "Close") == nil {
		t.Fatalf("no close confirmation with a fail run going; top overlay says %q", overlayText(m))
	}
	txt := overlayText(m)
	if !strings.Contains(txt, "1 run is going in this window") || !strings.Contains(txt, "1 other run goes on") {
		t.Errorf("confirmation says %q, want 1 run cancelled and 1 going on", txt)
	}
	test.Tap(overlayButton(m, "Cancel"))

	cancelAndWait(t, w, q, stop)
	if n, k := m.RunsGoingHere(), m.RunsKeptGoing(); n != 0 || k != 1 {
		t.Errorf("with the keep run alone: %d runs would be cancelled and %d kept, want 0 and 1", n, k)
	}
	m.RequestClose()
	if m.Win.Canvas().Overlays().Top() != nil || !closed || windowOpen(m) {
		t.Fatalf("with only a run that keeps running, closing asked (%q) or did not close (closed %v)", overlayText(m), closed)
	}
	if r := w.Snapshot().Run(keep); r.Status != store.StatusRunning {
		t.Errorf("the keep run is %s after the window closed, want running", r.Status)
	}
}

// TestRunViewShowsSupervisorPID: the run view names the run's supervisor process while it
// runs and after it ended.
func TestRunViewShowsSupervisorPID(t *testing.T) {
	_, w, m, q := writerUI(t)
	addPolicy(t, w, "long", "fail", "sleep", "30")
	q.waitFor(t, "the workflow listed", func() bool { return m.Workflows.Length() == 1 })
	id := startRunning(t, w, q, "long")
	m.ShowRun(id)
	var pid int
	q.waitFor(t, "the supervisor recorded", func() bool { pid = w.Snapshot().Run(id).SupervisorPID; return pid != 0 })
	want := fmt.Sprintf("supervisor pid %d", pid)
	q.waitFor(t, "the run view to show the supervisor", func() bool { return m.RunView.Supervisor.Text == want })
	if !m.RunView.Supervisor.Visible() || m.RunView.Status.Text != store.StatusRunning {
		t.Errorf("supervisor label visible %v while the run is %q", m.RunView.Supervisor.Visible(), m.RunView.Status.Text)
	}
	if pid == os.Getpid() || syscall.Kill(pid, 0) != nil {
		t.Errorf("supervisor pid %d is not a process of its own (this window is pid %d)", pid, os.Getpid())
	}
	cancelAndWait(t, w, q, id)
	q.waitFor(t, "the run view to show the run ended", func() bool { return m.RunView.Status.Text == store.StatusCancelled })
	if m.RunView.Supervisor.Text != want || !m.RunView.Supervisor.Visible() {
		t.Errorf("after the run ended the run view shows %q (visible %v), want %q", m.RunView.Supervisor.Text, m.RunView.Supervisor.Visible(), want)
	}

	// A queued run has no supervisor yet: nothing is shown.
	m.RunView.render(&store.Run{ID: "r0", Workflow: "long", Status: store.StatusQueued, Steps: 1}, os.Getpid(), time.Now())
	if m.RunView.Supervisor.Visible() {
		t.Errorf("a queued run shows %q", m.RunView.Supervisor.Text)
	}
}

// TestTakeoverAdoptsAndActivitySaysSo: the writer closes while a run that keeps running
// goes; the reader that takes over adopts it, and its role bar and Activity tab say so
// in words, read from the records the core wrote.
func TestTakeoverAdoptsAndActivitySaysSo(t *testing.T) {
	isolate(t)
	home := newHome(t)
	w1 := startWriter(t, home)
	addPolicy(t, w1, "keep", "adopt", "sleep", "30")
	w2 := openCore(t, home)
	m, q := newUI(t, w2)
	if err := w2.Start(); err != nil {
		t.Fatal(err)
	}
	q.waitFor(t, "the read-only role bar", roleIs(m, "Read-only"))
	id := startRunning(t, w1, q, "keep")

	if err := w1.Close(); err != nil {
		t.Fatal(err)
	}
	q.waitFor(t, "the takeover", roleIs(m, "Writer"))
	t.Cleanup(func() { cancelAndWait(t, w2, q, id) })
	if r := w2.Snapshot().Run(id); r.Status != store.StatusRunning || r.Owner == nil || r.Owner.Instance != w2.Status().Instance {
		t.Fatalf("after the takeover the run is %+v, want running and owned by the new writer", r)
	}
	// The takeover adopts the run when it already sees the closed window's identity ended;
	// a clean close frees state.lock before that, so the standing reaper may adopt it a
	// moment later instead. Either way the Activity tab says so; the role bar does when
	// the takeover did.
	if len(w2.LastTakeover().Adopted) == 1 {
		if want := "adopted 1 run still going"; !strings.Contains(m.Role.Label.Text, want) {
			t.Errorf("role bar = %q, want it to say %q", m.Role.Label.Text, want)
		}
	} else {
		t.Logf("the takeover did not adopt the run itself (role bar %q); the standing reaper does", m.Role.Label.Text)
	}
	want := fmt.Sprintf("Run %s of keep was adopted from window pid %d, which closed or died; it keeps running", id, os.Getpid())
	q.waitFor(t, "the adoption in the Activity tab", func() bool {
		return slices.ContainsFunc(m.entries, func(a view.Activity) bool { return a.What == want })
	})
	for _, a := range m.entries {
		if strings.Contains(a.What, "Run "+id) && a.What != want {
			t.Errorf("Activity also says %q of the adopted run", a.What)
		}
	}
}

// TestMakeThisWindowTheWriter: a read-only window shows "Make this window the writer";
// tapping it asks the writer to hand over: the window becomes the writer, the run that was
// going is adopted, not restarted, and the old writer reads on. A writer has no button.
func TestMakeThisWindowTheWriter(t *testing.T) {
	isolate(t)
	home := newHome(t)
	w1 := startWriter(t, home)
	addWorkflow(t, w1, "nightly", "sleep", "300")
	run, _, err := w1.Intents().StartRun(context.Background(), "nightly", "")
	if err != nil {
		t.Fatal(err)
	}
	w2 := openCore(t, home)
	m, q := newUI(t, w2)
	if err := w2.Start(); err != nil {
		t.Fatal(err)
	}
	q.waitFor(t, "the button in the read-only window", func() bool { return m.Role.Ask.Visible() })
	test.Tap(m.Role.Ask)
	q.waitFor(t, "this window writing", func() bool {
		return w2.Role() == host.RoleWriter && strings.Contains(m.Role.Note.Text, "is the writer now")
	})
	q.waitFor(t, "the button gone once writing", func() bool { return !m.Role.Ask.Visible() })
	if w1.Role() != host.RoleReader {
		t.Fatalf("the old writer is %v, want reader", w1.Role())
	}
	if tk := w2.LastTakeover(); len(tk.Adopted) != 1 || tk.Adopted[0].Run != run.ID {
		t.Fatalf("the hand-over adopted %+v, want run %s", tk.Adopted, run.ID)
	}
	if r := w2.Snapshot().Run(run.ID); r.Status != store.StatusRunning || r.Attempt != 1 {
		t.Fatalf("the run after the hand-over: %s attempt %d", r.Status, r.Attempt)
	}
	// Issue 22, bug 8: nobody died, so nothing "took over" and nothing was "left".
	q.waitFor(t, "the role bar saying who handed over", func() bool {
		return strings.Contains(m.Role.Label.Text, fmt.Sprintf("pid %d handed over", os.Getpid()))
	})
	if txt := m.Role.Label.Text; strings.Contains(txt, "took over") || strings.Contains(txt, "left running") {
		t.Errorf("after a hand-over the role bar says %q", txt)
	}
}
