package ui

import (
	_ "embed"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/widget"

	"baton/ui/view"
)

//go:embed Icon.png
var iconPNG []byte

// Icon is Baton's application icon.
var Icon = fyne.NewStaticResource("Icon.png", iconPNG)

// Version is shown in Help ▸ About; main sets it.
var Version = "dev"

// DefaultSize is the window size the first time a home is opened.
var DefaultSize = fyne.NewSize(1180, 760)

// installDesktop adds the main menu (which also carries the keyboard shortcuts, so they
// work while a text field has the focus), the system tray menu where the desktop has one,
// and the remembered window size.
func (m *Main) installDesktop() {
	m.Win.SetMainMenu(m.mainMenu())
	m.Win.Canvas().SetOnTypedKey(func(ev *fyne.KeyEvent) { // keys while nothing has the focus
		if isMenuKey(ev) {
			toggleMenu(m.Win.Content())
		}
	})
	// Without a session bus there is no tray to talk to (and the tray library would
	// print an error trying to start one).
	if d, ok := m.App.(desktop.App); ok && hasSessionBus() {
		show := fyne.NewMenuItem("Show Baton", func() { m.Win.Show(); m.Win.RequestFocus() })
		d.SetSystemTrayMenu(fyne.NewMenu("Baton", show,
			fyne.NewMenuItem("New workflow", func() { m.Win.Show(); m.NewWorkflow() }),
			fyne.NewMenuItem("Open another window", m.OpenAnotherWindow)))
		d.SetSystemTrayIcon(Icon)
	}
	m.Win.Resize(m.savedSize())
	m.Win.SetCloseIntercept(m.RequestClose)
}

// hasSessionBus reports whether the desktop's tray and notifications can be reached. On
// Linux and the BSDs both go through the D-Bus session bus: without one, each attempt only
// logs an error. The bus is named by DBUS_SESSION_BUS_ADDRESS, or is $XDG_RUNTIME_DIR/bus.
func hasSessionBus() bool {
	if runtime.GOOS == "darwin" || runtime.GOOS == "windows" {
		return true
	}
	if os.Getenv("DBUS_SESSION_BUS_ADDRESS") != "" {
		return true
	}
	dir := os.Getenv("XDG_RUNTIME_DIR")
	if dir == "" {
		return false
	}
	_, err := os.Stat(filepath.Join(dir, "bus"))
	return err == nil
}

func key(k fyne.KeyName, mod fyne.KeyModifier) fyne.Shortcut {
	return &desktop.CustomShortcut{KeyName: k, Modifier: mod}
}

func item(label string, sc fyne.Shortcut, fn func()) *fyne.MenuItem {
	it := fyne.NewMenuItem(label, fn)
	it.Shortcut = sc
	return it
}

