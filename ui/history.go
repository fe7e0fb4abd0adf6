package ui

import (
	"fmt"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"baton/store"
)

// Archived runs in the Runs tab. workflows.json keeps the active and recent runs; older
// finished runs are in the archive, which the core pages through with History. The runs
// list shows the live runs of the snapshot and, once the person asks for older runs, the
// pages of History loaded so far, merged newest first. The workflow and status choices
// above the list are the HistoryQuery; the text filter narrows both further on this side.

// DefaultHistoryPage is how many runs one "Show older runs" asks the core for.
const DefaultHistoryPage = 200

// allWorkflows and allStatuses are the "no filter" choices of the runs filters.
const (
	allWorkflows = "All workflows"
	allStatuses  = "All statuses"
)

// history is what the Runs tab loaded of the core's History. UI goroutine only.
type history struct {
	q       store.HistoryQuery // the filter the loaded pages answer (Before and Limit unset)
	runs    []store.Run        // the loaded pages, newest first; the live ones are listed from the doc
	next    uint64             // Before of the next page
	loaded  bool               // at least one page was loaded
	done    bool               // the oldest page was loaded
	loading bool               // a page is being read
	gen     int                // rises when the loaded pages are dropped; a late page of an older gen is dropped too
	err     error              // why the last page could not be read
	shown   int                // archived runs (not in the doc) listed by the last reindex

	inDoc   map[string]bool // ids of inDocOf.Runs
	inDocOf *store.Doc
}

// buildHistory creates the workflow and status filters and the controls under the list.
func (m *Main) buildHistory() {
	m.RunsWorkflow = widget.NewSelect([]string{allWorkflows}, nil)
	m.RunsWorkflow.SetSelected(allWorkflows)
	m.RunsWorkflow.OnChanged = func(string) { m.runFiltersChanged() }
	m.RunsStatus = widget.NewSelect([]string{allStatuses, store.StatusQueued, store.StatusRunning,
		store.StatusSucceeded, store.StatusFailed, store.StatusCancelled}, nil)
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
	h := m.RunsWorkflow.MinSize().Height
	selects := container.NewHBox(container.NewGridWrap(fyne.NewSize(170, h), m.RunsWorkflow),
		container.NewGridWrap(fyne.NewSize(125, h), m.RunsStatus))
	return container.NewBorder(nil, nil, selects, m.RunsCount, m.RunsFilter)
}

// historyBar is the row under the runs list: what is loaded of the archive and the
// control that loads more.
func (m *Main) historyBar() fyne.CanvasObject {
	return container.NewBorder(nil, nil, nil, container.NewHBox(m.RunsRecent, m.RunsOlder), m.RunsArchive)
}

// historyQuery is the HistoryQuery of the workflow and status filters.
func (m *Main) historyQuery() store.HistoryQuery {
	q := store.HistoryQuery{}
	if s := m.RunsWorkflow.Selected; s != allWorkflows {
		q.Workflow = s
	}
	if s := m.RunsStatus.Selected; s != allStatuses {
		q.Status = s
	}
	return q
}

// runMatches says whether r passes the workflow and status filters (hq) and the text
// filter (text).
func runMatches(r *store.Run, hq *store.HistoryQuery, text string) bool {
	if (hq.Workflow != "" && r.Workflow != hq.Workflow) || (hq.Status != "" && r.Status != hq.Status) {
		return false
	}
	return text == "" || containsFold(r.Workflow, text) || containsFold(r.Status, text) ||
		containsFold(r.ID, text) || containsFold(r.Task, text)
}

// runFiltersChanged re-lists the runs. Pages loaded for another workflow or status are
// dropped; if the person was browsing older runs, the newest page for the new filter is
// loaded.
func (m *Main) runFiltersChanged() {
	if q := m.historyQuery(); q != m.hist.q {
		browsing := m.hist.loaded || m.hist.loading
		m.dropHistory()
		m.hist.q = q
		if browsing {
			m.ShowOlderRuns()
		}
	}
	m.relistRuns()
}

func (m *Main) relistRuns() {
	m.reindexRuns()
	m.Runs.Refresh()
	m.syncSelections()
	m.renderHistory()
}

// dropHistory forgets the loaded pages; a page still being read is dropped when it comes.
func (m *Main) dropHistory() {
	m.hist = history{q: m.hist.q, gen: m.hist.gen + 1}
}

// HideOlderRuns lists only the runs of workflows.json again. UI goroutine.
func (m *Main) HideOlderRuns() {
	m.dropHistory()
	m.relistRuns()
}

