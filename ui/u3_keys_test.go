package ui

import (
	"context"
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
)

// press does what the desktop driver does with a key chord: the main menu's item with
// that shortcut runs (a menu shortcut works whatever has the focus).
func press(t *testing.T, m *Main, k fyne.KeyName, mod fyne.KeyModifier) {
	t.Helper()
	want := (&desktop.CustomShortcut{KeyName: k, Modifier: mod}).ShortcutName()
	for _, mn := range m.Win.MainMenu().Items {
		if it := menuItemWith(mn.Items, want); it != nil {
			it.Action()
			return
		}
	}
	t.Fatalf("no menu item has the shortcut %s", want)
}

// menuItemWith is the item of items, or of their submenus (the desktop driver looks
// there too), whose shortcut is named name.
func menuItemWith(items []*fyne.MenuItem, name string) *fyne.MenuItem {
	for _, it := range items {
		if it.Shortcut != nil && it.Shortcut.ShortcutName() == name {
			return it
		}
		if it.ChildMenu != nil {
			if found := menuItemWith(it.ChildMenu.Items, name); found != nil {
				return found
			}
		}
	}
	return nil
}

// typeKey types key k into whatever has the focus.
func typeKey(t *testing.T, m *Main, k fyne.KeyName) {
	t.Helper()
	f := m.Win.Canvas().Focused()
	if f == nil {
		t.Fatalf("%s with nothing focused", k)
	}
	f.TypedKey(&fyne.KeyEvent{Name: k})
}

// tabTo presses Tab until o has the focus, and fails if it never does.
func tabTo(t *testing.T, m *Main, o fyne.Focusable, what string) {
	t.Helper()
	for range 80 {
		test.FocusNext(m.Win.Canvas())
		if m.Win.Canvas().Focused() == o {
			return
		}
	}
	t.Fatalf("Tab never reaches the %s", what)
}

