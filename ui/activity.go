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
// A line is cut to the list's width; selecting it shows it in full, wrapped over as many
// lines as it needs, until another line is selected.
func (m *Main) buildActivity() {
	m.ActivityFilter = NewKeyEntry()
	m.ActivityFilter.SetPlaceHolder("Filter: a workflow, or what happened (skipped, took over, failed…)")
	m.ActivityFilter.ActionItem = widget.NewIcon(theme.SearchIcon())
	m.ActivityFilter.OnChanged = func(string) { m.setActivity(m.audit) }
	m.ActivityFilter.OnDown = func() { m.focusList(m.Activity) }
	m.Activity = NewKeyList(func() int { return len(m.entries) }, newActivityRow,
		func(i widget.ListItemID, o fyne.CanvasObject) {
			if i < len(m.entries) {
				setActivityRow(o, m.entries[i])
			}
		})
	m.Activity.OnPicked = func(i widget.ListItemID) {
		if i >= len(m.entries) {
			return
		}
		m.entries[i].Open = true
		m.Activity.SetItemHeight(i, m.activityHeight(m.entries[i]))
	}
	m.Activity.OnUnselected = func(i widget.ListItemID) {
		if i < len(m.entries) {
			m.entries[i].Open = false
			m.Activity.SetItemHeight(i, activityRowHeight())
		}
	}
}

// newActivityRow is one line of the Activity tab: when, and what happened.
func newActivityRow() fyne.CanvasObject {
	when := widget.NewLabel("2 Jan 15:04:05")
	when.SizeName = theme.SizeNameCaptionText
	what := widget.NewLabel("what happened")
	what.Truncation = fyne.TextTruncateEllipsis
	return container.NewBorder(nil, nil, when, nil, what)
}

// setActivityRow shows a in row o: cut to one line, or in full when it is open.
func setActivityRow(o fyne.CanvasObject, a view.Activity) {
	c := o.(*fyne.Container)
	what, when := c.Objects[0].(*widget.Label), c.Objects[1].(*widget.Label)
	if a.Open {
		what.Truncation, what.Wrapping = fyne.TextTruncateOff, fyne.TextWrapWord
	} else {
		what.Truncation, what.Wrapping = fyne.TextTruncateEllipsis, fyne.TextWrapOff
	}
	what.SetText(a.What)
	when.SetText(a.When)
}

// activityRowHeight is the height of a line of the Activity tab cut to one line.
func activityRowHeight() float32 { return newActivityRow().MinSize().Height }

// activityHeight is the height line a needs in full at the list's width.
func (m *Main) activityHeight(a view.Activity) float32 {
	row := newActivityRow()
	setActivityRow(row, a)
	row.Resize(fyne.NewSize(m.Activity.Size().Width, activityRowHeight()))
	return max(row.MinSize().Height, activityRowHeight())
}

// setActivity shows the audit entries (oldest first, as Audit returns them) newest first.
// The line shown in full stays so where it moved to.
func (m *Main) setActivity(es []store.Entry) {
	open := -1
	var was view.Activity
	for i, a := range m.entries {
		if a.Open {
			open, was = i, a
		}
	}
	m.audit = es
	m.skips = view.SkipCounts(es)
	m.entries = view.FilterActivity(view.ActivityOf(m.entries[:0], es, m.opts.Now(), m.doc), m.ActivityFilter.Text)
	if open >= 0 {
		m.Activity.UnselectAll()
		m.Activity.SetItemHeight(open, activityRowHeight())
		if i := view.FindActivity(m.entries, was); i >= 0 {
			m.Activity.Select(i)
		}
	}
	m.Activity.Refresh()
	if m.Schedules != nil {
		m.Schedules.List.Refresh() // their skip counts
	}
}

// activityPane is the Activity tab: a filter above the list.
func (m *Main) activityPane() fyne.CanvasObject {
	return container.NewBorder(m.ActivityFilter, nil, nil, nil, m.Activity)
}

// Describe is view.Describe: what an audit entry records, in words.
func Describe(e store.Entry) string { return view.Describe(e) }