// ShowOlderRuns loads the next page of the history for the workflow and status filters,
// off the UI goroutine; the page is listed when it comes. A page that adds nothing to the
// live runs is followed by the next one, so each press shows older runs if there are
// any. It does nothing while a page is being read or after the oldest one. UI goroutine.
func (m *Main) ShowOlderRuns() {
	h := &m.hist
	if h.loading || h.done {
		return
	}
	q := h.q
	q.Before, q.Limit = h.next, m.opts.HistoryPage
	gen := h.gen
	h.loading, h.err = true, nil
	m.renderHistory()
	go func() {
		runs, next, err := m.readHistory(q)
		m.post(func() { m.historyRead(gen, runs, next, err) })
	}()
}

// readHistory reads pages from q.Before until one holds a run that is not in the live
// snapshot, or the oldest page was read. Not on the UI goroutine: it reads files.
func (m *Main) readHistory(q store.HistoryQuery) ([]store.Run, uint64, error) {
	live := map[string]bool{}
	for _, r := range m.core.Snapshot().Runs {
		live[r.ID] = true
	}
	var runs []store.Run
	for {
		page, err := m.core.History(q)
		if err != nil {
			return runs, q.Before, err
		}
		runs = append(runs, page.Runs...)
		archived := false
		for i := range page.Runs {
			archived = archived || !live[page.Runs[i].ID]
		}
		if archived || page.Next == 0 || page.Next >= q.Before && q.Before != 0 {
			return runs, page.Next, nil
		}
		q.Before = page.Next
	}
}

// historyRead lists a page that readHistory read. UI goroutine.
func (m *Main) historyRead(gen int, runs []store.Run, next uint64, err error) {
	h := &m.hist
	if gen != h.gen {
		return // the filter changed or the person went back to recent runs
	}
	h.loading = false
	h.runs = append(h.runs, runs...)
	h.next = next
	if err != nil {
		h.err = err
	} else {
		h.loaded, h.done = true, next == 0
	}
	m.relistRuns()
}

// docIDs returns the ids of m.doc's runs, built once per snapshot, or nil when no page is
// loaded (then nothing asks).
func (m *Main) docIDs() map[string]bool {
	h := &m.hist
	if len(h.runs) == 0 {
		return nil
	}
	if h.inDocOf != m.doc {
		h.inDoc = make(map[string]bool, len(m.doc.Runs))
		for i := range m.doc.Runs {
			h.inDoc[m.doc.Runs[i].ID] = true
		}
		h.inDocOf = m.doc
	}
	return h.inDoc
}

// archivedRun returns the loaded run id that is not in the doc, or nil.
func (m *Main) archivedRun(id string) *store.Run {
	for i := range m.hist.runs {
		if m.hist.runs[i].ID == id {
			return &m.hist.runs[i]
		}
	}
	return nil
}

// rowRun is the run in row i of the runs list: m.runIdx holds an index into m.doc.Runs,
// or -(k+1) for m.hist.runs[k].
func (m *Main) rowRun(i int) *store.Run {
	if k := m.runIdx[i]; k >= 0 {
		return &m.doc.Runs[k]
	}
	return &m.hist.runs[-m.runIdx[i]-1]
}

// syncWorkflowChoices keeps the workflow filter's choices equal to the workflows. It
// allocates only when they changed.
func (m *Main) syncWorkflowChoices() {
	opts := m.RunsWorkflow.Options
	same := len(opts) == len(m.doc.Workflows)+1
	for i := 0; same && i < len(m.doc.Workflows); i++ {
		same = opts[i+1] == m.doc.Workflows[i].Name
	}
	if same {
		return
	}
	names := make([]string, 0, len(m.doc.Workflows)+1)
	names = append(names, allWorkflows)
	for i := range m.doc.Workflows {
		names = append(names, m.doc.Workflows[i].Name)
	}
	m.RunsWorkflow.SetOptions(names)
}

// renderHistory says what is loaded of the archive and enables the controls.
func (m *Main) renderHistory() {
	h := &m.hist
	m.RunsOlder.SetText("Show older runs")
	enable(m.RunsOlder, !h.loading && !h.done)
	enable(m.RunsRecent, h.loaded || h.loading)
	var s string
	switch {
	case h.loading:
		s = "Reading older runs…"
	case h.err != nil:
		s = "Could not read older runs: " + errText(h.err)
	case !h.loaded:
		s = fmt.Sprintf("Finished runs beyond the newest %d of each workflow are archived.", store.DefaultKeepFinished)
	case h.done:
		s = fmt.Sprintf("Every run is listed: %s from the archive.", plural(h.shown, "run", "runs"))
		m.RunsOlder.SetText("No older runs")
	default:
		s = fmt.Sprintf("%s from the archive, back to %s.", plural(h.shown, "run", "runs"),
			clock(h.runs[len(h.runs)-1].Created, m.opts.Now()))
	}
	m.RunsArchive.SetText(s)
}
