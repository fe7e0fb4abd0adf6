package ui

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"baton/ui/view"
)

// menuItem returns the main menu's item with the shortcut Ctrl(+Shift)+k, as the keys
// reach it (the menu carries the window's shortcuts).
func menuItem(t *testing.T, m *Main, k fyne.KeyName, mod fyne.KeyModifier) *fyne.MenuItem {
	t.Helper()
	for _, mn := range m.Win.MainMenu().Items {
		for _, it := range mn.Items {
			if sc, ok := it.Shortcut.(*desktop.CustomShortcut); ok && sc.KeyName == k && sc.Modifier == mod {
				return it
			}
		}
	}
	t.Fatalf("no menu item has the shortcut %v+%s", mod, k)
	return nil
}

// TestCtrlSSavesWhatTheVisibleTabEdits (issue 12, bug 2): on the Schedules tab Ctrl+S
// saves the schedule and leaves the workflow's unsaved edit alone; in the editor it
// saves the workflow.
func TestCtrlSSavesWhatTheVisibleTabEdits(t *testing.T) {
	_, w, m, q := writerUI(t)
	addWorkflow(t, w, "report", "true")
	q.waitFor(t, "the workflow listed", func() bool { return m.Workflows.Length() == 1 })
	m.OpenWorkflow("report")
	m.Editor.MaxConcurrent.SetText("3") // an edit the person has not saved
	save := menuItem(t, m, fyne.KeyS, fyne.KeyModifierShortcutDefault).Action

	m.ShowTab("Schedules")
	test.Tap(m.Schedules.NewButton)
	save()
	q.waitFor(t, "the schedule saved", func() bool { return len(w.Snapshot().Schedules) == 1 && m.Schedules.id != "" })
	if got := w.Snapshot().Workflow("report").MaxConcurrent; got != 1 {
		t.Errorf("Ctrl+S on the Schedules tab saved the workflow's edit (max concurrent %d)", got)
	}
	if !m.Editor.dirty {
		t.Error("the workflow's edit is no longer pending after Ctrl+S on the Schedules tab")
	}

	m.ShowTab("Runs")
	save()
	q.settle(100 * time.Millisecond)
	if got := w.Snapshot().Workflow("report").MaxConcurrent; got != 1 {
		t.Errorf("Ctrl+S on the Runs tab saved the workflow's edit (max concurrent %d)", got)
	}

	m.ShowTab("Workflow")
	save()
	q.waitFor(t, "the workflow saved", func() bool { return w.Snapshot().Workflow("report").MaxConcurrent == 3 })

	// A deleted schedule's fields stay in the closed form: Ctrl+S must not add it back.
	m.opts.Confirm = func(_, _ string, fn func(bool)) { fn(true) }
	m.ShowTab("Schedules")
	test.Tap(m.Schedules.Delete)
	q.waitFor(t, "the schedule deleted", func() bool { return len(w.Snapshot().Schedules) == 0 && !m.Schedules.open })
	save()
	q.settle(100 * time.Millisecond)
	if n := len(w.Snapshot().Schedules); n != 0 {
		t.Errorf("Ctrl+S with no schedule open saved %d", n)
	}
}

// TestShortcutsListIsTheMenus (issue 12, bug 10): Help ▸ Keyboard shortcuts lists each
// shortcut of the menu once, with the item it triggers; Ctrl+L filters runs.
func TestShortcutsListIsTheMenus(t *testing.T) {
	_, _, m, _ := writerUI(t)
	var help *fyne.MenuItem
	for _, mn := range m.Win.MainMenu().Items {
		for _, it := range mn.Items {
			if mn.Label == "Help" && it.Label == "Keyboard shortcuts" {
				help = it
			}
		}
	}
	help.Action()
	var shown *widget.Label
	walkObjects(m.Win.Canvas().Overlays().Top(), func(o fyne.CanvasObject) {
		if l, ok := o.(*widget.Label); ok && l.TextStyle.Monospace {
			shown = l
		}
	})
	if shown == nil {
		t.Fatal("Help › Keyboard shortcuts shows no list")
	}
	lines := strings.Split(shown.Text, "\n")
	n := 0
	var walk func(path string, items []*fyne.MenuItem) // a submenu's items too (View › Open menu)
	walk = func(path string, items []*fyne.MenuItem) {
		for _, it := range items {
			if it.ChildMenu != nil {
				walk(path+it.ChildMenu.Label+" › ", it.ChildMenu.Items)
			}
			if _, ok := it.Shortcut.(*fyne.ShortcutUndo); ok {
				n++ // Ctrl+Z: listed as such
				continue
			}
			sc, ok := it.Shortcut.(*desktop.CustomShortcut)
			if !ok {
				continue
			}
			n++
			keys, what := shortcutText(sc), path+it.Label
			found := 0
			for _, l := range lines {
				if f := strings.Fields(l); len(f) > 0 && f[0] == keys && strings.HasSuffix(l, "  "+what) {
					found++
				}
			}
			if found != 1 {
				t.Errorf("%s (%s) listed %d times in %q", keys, what, found, lines)
			}
		}
	}
	for _, mn := range m.Win.MainMenu().Items {
		walk(mn.Label+" › ", mn.Items)
	}
	if n < 10 || len(lines) != n {
		t.Errorf("%d lines for %d shortcuts: %q", len(lines), n, lines)
	}
	want := map[string]string{"Ctrl+L": "Run › Filter runs", "Ctrl+S": "File › Save", "Ctrl+Shift+N": "File › Open another window", "Ctrl+.": "Run › Cancel run"}
	for keys, what := range want {
		ok := false
		for _, l := range lines {
			ok = ok || (strings.HasPrefix(l, keys+" ") && strings.HasSuffix(l, what))
		}
		if !ok {
			t.Errorf("no line %q → %q in %q", keys, what, lines)
		}
	}
	t.Logf("shortcuts:\n%s", strings.Join(lines, "\n"))
}

