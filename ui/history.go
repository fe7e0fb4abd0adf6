package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"baton/store"
	"baton/ui/view"
)

// Archived runs in the Runs tab. workflows.json keeps the active and recent runs; older
// finished runs are in the archive, which the core pages through with History. The runs
// list shows the live runs of the snapshot and, once the person asks for older runs, the
// pages of History loaded so far, merged newest first (view.History decides what is
// listed). The workflow and status choices above the list are the HistoryQuery; the text
// filter narrows both further on this side.

// DefaultHistoryPage is how many runs one "Show older runs" asks the core for.
const DefaultHistoryPage = view.DefaultHistoryPage

// allWorkflows and allStatuses are the "no filter" choices of the runs filters.
const (
	allWorkflows = view.AllWorkflows
	allStatuses  = view.AllStatuses
)

// buildHistory creates the workflow and status filters and the controls under the list.
func (m *Main) buildHistory() {
	m.RunsWorkflow = NewFilterSelect(nil) // type to filter 300 workflows
	m.RunsWorkflow.SetAll([]string{allWorkflows})
	m.RunsWorkflow.SetSelected(allWorkflows)
	m.RunsWorkflow.OnChanged = func(string) { m.runFiltersChanged() }
	m.RunsStatus = widget.NewSelect(view.StatusChoices, nil)
	m.RunsStatus.SetSelected(allStatuses)
	m.RunsStatus.OnChanged = func(string) { m.runFiltersChanged() }
	m.RunsArchive = widget.NewLabel("")
	m.RunsArchive.SizeName = theme.SizeNameCaptionText
	m.RunsArchive.Truncation = fyne.TextTruncateEllipsis
	m.RunsOlder = widget.NewButtonWithIcon("Show older runs", theme.MoreVerticalIcon(), m.ShowOlderRuns)
	m.RunsRecent = widget.NewButton("Recent only", m.HideOlderRuns)
	m.renderHistory()
}

// runFilters is the row above the runs list: workflow, status, text, count.
func (m *Main) runFilters() fyne.CanvasObject {
	return container.New(filterRowLayout{}, m.RunsWorkflow, m.RunsStatus, m.RunsFilter, m.RunsCount)
}

// historyBar is the row under the runs list: what is loaded of the archive and the
// control that loads more.
func (m *Main) historyBar() fyne.CanvasObject {
	return container.NewBorder(nil, nil, nil, container.NewHBox(m.RunsRecent, m.RunsOlder), m.RunsArchive)
}

// historyQuery is the HistoryQuery of the workflow and status filters.
func (m *Main) historyQuery() store.HistoryQuery {
	return view.QueryOf(m.RunsWorkflow.Selected, m.RunsStatus.Selected)
}

// runFiltersChanged re-lists the runs. Pages loaded for another workflow or status are
// dropped; if the person was browsing older runs, the newest page for the new filter is
// loaded.
func (m *Main) runFiltersChanged() {
	if m.hist.Refilter(m.historyQuery()) {
		m.ShowOlderRuns()
	}
	m.relistRuns()
}

func (m *Main) relistRuns() {
	m.reindexRuns()
	m.Runs.Refresh()
	m.syncSelections()
	m.renderHistory()
}

// HideOlderRuns lists only the runs of workflows.json again. UI goroutine.
func (m *Main) HideOlderRuns() {
	m.hist.Drop()
	m.relistRuns()
}

// ShowOlderRuns loads the next page of the history for the workflow and status filters,
// off the UI goroutine; the page is listed when it comes. It does nothing while a page is
// being read or after the oldest one. UI goroutine.
func (m *Main) ShowOlderRuns() {
	q, gen, ok := m.hist.Begin(m.opts.HistoryPage)
	if !ok {
		return
	}
	m.renderHistory()
	go func() {
		runs, next, err := view.ReadHistory(q, m.core.Snapshot(), m.core.Intents().History)
		m.post(func() { m.historyRead(gen, runs, next, err) })
	}()
}

// historyRead lists a page that view.ReadHistory read. UI goroutine.
func (m *Main) historyRead(gen int, runs []store.Run, next uint64, err error) {
	if m.hist.Arrived(gen, runs, next, err) {
		m.relistRuns()
	}
}

// rowRun is the run in row i of the runs list.
func (m *Main) rowRun(i int) *store.Run { return m.hist.Row(m.doc, m.runIdx[i]) }

// syncWorkflowChoices keeps the workflow filter's choices equal to the workflows. It
// allocates only when they changed.
func (m *Main) syncWorkflowChoices() {
	if names, changed := view.WorkflowChoices(m.RunsWorkflow.all, m.doc); changed {
		m.RunsWorkflow.SetAll(names)
	}
}

// renderHistory says what is loaded of the archive and enables the controls.
func (m *Main) renderHistory() {
	b := m.hist.Bar(m.opts.Now())
	m.RunsOlder.SetText(b.Older)
	enable(m.RunsOlder, b.OlderEnabled)
	enable(m.RunsRecent, b.RecentEnabled)
	m.RunsArchive.SetText(b.Text)
}