// TestListsReachableFromTheKeyboard (issue 22, bug 3): Tab reaches the workflow list and
// the run list; Ctrl+F, typing and Down (or Enter) open the match; the arrows move
// through a list, opening what they reach; Enter goes on to the editor or the log; F10
// opens the menu bar, Alt and a menu's first letter that menu.
func TestListsReachableFromTheKeyboard(t *testing.T) {
	_, w, m, q := writerUI(t)
	for _, name := range []string{"backup", "report", "reindex"} {
		addWorkflow(t, w, name, "echo", name)
	}
	q.waitFor(t, "the workflows listed", func() bool { return m.Workflows.Length() == 3 })
	c := m.Win.Canvas()
	tabTo(t, m, m.Workflows, "workflow list")

	press(t, m, fyne.KeyF, fyne.KeyModifierShortcutDefault)
	if c.Focused() != m.Search {
		t.Fatalf("Ctrl+F focused %T", c.Focused())
	}
	test.Type(m.Search, "rep")
	typeKey(t, m, fyne.KeyDown)
	if c.Focused() != m.Workflows || m.Editor.existing != "report" {
		t.Fatalf("Down in the search: focus on %T, editor on %q; want the list, report", c.Focused(), m.Editor.existing)
	}
	m.Search.SetText("re")
	c.Focus(m.Search)
	typeKey(t, m, fyne.KeyReturn)
	if c.Focused() != m.Workflows || m.Editor.existing == "" {
		t.Fatalf("Enter in the search: focus on %T, editor on %q", c.Focused(), m.Editor.existing)
	}
	first := m.Editor.existing
	typeKey(t, m, fyne.KeyDown)
	if m.Editor.existing == first || m.Editor.existing == "" {
		t.Errorf("Down on the list left the editor on %q", m.Editor.existing)
	}
	typeKey(t, m, fyne.KeyReturn)
	if c.Focused() != m.Editor.MaxConcurrent {
		t.Errorf("Enter on the list focused %T, want the editor's first field", c.Focused())
	}

	var toggled fyne.Canvas
	menuToggled = func(c fyne.Canvas) { toggled = c }
	t.Cleanup(func() { menuToggled = func(fyne.Canvas) {} })
	c.Focus(m.Workflows)
	typeKey(t, m, fyne.KeyF10)
	if toggled != c {
		t.Error("F10 on the workflow list did not open the menu bar")
	}
	// Alt and the first letter of a menu open that menu (Alt+F File ... Alt+H Help).
	var opened []string
	menuOpened = func(oc fyne.Canvas, i int) {
		if oc == c {
			opened = append(opened, m.Win.MainMenu().Items[i].Label)
		}
	}
	t.Cleanup(func() { menuOpened = func(fyne.Canvas, int) {} })
	var labels []string
	for _, mn := range m.Win.MainMenu().Items {
		labels = append(labels, mn.Label)
		press(t, m, fyne.KeyName(strings.ToUpper(mn.Label[:1])), fyne.KeyModifierAlt)
	}
	if !slices.Equal(opened, labels) {
		t.Errorf("Alt and each menu's letter opened %q, want %q", opened, labels)
	}
	lines := shortcutLines(m.Win.MainMenu())
	if !slices.ContainsFunc(lines, func(l string) bool {
		return strings.HasPrefix(l, "Alt+R ") && strings.HasSuffix(l, " View › Open menu › Run")
	}) {
		t.Errorf("Help › Keyboard shortcuts does not list Alt+R:\n%s", strings.Join(lines, "\n"))
	}
	keys := map[string]string{} // no chord is taken twice: the first item would win
	for _, l := range lines {
		k, what, _ := strings.Cut(l, "  ")
		if k = strings.TrimSpace(k); keys[k] != "" {
			t.Errorf("%s is the shortcut of %q and of %q", k, keys[k], strings.TrimSpace(what))
		}
		keys[k] = strings.TrimSpace(what)
	}

	// The runs: Ctrl+L, then Enter lands on the first run, Down on the next, Enter on
	// its log.
	for range 2 {
		if _, _, err := w.Intents().RunNow(context.Background(), "backup", ""); err != nil {
			t.Fatal(err)
		}
	}
	q.waitFor(t, "the runs listed", func() bool { return m.Runs.Length() == 2 })
	m.Runs.UnselectAll()
	press(t, m, fyne.KeyL, fyne.KeyModifierShortcutDefault)
	typeKey(t, m, fyne.KeyReturn)
	if c.Focused() != m.Runs || m.selRun != m.rowRun(0).ID {
		t.Fatalf("Enter in the runs filter: focus on %T, run %q", c.Focused(), m.selRun)
	}
	typeKey(t, m, fyne.KeyDown)
	if m.selRun != m.rowRun(1).ID {
		t.Errorf("Down on the runs list shows run %q, want the second", m.selRun)
	}
	typeKey(t, m, fyne.KeyReturn)
	if c.Focused() != m.RunView.LogPane.Select {
		t.Errorf("Enter on the runs list focused %T, want the log", c.Focused())
	}
	toggled = nil
	typeKey(t, m, fyne.KeyF10)
	if toggled != c {
		t.Error("F10 on the log did not open the menu bar")
	}
	tabTo(t, m, m.Runs, "run list")
}

// TestDialogsAnswerTheKeyboard (issue 22, bug 3): Escape says no and Enter says yes to
// a confirmation, whose button names the action; Enter renames in Rename.
func TestDialogsAnswerTheKeyboard(t *testing.T) {
	_, w, m, q := writerUI(t)
	m.opts.Confirm = m.confirm
	addWorkflow(t, w, "report", "true")
	q.waitFor(t, "the workflow listed", func() bool { return m.Workflows.Length() == 1 })
	m.OpenWorkflow("report")
	c := m.Win.Canvas()

	press(t, m, fyne.KeyE, fyne.KeyModifierShortcutDefault) // Rename…
	if _, ok := c.Focused().(*KeyEntry); !ok {
		t.Fatalf("Rename focused %T, want its name field", c.Focused())
	}
	typeKey(t, m, fyne.KeyEscape)
	if top := c.Overlays().Top(); top != nil {
		t.Error("Escape left the Rename dialog open")
	}
	press(t, m, fyne.KeyE, fyne.KeyModifierShortcutDefault)
	c.Focused().(*KeyEntry).SetText("weekly report")
	typeKey(t, m, fyne.KeyReturn)
	q.waitFor(t, "the rename", func() bool { return m.doc.Workflow("weekly report") != nil })
	q.waitFor(t, "the editor on the new name", func() bool { return m.Editor.existing == "weekly report" })

	press(t, m, fyne.KeyDelete, fyne.KeyModifierShortcutDefault)
	if !hasButton(c.Overlays().Top(), "Delete workflow") {
		t.Error("the confirmation has no button named for its action")
	}
	typeKey(t, m, fyne.KeyEscape)
	if c.Overlays().Top() != nil || m.doc.Workflow("weekly report") == nil {
		t.Fatal("Escape did not close the confirmation, or deleted")
	}
	press(t, m, fyne.KeyDelete, fyne.KeyModifierShortcutDefault)
	typeKey(t, m, fyne.KeyReturn)
	q.waitFor(t, "the delete", func() bool { return m.doc.Workflow("weekly report") == nil })
}

