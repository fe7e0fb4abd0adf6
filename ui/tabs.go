package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
)

// A lazy tab's content joins the window the first time the tab is shown.
//
// Why: Fyne's tabs theme, measure and lay out the content of every tab when the window
// first draws, shown or not, and keep each widget's renderer for the window's life. At
// launch on a big home that was about 30 ms of CPU before the first frame, and the run
// view's log (a monospace text grid) loaded a whole font family, its emoji font
// included (about 6 MB of heap), for a tab the person may never open. The widgets
// themselves are built in New all the same: only their place in the window waits.

// lazyTab returns a tab that holds content only once it has been selected; then attached
// runs, if not nil.
func (m *Main) lazyTab(title string, icon fyne.Resource, content fyne.CanvasObject, attached func()) *container.TabItem {
	box := container.NewStack()
	it := container.NewTabItemWithIcon(title, icon, box)
	m.unattached[it] = func() {
		box.Add(content)
		if attached != nil {
			attached()
		}
		box.Refresh()
	}
	return it
}

// tabSelected attaches a lazy tab's content the first time it is shown. UI goroutine.
func (m *Main) tabSelected(it *container.TabItem) {
	if attach, ok := m.unattached[it]; ok {
		delete(m.unattached, it)
		attach()
	}
}
