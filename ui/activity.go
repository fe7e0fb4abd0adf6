package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"baton/store"
	"baton/ui/view"
)

// buildActivity creates the Activity list: the audit log in human words, newest first.
func (m *Main) buildActivity() {
	m.Activity = widget.NewList(func() int { return len(m.entries) },
		func() fyne.CanvasObject {
			when := widget.NewLabel("2 Jan 15:04:05")
			when.SizeName = theme.SizeNameCaptionText
			what := widget.NewLabel("what happened")
			what.Truncation = fyne.TextTruncateEllipsis
			return container.NewBorder(nil, nil, when, nil, what)
		},
		func(i widget.ListItemID, o fyne.CanvasObject) {
			if i >= len(m.entries) {
				return
			}
			c := o.(*fyne.Container)
			c.Objects[0].(*widget.Label).SetText(m.entries[i].What)
			c.Objects[1].(*widget.Label).SetText(m.entries[i].When)
		})
}

// setActivity shows the audit entries (oldest first, as Audit returns them) newest first.
func (m *Main) setActivity(es []store.Entry) {
	m.entries = view.AppendActivity(m.entries[:0], es, m.opts.Now())
	m.Activity.Refresh()
}

// Describe is view.Describe: what an audit entry records, in words.
func Describe(e store.Entry) string { return view.Describe(e) }
