package ui

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"baton/host"
	"baton/store"
	"baton/workflow"
)

// writeControls are the controls that would write; a read-only window disables them.
// Run now and Cancel run are not among them: a read-only window forwards them.
func writeControls(m *Main) map[string]fyne.Disableable {
	return map[string]fyne.Disableable{"Save": m.Editor.Save, "Delete": m.Editor.Delete}
}

// A read-only window disables what would edit, and sends Run now and Cancel run to the
// writer, which applies each once and answers (issue 14: forwarding).
func TestReadOnlyWindowDisablesWriteControls(t *testing.T) {
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
	want := fmt.Sprintf("Read-only: window pid %d on this computer is writing (since ", os.Getpid())
	q.waitFor(t, "the read-only role bar", roleIs(m, want))
	q.waitFor(t, "the run in the reader", func() bool { return m.Runs.Length() == 1 })

	m.OpenWorkflow("nightly")
	m.ShowRun(run.ID)
	q.waitFor(t, "the running run in the run view", func() bool { return m.RunView.Status.Text == store.StatusRunning })
	for name, c := range writeControls(m) {
		if !c.Disabled() {
			t.Errorf("%s is enabled in a read-only window", name)
		}
	}
	if m.Editor.Duplicate.Disabled() || m.Editor.RunNow.Disabled() || m.RunView.Cancel.Disabled() {
		t.Errorf("Duplicate (%v), Run now (%v) or Cancel run (%v) is disabled in a read-only window",
			m.Editor.Duplicate.Disabled(), m.Editor.RunNow.Disabled(), m.RunView.Cancel.Disabled())
	}
	if !m.Editor.ReadOnlyNote.Visible() || !strings.Contains(m.Editor.ReadOnlyNote.Text, fmt.Sprintf("make changes in window pid %d", os.Getpid())) {
		t.Errorf("read-only note = %q (visible %v), want the reason next to the disabled buttons", m.Editor.ReadOnlyNote.Text, m.Editor.ReadOnlyNote.Visible())
	}
	sent := fmt.Sprintf("sent to the writer, window pid %d", os.Getpid())
	if !m.RunView.Note.Visible() || !strings.Contains(m.RunView.Note.Text, sent) {
		t.Errorf("run view note = %q, want that Cancel is %s", m.RunView.Note.Text, sent)
	}

	// Run now in the reader: the writer starts one run, owned by the writer.
	test.Tap(m.Editor.RunNow)
	q.waitFor(t, "the forwarded run", func() bool { return len(w1.Snapshot().Runs) == 2 })
	q.waitFor(t, "the editor to say where the run went", func() bool {
		return strings.Contains(m.Editor.Message.Text, fmt.Sprintf("(sent to the writer, pid %d)", os.Getpid()))
	})
	second := w1.Snapshot().Runs[1]
	if second.Status != store.StatusQueued { // behind the running one in its lane of 1
		t.Errorf("the forwarded run is %s, want queued", second.Status)
	}
	// Cancel run in the reader, on the run it just started (the run view shows it): the
	// writer cancels it.
	q.waitFor(t, "the new run in the run view", func() bool { return m.selectedRun() != nil && m.selectedRun().ID == second.ID })
	q.waitFor(t, "Cancel enabled for it", func() bool { return !m.RunView.Cancel.Disabled() })
	test.Tap(m.RunView.Cancel)
	q.waitFor(t, "the forwarded cancel", func() bool { return w1.Snapshot().Run(second.ID).Status == store.StatusCancelled })
	q.waitFor(t, "the run view to say where the cancel went", func() bool {
		return strings.Contains(m.RunView.Note.Text, fmt.Sprintf("Cancelled (sent to the writer, pid %d)", os.Getpid()))
	})
	if n := len(w1.Snapshot().Runs); n != 2 {
		t.Errorf("the writer has %d runs after one Run now in the reader, want 2", n)
	}

	// When the writer goes, the reason goes with it.
	if err := w1.Close(); err != nil {
		t.Fatal(err)
	}
	q.waitFor(t, "the takeover", roleIs(m, "Writer"))
	q.waitFor(t, "the run to end", func() bool { return m.RunView.Status.Text != store.StatusRunning })
	if m.RunView.Note.Visible() && strings.Contains(m.RunView.Note.Text, "Read-only") {
		t.Errorf("run view still says %q in the writer", m.RunView.Note.Text)
	}
}