// TestThemeChoiceForcedAndRemembered (issue 12, usability 12): View's Dark theme makes
// every colour the dark one whatever the desktop prefers, is checked in the menu, and is
// remembered in the preferences.
func TestThemeChoiceForcedAndRemembered(t *testing.T) {
	_, _, m, _ := writerUI(t)
	light := theme.DefaultTheme().Color(theme.ColorNameBackground, theme.VariantLight)
	dark := theme.DefaultTheme().Color(theme.ColorNameBackground, theme.VariantDark)
	bg := func() any {
		return m.App.Settings().Theme().Color(theme.ColorNameBackground, m.App.Settings().ThemeVariant())
	}
	checked := func(label string) bool {
		for _, mn := range m.Win.MainMenu().Items {
			for _, it := range mn.Items {
				if it.Label == label {
					return it.Checked
				}
			}
		}
		t.Fatalf("no menu item %q", label)
		return false
	}
	if !checked("System theme") || checked("Dark theme") {
		t.Error("a new window does not follow the system theme")
	}
	m.SetTheme(ThemeDark)
	if bg() != dark || !checked("Dark theme") || checked("System theme") {
		t.Errorf("dark chosen: background %v, want %v; checked dark %v", bg(), dark, checked("Dark theme"))
	}
	if got := m.App.Preferences().String(themePref); got != ThemeDark {
		t.Errorf("preference %q, want %q", got, ThemeDark)
	}
	m.SetTheme(ThemeLight)
	if bg() != light {
		t.Errorf("light chosen: background %v, want %v", bg(), light)
	}
	// The next window of this app starts in the remembered theme.
	m.App.Preferences().SetString(themePref, ThemeDark)
	m2 := New(m.App, m.core, m.opts)
	defer m2.Stop()
	if bg() != dark {
		t.Error("a new window did not apply the remembered dark theme")
	}
}

// TestHelpGuide (issue 12, usability 12): Help ▸ Guide opens a short guide to windows,
// runs and schedules.
func TestHelpGuide(t *testing.T) {
	_, _, m, _ := writerUI(t)
	var guide *fyne.MenuItem
	for _, mn := range m.Win.MainMenu().Items {
		for _, it := range mn.Items {
			if mn.Label == "Help" && it.Label == "Guide" {
				guide = it
			}
		}
	}
	if guide == nil {
		t.Fatal("no Help › Guide")
	}
	guide.Action()
	if m.Win.Canvas().Overlays().Top() == nil {
		t.Fatal("Guide opened nothing")
	}
	for _, topic := range []string{"\n\nWindows. ", "\n\nRuns. ", "\n\nSchedules. ", "read-only", "takes over"} {
		if !strings.Contains(view.GuideText, topic) {
			t.Errorf("the guide does not explain %q", strings.TrimSpace(topic))
		}
	}
}

// TestSessionBusDetected (issue 12, usability 13): without a D-Bus session bus the window
// knows not to try the tray and notifications (each try would log an error).
func TestSessionBusDetected(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("D-Bus is for Linux and the BSDs")
	}
	run := t.TempDir()
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "")
	t.Setenv("XDG_RUNTIME_DIR", run)
	if hasSessionBus() {
		t.Error("a bus without an address or a socket")
	}
	if err := os.WriteFile(filepath.Join(run, "bus"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if !hasSessionBus() {
		t.Error("no bus with $XDG_RUNTIME_DIR/bus")
	}
	t.Setenv("XDG_RUNTIME_DIR", "")
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path=/run/user/1000/bus")
	if !hasSessionBus() {
		t.Error("no bus with DBUS_SESSION_BUS_ADDRESS")
	}
}