// mainMenu is File, Workflow, Run, View and Help. Write actions check the role
// themselves, so a shortcut in a read-only window does nothing.
func (m *Main) mainMenu() *fyne.MainMenu {
	ctl, shift := fyne.KeyModifierShortcutDefault, fyne.KeyModifierShift
	quit := item("Quit", key(fyne.KeyQ, ctl), m.RequestQuit)
	quit.IsQuit = true
	file := fyne.NewMenu("File",
		item("New workflow", key(fyne.KeyN, ctl), m.NewWorkflow),
		item("Save", key(fyne.KeyS, ctl), m.Save),
		fyne.NewMenuItemSeparator(),
		item("Export workflows…", key(fyne.KeyE, ctl|shift), m.ExportFile),
		item("Import workflows…", key(fyne.KeyI, ctl), m.ImportFile),
		fyne.NewMenuItemSeparator(),
		item("Open another window", key(fyne.KeyN, ctl|shift), m.OpenAnotherWindow),
		fyne.NewMenuItemSeparator(),
		quit)
	wf := fyne.NewMenu("Workflow",
		item("Run now", key(fyne.KeyR, ctl), m.RunSelected),
		item("Duplicate", key(fyne.KeyD, ctl), m.DuplicateWorkflow),
		item("Rename…", key(fyne.KeyE, ctl), m.RenameWorkflow),
		item("Delete…", key(fyne.KeyDelete, ctl), m.DeleteWorkflow),
		item("Undo delete", &fyne.ShortcutUndo{}, m.undoKey),
		fyne.NewMenuItemSeparator(),
		item("Search workflows", key(fyne.KeyF, ctl), func() { m.Win.Canvas().Focus(m.Search) }))
	run := fyne.NewMenu("Run",
		item("Cancel run", key(fyne.KeyPeriod, ctl), m.CancelSelected),
		item("Filter runs", key(fyne.KeyL, ctl), func() { m.ShowTab("Runs"); m.Win.Canvas().Focus(m.RunsFilter) }))
	view := fyne.NewMenu("View",
		item("Workflow", key(fyne.Key1, ctl), func() { m.ShowTab("Workflow") }),
		item("Runs", key(fyne.Key2, ctl), func() { m.ShowTab("Runs") }),
		item("Timeline", key(fyne.Key3, ctl), func() { m.ShowTab("Timeline") }),
		item("Schedules", key(fyne.Key4, ctl), func() { m.ShowTab("Schedules") }),
		item("Activity", key(fyne.Key5, ctl), func() { m.ShowTab("Activity") }),
		fyne.NewMenuItemSeparator())
	view.Items = append(view.Items, m.themeItems()...)
	view.Items = append(view.Items, fyne.NewMenuItemSeparator())
	view.Items = append(view.Items, m.newSortItems()...)
	help := fyne.NewMenu("Help",
		fyne.NewMenuItem("Guide", m.showGuide),
		fyne.NewMenuItem("Keyboard shortcuts", m.showShortcuts),
		fyne.NewMenuItem("About Baton", m.showAbout))
	menus := []*fyne.Menu{file, wf, run, view, help}
	view.Items = append(view.Items, fyne.NewMenuItemSeparator(), m.newNotifyItem(), fyne.NewMenuItemSeparator(), m.menuKeys(menus))
	return fyne.NewMainMenu(menus...)
}

// menuKeys is View ▸ Open menu: Alt and the first letter of a menu's name opens that menu
// (Alt+F File, Alt+W Workflow, Alt+R Run, Alt+V View, Alt+H Help); F10 or Alt alone opens
// the menu bar on File. Left and Right then move from menu to menu, Up and Down through
// one, Enter chooses (Fyne's menu bar). The keys are menu items, not canvas shortcuts:
// only a menu's shortcuts reach the window while a text field has the focus.
func (m *Main) menuKeys(menus []*fyne.Menu) *fyne.MenuItem {
	sub := fyne.NewMenu("Open menu")
	for i, mn := range menus {
		k := fyne.KeyName(strings.ToUpper(mn.Label[:1]))
		sub.Items = append(sub.Items, item(mn.Label, key(k, fyne.KeyModifierAlt), func() { openMenu(m.Win.Content(), i) }))
	}
	open := fyne.NewMenuItem("Open menu (also F10, or Alt alone)", nil)
	open.ChildMenu = sub
	return open
}

// Quit saves the window size and ends the app without asking (a signal). File ▸ Quit
// and Ctrl+Q call RequestQuit, which asks first when runs are going.
func (m *Main) Quit() {
	m.SaveWindowSize()
	m.App.Quit()
}

// OpenAnotherWindow starts another Baton process on the same home folder. It follows
// this one as a reader, or writes if this one closes.
func (m *Main) OpenAnotherWindow() {
	if err := m.opts.OpenAnother(m.st.Home); err != nil {
		m.showError(fmt.Errorf("could not open another window: %w", err))
	}
}

func openAnother(home string) error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	cmd := exec.Command(exe, "--home", home)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Start(); err != nil {
		return err
	}
	go func() { _ = cmd.Wait() }() // reap it when it exits
	return nil
}