func TestReaderTakesOverEnablesControlsAndKeepsEdit(t *testing.T) {
	isolate(t)
	home := newHome(t)
	w1 := startWriter(t, home)
	addWorkflow(t, w1, "nightly", "rsync", "-a")
	w2 := openCore(t, home)
	m, q := newUI(t, w2)
	if err := w2.Start(); err != nil {
		t.Fatal(err)
	}
	q.waitFor(t, "the read-only role bar", roleIs(m, "Read-only"))
	m.OpenWorkflow("nightly")

	// The person edits while read-only: a lane of 3 and one more argument.
	m.Editor.MaxConcurrent.SetText("")
	test.Type(m.Editor.MaxConcurrent, "3")
	test.Tap(m.Editor.Steps[0].AddArg)
	args := m.Editor.Steps[0].Args
	test.Type(args[len(args)-1], "/data")
	if !m.Editor.Save.Disabled() {
		t.Fatal("Save is enabled while read-only")
	}

	if err := w1.Close(); err != nil {
		t.Fatal(err)
	}
	// What the role bar says of a clean close is issue 12's bug 11 (view.RoleText's tests).
	q.waitFor(t, "the role bar to say Writer", roleIs(m, "Writer"))
	if got := m.Editor.MaxConcurrent.Text; got != "3" {
		t.Errorf("max concurrent = %q after the takeover, want the edit 3", got)
	}
	args = m.Editor.Steps[0].Args
	if got := args[len(args)-1].Text; got != "/data" {
		t.Errorf("last argument = %q after the takeover, want the edit /data", got)
	}
	for name, c := range writeControls(m) {
		if name != "Cancel run" && c.Disabled() {
			t.Errorf("%s is disabled in the writer", name)
		}
	}
	if m.Editor.ReadOnlyNote.Visible() {
		t.Errorf("read-only note still shown in the writer: %q", m.Editor.ReadOnlyNote.Text)
	}

	test.Tap(m.Editor.Save)
	q.waitFor(t, "the edit saved", func() bool {
		wf := w2.Snapshot().Workflow("nightly")
		return wf != nil && wf.MaxConcurrent == 3 && slices.Equal(wf.Steps[0].Argv, []string{"rsync", "-a", "/data"})
	})
	q.waitFor(t, "the editor to show it saved", func() bool { return !m.Editor.dirty && m.Editor.Save.Disabled() })
}

func TestValidationMessagesNextToFields(t *testing.T) {
	_, w, m, q := writerUI(t)
	addWorkflow(t, w, "taken", "true")

	m.NewWorkflow()
	e := m.Editor
	shown := func(field string) string {
		t.Helper()
		l := e.Errors[field]
		if l == nil {
			return ""
		}
		return l.Text
	}
	if got := shown("name"); !strings.Contains(got, "must not be empty") {
		t.Errorf("name message = %q, want 'must not be empty'", got)
	}
	test.Type(e.Name, "photos")
	if got := shown("name"); got != "" {
		t.Errorf("name message = %q after typing a name", got)
	}
	if got := shown("steps[0].argv"); !strings.Contains(got, "must name a program") {
		t.Errorf("argv message = %q, want 'must name a program'", got)
	}
	test.Type(e.Steps[0].Args[0], "rsync")
	e.MaxConcurrent.SetText("")
	test.Type(e.MaxConcurrent, "many")
	if got := shown("max_concurrent"); !strings.Contains(got, "whole number") {
		t.Errorf("max_concurrent message = %q", got)
	}
	e.MaxConcurrent.SetText("-1")
	if got := shown("max_concurrent"); !strings.Contains(got, "at least 1") {
		t.Errorf("max_concurrent message for -1 = %q, want the core's 'at least 1'", got)
	}
	e.MaxConcurrent.SetText("2")
	test.Type(e.Steps[0].Timeout, "soon")
	if got := shown("steps[0].timeout"); !strings.Contains(got, "duration") {
		t.Errorf("timeout message = %q", got)
	}
	test.Tap(e.Save)
	q.settle(100 * time.Millisecond)
	if w.Snapshot().Workflow("photos") != nil {
		t.Fatal("an invalid draft was saved")
	}
	e.Steps[0].Timeout.SetText("10m")
	e.Steps[0].Env.SetText("NOEQUALS")
	if got := shown("steps[0].env"); !strings.Contains(got, "NAME=value") {
		t.Errorf("env message = %q", got)
	}
	e.Steps[0].Env.SetText("LANG=C\nDEST=/backup")
	for k, l := range e.Errors {
		if l.Text != "" {
			t.Errorf("message for %s still shown: %q", k, l.Text)
		}
	}
	test.Tap(e.Save)
	q.waitFor(t, "the workflow saved", func() bool { return e.existing == "photos" && !e.dirty })
	got := w.Snapshot().Workflow("photos")
	if got.MaxConcurrent != 2 || got.Steps[0].Timeout.D() != 10*time.Minute || got.Steps[0].Env["DEST"] != "/backup" {
		t.Errorf("saved %+v", *got)
	}

	// The core's rule of names needs the document: the name is taken.
	m.NewWorkflow()
	test.Type(e.Name, "taken")
	test.Type(e.Steps[0].Args[0], "true")
	test.Tap(e.Save)
	q.waitFor(t, "the conflict next to the name", func() bool { return strings.Contains(shown("name"), "already exists") })
}

