package ui

import (
	"fyne.io/fyne/v2/theme"
)

// The runs list keeps what the person looks at in its place.
//
// Why: a new run goes to the top of the list, and selecting the selected run again at its
// new index scrolled the list to it: with a 10 s schedule the rows jumped under the
// pointer every 10 s and a click opened the run that had just moved there. Now the row at
// the top of the view stays at the top, pixel for pixel, when rows arrive above it; the
// list scrolls to a run only when the window was asked to show that one (ShowRun, Run
// now).

// runsAnchor is the run at the top of the runs list's view and how far into it the view
// starts, read from the rows as m.runsDoc listed them. ("", 0) when the list is empty.
func (m *Main) runsAnchor() (id string, within float32) {
	if m.runsDoc == nil || len(m.runIdx) == 0 {
		return "", 0
	}
	stride := m.runStride()
	off := m.Runs.GetScrollOffset()
	i := int(off / stride)
	if i < 0 || i >= len(m.runIdx) {
		return "", 0
	}
	k := m.runIdx[i]
	if (k >= 0 && k >= len(m.runsDoc.Runs)) || (k < 0 && -k-1 >= len(m.hist.Runs)) {
		return "", 0 // the history page changed since: nothing to keep
	}
	return m.hist.Row(m.runsDoc, k).ID, off - float32(i)*stride
}

// keepRunsInPlace scrolls the runs list so that run id is where runsAnchor found it,
// unless the window was asked to reveal a run (revealRun). UI goroutine.
func (m *Main) keepRunsInPlace(id string, within float32) {
	if m.revealRun {
		m.revealRun = false
		return
	}
	if id == "" {
		return
	}
	for i := range m.runIdx {
		if m.rowRun(i).ID == id {
			if want := float32(i)*m.runStride() + within; want != m.Runs.GetScrollOffset() {
				m.Runs.ScrollToOffset(want)
			}
			return
		}
	}
}

// runStride is the height of one row of the runs list with its separator, as
// widget.List lays its rows out (every row is the template's height).
func (m *Main) runStride() float32 {
	if m.runRowHeight == 0 {
		m.runRowHeight = newRunRow().MinSize().Height
	}
	return m.runRowHeight + m.Runs.Theme().Size(theme.SizeNamePadding)
}