func (m *Main) showAbout() {
	txt := widget.NewLabel(view.AboutText(Version, m.st, m.doc))
	txt.Wrapping = fyne.TextWrapWord
	m.showInfo("About Baton", txt, fyne.NewSize(460, 280))
}

// Save saves what the visible tab edits: the schedule on the Schedules tab, the workflow
// on the Workflow tab. On the other tabs it does nothing, so Ctrl+S never commits edits
// the person cannot see.
func (m *Main) Save() {
	switch m.Tabs.Selected().Text {
	case "Schedules":
		m.Schedules.save()
	case "Workflow":
		m.SaveWorkflow()
	}
}

func (m *Main) showShortcuts() {
	txt := widget.NewLabel(strings.Join(shortcutLines(m.Win.MainMenu()), "\n"))
	txt.TextStyle.Monospace = true
	m.showInfo("Keyboard shortcuts", txt, fyne.Size{})
}

// shortcutLines lists the keyboard shortcuts of menu, one a line ("Ctrl+S        File ▸
// Save"), read from its items so the list cannot drift from what the keys do.
func shortcutLines(menu *fyne.MainMenu) []string {
	type row struct{ keys, what string }
	var rows []row
	width := 0
	var walk func(path string, items []*fyne.MenuItem)
	walk = func(path string, items []*fyne.MenuItem) {
		for _, it := range items {
			if it.ChildMenu != nil {
				walk(path+it.ChildMenu.Label+" › ", it.ChildMenu.Items)
			}
			k := ""
			switch sc := it.Shortcut.(type) {
			case *desktop.CustomShortcut:
				k = shortcutText(sc)
			case *fyne.ShortcutUndo:
				k = "Ctrl+Z"
			}
			if k != "" {
				rows = append(rows, row{k, path + it.Label})
				width = max(width, len(k))
			}
		}
	}
	for _, mn := range menu.Items {
		walk(mn.Label+" › ", mn.Items)
	}
	lines := make([]string, len(rows))
	for i, r := range rows {
		lines[i] = fmt.Sprintf("%-*s  %s", width, r.keys, r.what)
	}
	return lines
}

// shortcutText is a shortcut as people write it: "Ctrl+Shift+N".
func shortcutText(sc *desktop.CustomShortcut) string {
	var b strings.Builder
	for _, mod := range []struct {
		m    fyne.KeyModifier
		name string
	}{{fyne.KeyModifierControl, "Ctrl+"}, {fyne.KeyModifierSuper, "Cmd+"}, {fyne.KeyModifierAlt, "Alt+"}, {fyne.KeyModifierShift, "Shift+"}} {
		if sc.Modifier&mod.m != 0 {
			b.WriteString(mod.name)
		}
	}
	b.WriteString(string(sc.KeyName))
	return b.String()
}

// prefKey is the preference key of name for this window's home folder.
func (m *Main) prefKey(name string) string { return view.PrefKey(m.st.Home, name) }

func (m *Main) savedSize() fyne.Size {
	p := m.App.Preferences()
	w := p.FloatWithFallback(m.prefKey("width"), float64(DefaultSize.Width))
	h := p.FloatWithFallback(m.prefKey("height"), float64(DefaultSize.Height))
	return fyne.NewSize(view.RestoredSize(w, h))
}

// SaveWindowSize remembers the window size and its split handles (saveSplits) for this
// home folder. Fyne has no API for the window position, so it is not kept. UI goroutine.
func (m *Main) SaveWindowSize() {
	m.saveSplits()
	s := m.Win.Canvas().Size()
	if !view.WorthSaving(s.Width, s.Height) {
		return
	}
	p := m.App.Preferences()
	p.SetFloat(m.prefKey("width"), float64(s.Width))
	p.SetFloat(m.prefKey("height"), float64(s.Height))
}

// canNotify reports whether app can raise a desktop notification: a real desktop only
// with a session bus (see hasSessionBus); other drivers (Fyne's test driver) always.
func canNotify(app fyne.App) bool {
	if _, ok := app.(desktop.App); ok {
		return hasSessionBus()
	}
	return true
}