// TestEditorShowsEveryProblemAndSaveSaysWhy (issue 12, bug 3): every problem of a draft
// shows beside its field at once; Save with problems says so and saves nothing; the
// message follows the count as they are fixed, and goes when they are.
func TestEditorShowsEveryProblemAndSaveSaysWhy(t *testing.T) {
	_, w, m, q := writerUI(t)
	m.NewWorkflow()
	e := m.Editor
	e.MaxConcurrent.SetText("")
	test.Type(e.MaxConcurrent, "-1")
	for field, want := range map[string]string{"name": "must not be empty", "max_concurrent": "must be at least 1, got -1",
		"steps[0].argv": "must name a program"} {
		if l := e.Errors[field]; !l.Visible() || !strings.Contains(l.Text, want) {
			t.Errorf("%s: message %q (visible %v), want %q beside it", field, l.Text, l.Visible(), want)
		}
	}
	test.Tap(e.Save)
	if !e.Message.Visible() || e.Message.Text != "Not saved. Fix the 3 problems marked below." {
		t.Errorf("after Save with 3 problems the message is %q (visible %v)", e.Message.Text, e.Message.Visible())
	}
	test.Type(e.Name, "photos")
	if e.Message.Text != "Not saved. Fix the 2 problems marked below." {
		t.Errorf("after fixing one, the message is %q", e.Message.Text)
	}
	e.MaxConcurrent.SetText("2")
	test.Type(e.Steps[0].Args[0], "true")
	if e.Message.Text != "" {
		t.Errorf("the message %q is still shown with no problem left", e.Message.Text)
	}
	if len(w.Snapshot().Workflows) != 0 {
		t.Fatal("a draft with problems was saved")
	}
	test.Tap(e.Save)
	q.waitFor(t, "the workflow saved", func() bool { return e.existing == "photos" && !e.dirty })
}

// TestEditorRefusesANameTakenIgnoringCaseAndSpaces (issue 12, bug 4): "Backup " is the
// name of "backup": the editor says so beside the name, and Save adds nothing.
func TestEditorRefusesANameTakenIgnoringCaseAndSpaces(t *testing.T) {
	_, w, m, q := writerUI(t)
	addWorkflow(t, w, "backup", "true")
	q.waitFor(t, "the workflow listed", func() bool { return m.Workflows.Length() == 1 })
	m.NewWorkflow()
	e := m.Editor
	test.Type(e.Name, "Backup ")
	test.Type(e.Steps[0].Args[0], "true")
	if l := e.Errors["name"]; !l.Visible() || l.Text != `a workflow named "backup" already exists` {
		t.Errorf("name message %q (visible %v), want the name taken", l.Text, l.Visible())
	}
	test.Tap(e.Save)
	if e.Message.Text != "Not saved. Fix the problem marked below." {
		t.Errorf("message %q", e.Message.Text)
	}
	q.settle(100 * time.Millisecond)
	if n := len(w.Snapshot().Workflows); n != 1 {
		t.Errorf("%d workflows, want 1", n)
	}
}

