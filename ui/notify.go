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
