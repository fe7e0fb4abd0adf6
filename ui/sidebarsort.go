package ui

import (
	"fyne.io/fyne/v2"

	"baton/ui/view"
)

// View › Sort workflows: the sidebar as added, by name or by last run, remembered.

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