func TestRunViewFollowsEvents(t *testing.T) {
	_, w, m, q := writerUI(t)
	// The step goes on once the test saw it running: however slow the machine, the view
	// has a running run to show.
	goOn := filepath.Join(t.TempDir(), "go-on")
	addWorkflow(t, w, "noisy", "sh", "-c", "echo hello-from-step; while [ ! -e "+goOn+" ]; do sleep 0.02; done; echo second-line; exit 3")
	q.waitFor(t, "the workflow listed", func() bool { return m.Workflows.Length() == 1 })
	m.OpenWorkflow("noisy")
	test.Tap(m.Editor.RunNow)
	q.waitFor(t, "the run view to show the run running", func() bool { return m.RunView.Status.Text == store.StatusRunning })
	if err := os.WriteFile(goOn, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	q.waitFor(t, "the run to fail with exit code 3", func() bool {
		return m.RunView.Status.Text == store.StatusFailed && m.RunView.Exit.Text == "3"
	})
	if !m.RunView.Error.Visible() || !strings.Contains(m.RunView.Error.Text, "code 3") {
		t.Errorf("error = %q (visible %v)", m.RunView.Error.Text, m.RunView.Error.Visible())
	}
	m.ShowTab("Runs") // the log joins the window when its tab is first shown
	q.waitFor(t, "the log tail", func() bool {
		s := m.RunView.Log.Text()
		return strings.Contains(s, "\nhello-from-step\n") && strings.Contains(s, "\nsecond-line\n") // the output, not the first line's command
	})
	if m.Runs.Length() != 1 {
		t.Errorf("runs list has %d rows, want 1", m.Runs.Length())
	}
	if m.Chart.Bars() != 1 {
		t.Errorf("chart shows %d runs, want 1", m.Chart.Bars())
	}
	if m.Timeline.Spans() != 1 {
		t.Errorf("timeline shows %d runs, want 1", m.Timeline.Spans())
	}
}

func TestCancelAndDeleteWithConfirmation(t *testing.T) {
	_, w, m, q := writerUI(t)
	addWorkflow(t, w, "long", "sleep", "300")
	q.waitFor(t, "the workflow listed", func() bool { return m.Workflows.Length() == 1 })
	m.OpenWorkflow("long")
	test.Tap(m.Editor.RunNow)
	q.waitFor(t, "the run running", func() bool { return m.RunView.Status.Text == store.StatusRunning })
	m.ShowRun(m.selRun)
	q.waitFor(t, "Cancel enabled", func() bool { return !m.RunView.Cancel.Disabled() })
	test.Tap(m.RunView.Cancel)
	q.waitFor(t, "the run cancelled", func() bool { return m.RunView.Status.Text == store.StatusCancelled })

	var asked []string
	answer := false
	m.opts.Confirm = func(title, msg string, fn func(bool)) { asked = append(asked, msg); fn(answer) }
	test.Tap(m.Editor.Delete)
	q.settle(100 * time.Millisecond)
	if len(asked) != 1 || w.Snapshot().Workflow("long") == nil {
		t.Fatalf("asked %q; the workflow must survive a 'no'", asked)
	}
	answer = true
	test.Tap(m.Editor.Delete)
	q.waitFor(t, "the workflow deleted", func() bool { return w.Snapshot().Workflow("long") == nil })
	q.waitFor(t, "the list empty", func() bool { return m.Workflows.Length() == 0 })
}

func TestStepsReorderAndDuplicate(t *testing.T) {
	_, w, m, q := writerUI(t)
	if _, err := w.Intents().AddWorkflow(context.Background(), store.Workflow{Name: "two", Steps: []store.Step{{Name: "a", Argv: []string{"true"}}, {Name: "b", Argv: []string{"false"}}}}); err != nil {
		t.Fatal(err)
	}
	q.waitFor(t, "listed", func() bool { return m.Workflows.Length() == 1 })
	m.OpenWorkflow("two")
	test.Tap(m.Editor.Duplicate)
	if got := m.Editor.Name.Text; got != "two copy" {
		t.Fatalf("duplicate name = %q", got)
	}
	test.Tap(m.Editor.Steps[1].Up)
	test.Tap(m.Editor.AddStep)
	test.Type(m.Editor.Steps[2].Args[0], "echo")
	test.Tap(m.Editor.Steps[2].AddArg)
	test.Type(m.Editor.Steps[2].Args[1], "two words")
	test.Tap(m.Editor.Save)
	q.waitFor(t, "the copy saved", func() bool { return m.Editor.existing == "two copy" && !m.Editor.dirty })
	c := w.Snapshot().Workflow("two copy")
	var names []string
	for _, s := range c.Steps {
		names = append(names, s.Name)
	}
	if !slices.Equal(names, []string{"b", "a", "step 3"}) || !slices.Equal(c.Steps[2].Argv, []string{"echo", "two words"}) {
		t.Errorf("saved steps %v, argv %q", names, c.Steps[2].Argv)
	}
	test.Tap(m.Editor.Steps[0].Remove)
	test.Tap(m.Editor.Save)
	q.waitFor(t, "the removal saved", func() bool { return len(w.Snapshot().Workflow("two copy").Steps) == 2 })
	// Search filters the list.
	test.Type(m.Search, "copy")
	if m.Workflows.Length() != 1 {
		t.Errorf("search 'copy' lists %d workflows, want 1", m.Workflows.Length())
	}
}

func TestRoleAndActivityTexts(t *testing.T) {
	now := time.Date(2026, 5, 4, 14, 30, 0, 0, time.Local)
	doc := &store.Doc{Writer: &store.Owner{PID: 77, Since: time.Date(2026, 5, 4, 14, 2, 0, 0, time.Local)}}
	if got, want := RoleText(host.Status{Role: host.RoleReader, WriterPID: 77}, host.Takeover{}, doc, now),
		"Read-only: window pid 77 on this computer is writing (since 14:02)"; got != want {
		t.Errorf("reader: %q, want %q", got, want)
	}
	tk := host.Takeover{Epoch: 3, OldOwner: &store.Owner{PID: 41}, TookMS: 41, Completed: now.Add(-time.Minute),
		Reaped: []workflow.Orphan{{Action: "failed"}, {Action: "failed"}}}
	if got, want := RoleText(host.Status{Role: host.RoleWriter}, tk, doc, now),
		"Writer — took over from pid 41, failed 2 runs it left running, 41 ms"; got != want {
		t.Errorf("writer: %q, want %q", got, want)
	}
	if got := RoleText(host.Status{Role: host.RoleWriter}, tk, doc, now.Add(TakeoverNoteFor)); got != "Writer" {
		t.Errorf("writer later: %q, want the note gone", got)
	}
	if got := RoleText(host.Status{Role: host.RolePromoting}, tk, doc, now); got != "Taking over…" {
		t.Errorf("promoting: %q", got)
	}
	e := store.Entry{Kind: "reap", PID: 9, Data: map[string]any{"run": "r3", "workflow": "w", "owner_pid": float64(41),
		"action": "failed", "evidence": "instance lock free"}}
	if got, want := Describe(e), "Run r3 of w failed: its window pid 41 had died (instance lock free)"; got != want {
		t.Errorf("reap: %q, want %q", got, want)
	}
	e = store.Entry{Kind: "takeover", PID: 9, Data: map[string]any{"old_owner": map[string]any{"pid": float64(41)},
		"reaped": []any{map[string]any{}}, "epoch": float64(3), "took_ms": 1.5}}
	if got := Describe(e); !strings.Contains(got, "Window pid 9 became the writer, taking over from pid 41; it reaped 1 run") {
		t.Errorf("takeover: %q", got)
	}
}

// TestRunsListDoesNotAllocatePerRun checks that a refresh of the runs list reuses its
// index and redraws only the visible rows: a refresh with 10,000 runs allocates no more
// than one with 100.
func TestRunsListDoesNotAllocatePerRun(t *testing.T) {
	allocs := map[int]float64{}
	for _, n := range []int{100, 10000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			isolate(t)
			home := newHome(t)
			seedHome(t, home, 1000, n)
			w := openCoreWith(t, home, host.Options{KeepFinished: -1}) // the whole history in the live list
			m, q := newUI(t, w)
			if err := w.Start(); err != nil {
				t.Fatal(err)
			}
			q.waitFor(t, "every run listed", func() bool { return m.Runs.Length() == n })
			m.Win.Resize(fyne.NewSize(1000, 700))
			m.ShowTab("Runs")
			refresh := func() { m.reindexRuns(); m.Runs.Refresh() }
			refresh()
			// AllocsPerRun counts every goroutine's allocations: the window's own work beside
			// the refresh (a home check every 2 s, a retention pass) only ever adds, so the
			// least of three measurements is the refresh's own.
			allocs[n] = testing.AllocsPerRun(5, refresh)
			for range 2 {
				allocs[n] = min(allocs[n], testing.AllocsPerRun(5, refresh))
			}
			m.RunsFilter.SetText("workflow 0007")
			want := 0
			for _, r := range w.Snapshot().Runs {
				if r.Workflow == "workflow 0007" {
					want++
				}
			}
			if got := m.Runs.Length(); got != want || want == 0 {
				t.Errorf("filter lists %d runs, want %d", got, want)
			}
		})
	}
	t.Logf("allocations per refresh: %.0f with 100 runs, %.0f with 10,000", allocs[100], allocs[10000])
	if allocs[10000] > allocs[100]*1.2+50 {
		t.Errorf("a refresh with 10,000 runs allocates %.0f times, with 100 runs %.0f: it grows with the history", allocs[10000], allocs[100])
	}
}
