package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"baton/ui/view"
)

// Failure notifications a person can switch on and off (View › Notify when a run fails,
// remembered for every home): shown by the desktop when it has notifications, and said in
// the window (the failure bar) when it has none.

// desktopNotifies reports whether the desktop shows notifications (canNotify); tests
// replace it to see the window say it instead.
var desktopNotifies = canNotify

// notifyPref is the preference key of the switch; on unless the person turned it off.
const notifyPref = "notify-failures"

// FailureBar says in the window that a run failed, when the desktop shows no
// notifications; Show opens the run, Dismiss hides the bar.
type FailureBar struct {
	Label         *widget.Label
	Show, Dismiss *widget.Button
	obj           fyne.CanvasObject
	run           string
}

func newFailureBar(m *Main) *FailureBar {
	b := &FailureBar{Label: widget.NewLabel("")}
	b.Label.Importance = widget.DangerImportance
	b.Label.Truncation = fyne.TextTruncateEllipsis
	b.Show = widget.NewButton("Show run", func() { m.ShowRun(b.run); b.obj.Hide() })
	b.Dismiss = widget.NewButtonWithIcon("", theme.CancelIcon(), func() { b.obj.Hide() })
	b.Dismiss.Importance = widget.LowImportance
	b.obj = container.NewBorder(nil, nil, nil, container.NewHBox(b.Show, b.Dismiss), b.Label)
	b.obj.Hide()
	return b
}

// notifyOn reports whether the person wants to hear of failed runs.
func (m *Main) notifyOn() bool { return m.App.Preferences().BoolWithFallback(notifyPref, true) }

// SetNotify switches failure notifications on or off, remembers it, and checks its item.
func (m *Main) SetNotify(on bool) {
	m.App.Preferences().SetBool(notifyPref, on)
	if m.notifyItem != nil {
		m.notifyItem.Checked = on
		m.Win.MainMenu().Refresh()
	}
}

// notifyItem is View's switch.
func (m *Main) newNotifyItem() *fyne.MenuItem {
	it := fyne.NewMenuItem("Notify when a run fails", nil)
	it.Action = func() { m.SetNotify(!m.notifyOn()) }
	it.Checked = m.notifyOn()
	m.notifyItem = it
	return it
}

// tellFailures shows notices: by the desktop when it can, else in the failure bar.
func (m *Main) tellFailures(notices []view.Notice) {
	if len(notices) == 0 || !m.notifyOn() {
		return
	}
	if desktopNotifies(m.App) {
		for _, n := range notices {
			m.App.SendNotification(fyne.NewNotification(n.Title, n.Message))
		}
		return
	}
	last := len(notices) - 1
	m.Failures.run = notices[last].Run
	m.Failures.Label.SetText(notices[last].Message)
	m.Failures.obj.Show()
}

// sortPref is the preference key of the sidebar's order (view.SortAdded, SortName,
// SortRecent), one for every home.
const sortPref = "sidebar-sort"

// sortBy is the sidebar's order.
func (m *Main) sortBy() string {
	return m.App.Preferences().StringWithFallback(sortPref, view.SortAdded)
}

// SortSidebar orders the sidebar by (view.SortAdded, SortName, SortRecent), remembers it
// and checks its item in View.
func (m *Main) SortSidebar(by string) {
	m.App.Preferences().SetString(sortPref, by)
	for _, it := range m.sortItems {
		it.Checked = it.Label == sortLabels[by]
	}
	if mm := m.Win.MainMenu(); mm != nil {
		mm.Refresh()
	}
	m.render(nil)
}

// sortLabels are View's sort items.
var sortLabels = map[string]string{view.SortAdded: "Sort workflows as added", view.SortName: "Sort workflows by name",
	view.SortRecent: "Sort workflows by last run"}

// newSortItems are View's sort items, the remembered order checked.
func (m *Main) newSortItems() []*fyne.MenuItem {
	m.sortItems = nil
	for _, by := range []string{view.SortAdded, view.SortName, view.SortRecent} {
		it := fyne.NewMenuItem(sortLabels[by], func() { m.SortSidebar(by) })
		it.Checked = m.sortBy() == by
		m.sortItems = append(m.sortItems, it)
	}
	return m.sortItems
}
