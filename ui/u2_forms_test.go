package ui

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"baton/store"
)

// relayout lays the window out again, as a frame of the real driver does after a
// widget's size changed.
func relayout(m *Main) {
	sz := m.Win.Canvas().Size()
	m.Win.Resize(sz.AddWidthHeight(1, 0))
	m.Win.Resize(sz)
}

func absPos(o fyne.CanvasObject) fyne.Position {
	return fyne.CurrentApp().Driver().AbsolutePositionForObject(o)
}

// TestProblemsDoNotMoveTheForm (issue 12, usability 1): a problem appearing beside a
// field, or the message saying Save was refused, moves none of the controls below it, so
// a click lands on the control the person aimed at.
func TestProblemsDoNotMoveTheForm(t *testing.T) {
	_, w, m, q := writerUI(t)
	addWorkflow(t, w, "report", "true")
	q.waitFor(t, "the workflow listed", func() bool { return m.Workflows.Length() == 1 })
	m.Win.Resize(fyne.NewSize(1180, 760))

	m.ShowTab("Schedules")
	s := m.Schedules
	test.Tap(s.NewButton)
	relayout(m)
	below := []fyne.CanvasObject{s.TZ, s.Overlap, s.MaxRuntime}
	before := make([]fyne.Position, len(below))
	for i, o := range below {
		before[i] = absPos(o)
	}
	test.Type(s.Every, "x") // "1hx": a problem beside Every, and their count at the top
	relayout(m)
	if s.Errors["every"].Text == "" || s.Problem.Text == "" {
		t.Fatalf("no problem shown for every %q", s.Every.Text)
	}
	for i, o := range below {
		if p := absPos(o); p != before[i] {
			t.Errorf("schedule form: control %d moved from %v to %v when a problem appeared", i, before[i], p)
		}
	}

	m.OpenWorkflow("report")
	relayout(m)
	e := m.Editor
	below = []fyne.CanvasObject{e.OnOwnerLost, e.Steps[0].Name, e.Steps[0].Args[0]}
	for i, o := range below {
		before[i] = absPos(o)
	}
	e.MaxConcurrent.SetText("many")
	test.Tap(e.Save) // refused: the message at the top says why
	relayout(m)
	if e.Errors["max_concurrent"].Text == "" || e.Message.Text == "" {
		t.Fatalf("no problem shown: %q, message %q", e.Errors["max_concurrent"].Text, e.Message.Text)
	}
	for i, o := range below {
		if p := absPos(o); p != before[i] {
			t.Errorf("editor: control %d moved from %v to %v when a problem appeared", i, before[i], p)
		}
	}
	e.MaxConcurrent.SetText("1")
	relayout(m)
	for i, o := range below {
		if p := absPos(o); p != before[i] {
			t.Errorf("editor: control %d moved from %v to %v when the problem went", i, before[i], p)
		}
	}
}

// TestWheelOverAFieldScrollsTheForm (issue 12, usability 2): the wheel over an entry
// that does not have the focus scrolls the editor, as it does over a label.
func TestWheelOverAFieldScrollsTheForm(t *testing.T) {
	_, w, m, q := writerUI(t)
	steps := make([]store.Step, 4)
	for i := range steps {
		steps[i] = store.Step{Argv: []string{"echo", "a long argument that is longer than its field is wide, to be sure it scrolls"}}
	}
	if _, err := w.Intents().AddWorkflow(context.Background(), store.Workflow{Name: "tall", Steps: steps}); err != nil {
		t.Fatal(err)
	}
	q.waitFor(t, "the workflow listed", func() bool { return m.Workflows.Length() == 1 })
	m.OpenWorkflow("tall")
	m.Win.Resize(fyne.NewSize(1000, 600))
	relayout(m)
	if m.Editor.scroll.Content.MinSize().Height <= m.Editor.scroll.Size().Height {
		t.Fatal("the editor fits the window: nothing to scroll")
	}
	for _, en := range []*ScrollEntry{m.Editor.Steps[0].Args[1], m.Editor.Steps[0].Env} {
		m.Editor.scroll.ScrollToTop()
		at := absPos(en).AddXY(10, 10)
		test.Scroll(m.Win.Canvas(), at, 0, -120)
		if y := m.Editor.scroll.Offset.Y; y <= 0 {
			t.Errorf("the wheel over %q left the editor at offset %v", en.Text, y)
		}
	}
	// With the focus, the field is a plain entry again; without, it asks for no more
	// room than one: a long text never widens the window.
	arg := m.Editor.Steps[0].Args[1]
	plain := widget.NewEntry()
	if arg.MinSize() != plain.MinSize() {
		t.Errorf("min size %v with a long text, want a plain entry's %v", arg.MinSize(), plain.MinSize())
	}
	m.Win.Canvas().Focus(arg)
	test.Type(arg, strings.Repeat("!", 80)) // longer than the field: it scrolls under the caret
	if !strings.Contains(arg.Text, "!") || arg.Scroll != fyne.ScrollBoth {
		t.Errorf("focused: text %q, scroll %v", arg.Text, arg.Scroll)
	}
	m.Win.Canvas().Unfocus()
	if arg.Scroll != fyne.ScrollNone {
		t.Errorf("unfocused: scroll %v, want none", arg.Scroll)
	}
}

