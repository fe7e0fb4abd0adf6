package ui

import (
	"context"
	"image/color"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"baton/store"
)

// contrast is the WCAG contrast ratio of a and b, 1 to 21.
func contrast(a, b color.Color) float64 {
	la, lb := luminance(a), luminance(b)
	return (max(la, lb) + 0.05) / (min(la, lb) + 0.05)
}

// TestStatusBarTextReadable (issue 22, daily use 9): the text on a full bar of every
// status reads at a contrast of at least 4.5 (WCAG AA) in the light and the dark theme.
func TestStatusBarTextReadable(t *testing.T) {
	isolate(t)
	a := test.NewTempApp(t)
	for _, th := range []string{ThemeLight, ThemeDark} {
		a.Settings().SetTheme(themeOf(th))
		for _, st := range []string{store.StatusSucceeded, store.StatusFailed, store.StatusRunning, store.StatusCancelled} {
			b := NewStatusBar()
			w := test.NewWindow(b)
			w.Resize(fyne.NewSize(130, 30))
			b.Set(st, 1, "step 2 of 2")
			r := test.WidgetRenderer(b).(*statusBarRenderer)
			if c := contrast(r.text.Color, r.fill.FillColor); c < 4.5 {
				t.Errorf("%s theme, %s bar: text contrast %.1f, want at least 4.5", th, st, c)
			}
			w.Close()
		}
	}
}

// TestTabIconsDistinct (issue 22, daily use 9): Timeline and Schedules have their own icons.
func TestTabIconsDistinct(t *testing.T) {
	_, _, m, _ := writerUI(t)
	seen := map[string]string{}
	for _, it := range m.Tabs.Items {
		if other, ok := seen[it.Icon.Name()]; ok {
			t.Errorf("%s and %s share the icon %s", other, it.Text, it.Icon.Name())
		}
		seen[it.Icon.Name()] = it.Text
	}
}

// TestSecretMaskedInTheEditor (issue 22, daily use 9): a step's secret environment value
// shows masked in the editor, as in the log, until Show values; other values show.
func TestSecretMaskedInTheEditor(t *testing.T) {
	_, w, m, q := writerUI(t)
	def := store.Workflow{Name: "deploy", Steps: []store.Step{{Argv: []string{"true"}, Env: map[string]string{"API_TOKEN": "s3cret-value", "MODE": "fast"}}}}
	if _, err := w.Intents().AddWorkflow(context.Background(), def); err != nil {
		t.Fatal(err)
	}
	q.waitFor(t, "the workflow listed", func() bool { return m.Workflows.Length() == 1 })
	m.OpenWorkflow("deploy")
	se := m.Editor.Steps[0]
	if se.Env.Visible() || !se.EnvMasked.Visible() || strings.Contains(se.EnvMasked.Text, "s3cret") || !strings.Contains(se.EnvMasked.Text, "MODE=fast") {
		t.Fatalf("the editor shows %q (field shown: %v)", se.EnvMasked.Text, se.Env.Visible())
	}
	test.Tap(se.Reveal)
	if !se.Env.Visible() || !strings.Contains(se.Env.Text, "API_TOKEN=s3cret-value") {
		t.Errorf("Show values shows %q (shown: %v)", se.Env.Text, se.Env.Visible())
	}
	if m.Editor.dirty {
		t.Error("showing the values counts as an edit")
	}
}

// TestButtonsClearOfTheScrollBar (issue 22, daily use 9): in a form taller than the
// window, the buttons at its right edge (a step's Remove, the schedule's Delete) end
// before the scroll bar drawn over the form's right edge.
func TestButtonsClearOfTheScrollBar(t *testing.T) {
	_, w, m, q := writerUI(t)
	steps := make([]store.Step, 5)
	for i := range steps {
		steps[i] = store.Step{Argv: []string{"true"}}
	}
	if _, err := w.Intents().AddWorkflow(context.Background(), store.Workflow{Name: "tall", Steps: steps}); err != nil {
		t.Fatal(err)
	}
	q.waitFor(t, "the workflow listed", func() bool { return m.Workflows.Length() == 1 })
	m.OpenWorkflow("tall")
	m.Win.Resize(fyne.NewSize(900, 500))
	relayout(m)
	s := m.Editor.scroll
	bar := absPos(s).X + s.Size().Width - theme.ScrollBarSize()
	if b := m.Editor.Steps[0].Remove; absPos(b).X+b.Size().Width > bar+0.5 {
		t.Errorf("Remove ends at %.0f, under the scroll bar from %.0f", absPos(b).X+b.Size().Width, bar)
	}
}

// TestMenuShortcutTextVisible (issue 22, daily use 9): the shortcut beside a menu item
// ("Ctrl+S") is drawn nearly opaque in the foreground colour, not faint.
func TestMenuShortcutTextVisible(t *testing.T) {
	isolate(t)
	test.NewTempApp(t)
	it := fyne.NewMenuItem("Save", func() {})
	it.Shortcut = &desktop.CustomShortcut{KeyName: fyne.KeyS, Modifier: fyne.KeyModifierControl}
	menu := widget.NewMenu(fyne.NewMenu("File", it))
	w := test.NewWindow(menu)
	defer w.Close()
	found := false
	for _, o := range rowsOfAny(menu) {
		if tx, ok := o.(*canvas.Text); ok && (tx.Text == "S" || strings.Contains(tx.Text, "⌃") || strings.Contains(tx.Text, "Ctrl")) {
			found = true
			if _, _, _, a := tx.Color.RGBA(); a < 0xd000 {
				t.Errorf("the shortcut text %q is drawn at %.0f %% opacity", tx.Text, float64(a)/0xffff*100)
			}
		}
	}
	if !found {
		t.Fatal("no shortcut text drawn beside the menu item")
	}
}