// hasButton reports whether a button labelled text is in o.
func hasButton(o fyne.CanvasObject, text string) bool {
	found := false
	var walk func(fyne.CanvasObject)
	walk = func(o fyne.CanvasObject) {
		switch x := o.(type) {
		case *widget.Button:
			found = found || x.Text == text
		case *fyne.Container:
			for _, ch := range x.Objects {
				walk(ch)
			}
		case fyne.Widget:
			for _, ch := range test.WidgetRenderer(x).Objects() {
				walk(ch)
			}
		}
	}
	if o != nil {
		walk(o)
	}
	return found
}

// TestFormScrollsToTheFocusedField (issue 22, bug 3): Tab to a field below the view
// scrolls the form to it.
func TestFormScrollsToTheFocusedField(t *testing.T) {
	_, w, m, q := writerUI(t)
	addWorkflow(t, w, "tall", "true")
	q.waitFor(t, "the workflow listed", func() bool { return m.Workflows.Length() == 1 })
	m.OpenWorkflow("tall")
	for range 5 {
		test.Tap(m.Editor.AddStep)
	}
	m.Win.Resize(fyne.NewSize(900, 500))
	m.Editor.scroll.ScrollToTop()
	last := m.Editor.Steps[len(m.Editor.Steps)-1].Env
	tabTo(t, m, last, "last step's environment")
	s := m.Editor.scroll
	top, bottom := absPos(last).Y, absPos(last).Y+last.Size().Height
	if view := absPos(s).Y; top < view || bottom > view+s.Size().Height {
		t.Errorf("the focused field spans %.0f-%.0f, the form shows %.0f-%.0f", top, bottom, view, view+s.Size().Height)
	}
}

// TestFocusIsPlainlyVisible (issue 22, bug 3): the focus on a blue button (Save) changes
// its colour plainly, not by a faint tint of the same blue.
func TestFocusIsPlainlyVisible(t *testing.T) {
	_, w, m, q := writerUI(t)
	addWorkflow(t, w, "report", "true")
	q.waitFor(t, "the workflow listed", func() bool { return m.Workflows.Length() == 1 })
	m.OpenWorkflow("report")
	m.Editor.MaxConcurrent.SetText("2") // Save is enabled for an edit
	m.Win.Resize(fyne.NewSize(1000, 700))
	b := m.Editor.Save
	at := absPos(b).AddXY(b.Size().Width-4, b.Size().Height/2) // inside the button, clear of its text
	pixel := func() (r, g, bl int) {
		img := m.Win.Canvas().Capture()
		s := m.Win.Canvas().Scale()
		c := img.At(int(at.X*s), int(at.Y*s))
		r32, g32, b32, _ := c.RGBA()
		return int(r32 >> 8), int(g32 >> 8), int(b32 >> 8)
	}
	r1, g1, b1 := pixel()
	m.Win.Canvas().Focus(b)
	r2, g2, b2 := pixel()
	if d := abs(r1-r2) + abs(g1-g2) + abs(b1-b2); d < 120 {
		t.Errorf("focusing Save changes its colour by %d (from %d,%d,%d to %d,%d,%d): too faint to see", d, r1, g1, b1, r2, g2, b2)
	}
}

func abs(x int) int { return max(x, -x) }

// TestInfoDialogsCloseWithTheKeys (issue 22, bug 3): Help's dialogs and an error close on
// Escape and on Enter.
func TestInfoDialogsCloseWithTheKeys(t *testing.T) {
	_, _, m, _ := writerUI(t)
	c := m.Win.Canvas()
	for _, k := range []fyne.KeyName{fyne.KeyEscape, fyne.KeyReturn} {
		for what, open := range map[string]func(){"About": m.showAbout, "Keyboard shortcuts": m.showShortcuts, "Guide": m.showGuide,
			"an error": func() { m.ImportPath("/no/such/file.json") }} {
			open()
			if c.Overlays().Top() == nil {
				t.Fatalf("%s shows no dialog", what)
			}
			typeKey(t, m, k)
			if c.Overlays().Top() != nil {
				t.Errorf("%s stays open after %s", what, k)
			}
		}
	}
}