// TestRenameWorkflowFromTheEditor (issue 12, usability 6): Rename… renames the workflow
// open in the editor; the editor, the sidebar and its schedule show the new name; a name
// taken is refused beside the editor's buttons; a workflow with unsaved edits cannot be
// renamed until they are saved.
func TestRenameWorkflowFromTheEditor(t *testing.T) {
	_, w, m, q := writerUI(t)
	addWorkflow(t, w, "report", "true")
	addWorkflow(t, w, "other", "true")
	if _, _, err := w.Intents().AddSchedule(context.Background(), store.Schedule{Workflow: "report", Every: store.Duration(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	q.waitFor(t, "the workflows listed", func() bool { return m.Workflows.Length() == 2 })
	m.OpenWorkflow("report")
	e := m.Editor
	if e.Rename.Disabled() {
		t.Fatal("Rename disabled for a saved workflow")
	}
	m.renameTo("report", "Other")
	q.waitFor(t, "the refusal", func() bool { return strings.HasPrefix(e.Message.Text, "Not renamed:") })
	if !strings.Contains(e.Message.Text, "already exists") || w.Snapshot().Workflow("report") == nil {
		t.Errorf("rename to a name taken: message %q", e.Message.Text)
	}

	m.renameTo("report", " weekly ")
	q.waitFor(t, "the editor on the new name", func() bool { return e.existing == "weekly" })
	if e.Title.Text != "weekly" || e.Name.Text != "weekly" || e.dirty || !strings.HasPrefix(e.Message.Text, "Renamed from") {
		t.Errorf("editor: title %q, name %q, dirty %v, message %q", e.Title.Text, e.Name.Text, e.dirty, e.Message.Text)
	}
	if d := w.Snapshot(); d.Workflow("weekly") == nil || d.Schedules[0].Workflow != "weekly" {
		t.Errorf("saved: workflows %+v, schedule of %q", d.Workflows, d.Schedules[0].Workflow)
	}
	if m.selWF != "weekly" {
		t.Errorf("sidebar selection %q, want weekly", m.selWF)
	}

	e.MaxConcurrent.SetText("2")
	if !e.Rename.Disabled() {
		t.Error("Rename enabled with unsaved edits")
	}
}

// TestRetentionFieldsSaved: the editor's retention fields save the workflow's own
// retention ("30d" is 720h), show it back in days, and save none when emptied.
func TestRetentionFieldsSaved(t *testing.T) {
	_, w, m, q := writerUI(t)
	addWorkflow(t, w, "report", "true")
	q.waitFor(t, "the workflow listed", func() bool { return m.Workflows.Length() == 1 })
	m.OpenWorkflow("report")
	e := m.Editor
	test.Type(e.KeepRuns, "100")
	test.Type(e.KeepFor, "30d")
	test.Tap(e.Save)
	q.waitFor(t, "the retention saved", func() bool { return w.Snapshot().Workflow("report").Retention != nil })
	if got := *w.Snapshot().Workflow("report").Retention; got.KeepRuns != 100 || got.KeepFor.D() != 720*time.Hour {
		t.Errorf("saved retention %+v", got)
	}
	q.waitFor(t, "the editor saved", func() bool { return !e.dirty })
	m.OpenWorkflow("report")
	if e.KeepRuns.Text != "100" || e.KeepFor.Text != "30d" {
		t.Errorf("shown back as %q runs, %q", e.KeepRuns.Text, e.KeepFor.Text)
	}
	e.KeepRuns.SetText("")
	e.KeepFor.SetText("")
	test.Tap(e.Save)
	q.waitFor(t, "the retention cleared", func() bool { return w.Snapshot().Workflow("report").Retention == nil })
}

// TestSidebarNamesReadableAt700 (issue 12, usability 5): in a window 700 px wide the
// sidebar shows whole workflow names of a usual length, and the window keeps its width.
func TestSidebarNamesReadableAt700(t *testing.T) {
	_, w, m, q := writerUI(t)
	names := []string{"backup photos", "nightly report", "sync music library"}
	for _, n := range names {
		addWorkflow(t, w, n, "true")
	}
	q.waitFor(t, "the workflows listed", func() bool { return m.Workflows.Length() == len(names) })
	m.OpenWorkflow(names[0])
	for _, it := range m.Tabs.Items { // every tab in the window, as once the person opened each
		m.Tabs.Select(it)
	}
	m.ShowTab("Workflow")
	// A real window is never narrower than its content's minimum: laid out wide, as it
	// opens, that minimum must let the person make it 700 px wide.
	m.Win.Resize(fyne.NewSize(1180, 760))
	relayout(m)
	if min := m.Win.Content().MinSize().Width; min > 700 {
		t.Errorf("the window cannot be made narrower than %v px", min)
	}
	m.Win.Resize(fyne.NewSize(700, 600))
	relayout(m)
	for i, n := range names {
		label := workflowRowAt(t, m, i).Objects[0].(*fyne.Container).Objects[0].(*widget.Label)
		if label.Text != n {
			t.Fatalf("row %d shows %q, want %q", i, label.Text, n)
		}
		need := fyne.MeasureText(n, theme.TextSize(), fyne.TextStyle{Bold: true}).Width + 2*theme.InnerPadding()
		if label.Size().Width < need {
			t.Errorf("%q gets %v px of the %v it needs: cut to …", n, label.Size().Width, need)
		}
	}
}

// workflowRowAt returns the row of the sidebar's list drawn i-th from the top: its text
// (name, details) and its status icon.
func workflowRowAt(t *testing.T, m *Main, i int) *fyne.Container {
	t.Helper()
	var rows []*fyne.Container
	walkObjects(m.Workflows, func(o fyne.CanvasObject) {
		if x, ok := o.(*fyne.Container); ok && len(x.Objects) == 2 {
			if _, ok := x.Objects[1].(*widget.Icon); ok && x.Visible() && x.Size().Width > 0 {
				rows = append(rows, x)
			}
		}
	})
	slices.SortFunc(rows, func(a, b *fyne.Container) int { return cmp.Compare(absPos(a).Y, absPos(b).Y) })
	if i >= len(rows) {
		t.Fatalf("%d rows drawn, want row %d", len(rows), i)
	}
	return rows[i]
}

// TestSidebarBadgesByStatus (issue 12, usability 7): the sidebar's badge of a workflow
// is in the colour of its newest run's status: failed red, succeeded green.
func TestSidebarBadgesByStatus(t *testing.T) {
	_, w, m, q := writerUI(t)
	addWorkflow(t, w, "bad", "false")
	addWorkflow(t, w, "good", "true")
	for _, n := range []string{"bad", "good"} {
		if _, _, err := w.Intents().StartRun(context.Background(), n, ""); err != nil {
			t.Fatal(err)
		}
	}
	q.waitFor(t, "both runs ended", func() bool {
		return m.lastOf["bad"] == store.StatusFailed && m.lastOf["good"] == store.StatusSucceeded
	})
	m.Win.Resize(fyne.NewSize(1000, 600))
	m.Workflows.Refresh()
	for i, want := range []fyne.ThemeColorName{theme.ColorNameError, theme.ColorNameSuccess} {
		icon := workflowRowAt(t, m, i).Objects[1].(*widget.Icon)
		if got := iconColorName(icon.Resource); got != want {
			t.Errorf("row %d: badge coloured %q, want %q", i, got, want)
		}
	}
}

// iconColorName is the theme colour a themed icon is drawn in.
func iconColorName(r fyne.Resource) fyne.ThemeColorName {
	switch x := r.(type) {
	case *theme.ErrorThemedResource:
		return theme.ColorNameError
	case *theme.ThemedResource:
		return x.ColorName
	}
	return ""
}

// TestSplitCommandLineIntoArguments (issue 12, usability 10): a whole command line typed
// as the program is offered to be split into arguments, as a shell would split it.
func TestSplitCommandLineIntoArguments(t *testing.T) {
	_, w, m, q := writerUI(t)
	m.NewWorkflow()
	e := m.Editor
	test.Type(e.Name, "list")
	if e.Steps[0].Split.Visible() {
		t.Error("Split offered for an empty program")
	}
	test.Type(e.Steps[0].Args[0], `ls -la '/tmp/my dir'`)
	if !e.Steps[0].Split.Visible() {
		t.Fatal("no Split offered for a whole command line")
	}
	test.Tap(e.Steps[0].Split)
	var got []string
	for _, a := range e.Steps[0].Args {
		got = append(got, a.Text)
	}
	if want := []string{"ls", "-la", "/tmp/my dir"}; !slices.Equal(got, want) {
		t.Errorf("arguments after the split %q, want %q", got, want)
	}
	if e.Steps[0].Split.Visible() {
		t.Error("Split still offered after the split")
	}
	test.Tap(e.Save)
	q.waitFor(t, "saved", func() bool { wf := w.Snapshot().Workflow("list"); return wf != nil })
	if argv := w.Snapshot().Workflow("list").Steps[0].Argv; !slices.Equal(argv, []string{"ls", "-la", "/tmp/my dir"}) {
		t.Errorf("saved argv %q", argv)
	}
}

// walkObjects calls fn for o and every object drawn inside it.
func walkObjects(o fyne.CanvasObject, fn func(fyne.CanvasObject)) {
	fn(o)
	switch x := o.(type) {
	case *fyne.Container:
		for _, c := range x.Objects {
			walkObjects(c, fn)
		}
	case fyne.Widget:
		for _, c := range test.WidgetRenderer(x).Objects() {
			walkObjects(c, fn)
		}
	}
}

// TestReaderFollowsARename: a window that has the workflow open while another renames it
// follows it under the new name, its unsaved edits kept, rather than saying it was
// deleted.
func TestReaderFollowsARename(t *testing.T) {
	isolate(t)
	home := newHome(t)
	w1 := startWriter(t, home)
	addWorkflow(t, w1, "report", "true")
	w2 := openCore(t, home)
	m, q := newUI(t, w2)
	if err := w2.Start(); err != nil {
		t.Fatal(err)
	}
	q.waitFor(t, "the workflow in the reader", func() bool { return m.Workflows.Length() == 1 })
	m.OpenWorkflow("report")
	e := m.Editor
	e.MaxConcurrent.SetText("4") // an edit in progress
	if _, err := w1.Intents().RenameWorkflow(context.Background(), "report", "weekly"); err != nil {
		t.Fatal(err)
	}
	q.waitFor(t, "the editor on the new name", func() bool { return e.existing == "weekly" })
	if !e.open || e.Title.Text != "weekly" || e.Name.Text != "weekly" || e.MaxConcurrent.Text != "4" || !e.dirty {
		t.Errorf("editor: open %v, title %q, name %q, max %q, dirty %v", e.open, e.Title.Text, e.Name.Text, e.MaxConcurrent.Text, e.dirty)
	}
	if !strings.HasPrefix(e.Message.Text, "Renamed from") {
		t.Errorf("message %q", e.Message.Text)
	}
}
