package view

import (
	"fmt"
	"time"

	"baton/store"
)

// The Runs tab lists the live runs of the snapshot (workflows.json keeps the active and
// recent runs) and, once the person asks for older runs, the pages of the core's History
// loaded so far, merged newest first. The workflow and status choices above the list are
// the HistoryQuery; the text filter narrows both further.

// DefaultHistoryPage is how many runs one "Show older runs" asks the core for.
const DefaultHistoryPage = 200

// AllWorkflows and AllStatuses are the "no filter" choices of the runs filters.
const (
	AllWorkflows = "All workflows"
	AllStatuses  = "All statuses"
)

// StatusChoices are the choices of the status filter.
var StatusChoices = []string{AllStatuses, store.StatusQueued, store.StatusRunning,
	store.StatusSucceeded, store.StatusFailed, store.StatusCancelled}

// QueryOf is the HistoryQuery of the workflow and status filters' choices.
func QueryOf(workflow, status string) store.HistoryQuery {
	q := store.HistoryQuery{}
	if workflow != AllWorkflows {
		q.Workflow = workflow
	}
	if status != AllStatuses {
		q.Status = status
	}
	return q
}

// WorkflowChoices returns the choices of the workflow filter for doc, and whether they
// differ from opts. It allocates only when they differ.
func WorkflowChoices(opts []string, doc *store.Doc) ([]string, bool) {
	same := len(opts) == len(doc.Workflows)+1
	for i := 0; same && i < len(doc.Workflows); i++ {
		same = opts[i+1] == doc.Workflows[i].Name
	}
	if same {
		return opts, false
	}
	names := make([]string, 0, len(doc.Workflows)+1)
	names = append(names, AllWorkflows)
	for i := range doc.Workflows {
		names = append(names, doc.Workflows[i].Name)
	}
	return names, true
}

// RunMatches says whether r passes the workflow and status filters (hq) and the text
// filter (text: workflow, status, id or task, ignoring case).
func RunMatches(r *store.Run, hq *store.HistoryQuery, text string) bool {
	if (hq.Workflow != "" && r.Workflow != hq.Workflow) || (hq.Status != "" && r.Status != hq.Status) {
		return false
	}
	return text == "" || ContainsFold(r.Workflow, text) || ContainsFold(r.Status, text) ||
		ContainsFold(r.ID, text) || ContainsFold(r.Task, text)
}

// History is what the Runs tab loaded of the core's History, and the state of loading
// it. One goroutine only (the UI's).
type History struct {
	Query   store.HistoryQuery // the filter the loaded pages answer (Before and Limit unset)
	Runs    []store.Run        // the loaded pages, newest first; the live ones are listed from the doc
	Next    uint64             // Before of the next page
	Loaded  bool               // at least one page was loaded
	Done    bool               // the oldest page was loaded
	Loading bool               // a page is being read
	Gen     int                // rises when the loaded pages are dropped; a late page of an older Gen is dropped too
	Err     error              // why the last page could not be read
	Shown   int                // archived runs (not in the doc) listed by the last List

	inDoc   map[string]bool // ids of inDocOf.Runs
	inDocOf *store.Doc
}

// Drop forgets the loaded pages; a page still being read is dropped when it comes.
func (h *History) Drop() { *h = History{Query: h.Query, Gen: h.Gen + 1} }

// Refilter sets the query of the workflow and status filters. When it changed, the
// loaded pages are dropped, and Refilter reports whether the person was browsing older
// runs: then the newest page for the new filter is to be loaded.
func (h *History) Refilter(q store.HistoryQuery) (reload bool) {
	if q == h.Query {
		return false
	}
	browsing := h.Loaded || h.Loading
	h.Drop()
	h.Query = q
	return browsing
}

// Begin starts reading the next page of limit runs: it returns the query to read and
// the generation to hand back to Arrived. ok is false while a page is being read or
// after the oldest one: then there is nothing to read.
func (h *History) Begin(limit int) (q store.HistoryQuery, gen int, ok bool) {
	if h.Loading || h.Done {
		return q, 0, false
	}
	q = h.Query
	q.Before, q.Limit = h.Next, limit
	h.Loading, h.Err = true, nil
	return q, h.Gen, true
}

// Arrived records a page that ReadHistory read for generation gen. It reports false,
// and keeps nothing, when the pages were dropped since (the filter changed, or the person
// went back to recent runs).
func (h *History) Arrived(gen int, runs []store.Run, next uint64, err error) bool {
	if gen != h.Gen {
		return false
	}
	h.Loading = false
	h.Runs = append(h.Runs, runs...)
	h.Next = next
	if err != nil {
		h.Err = err
	} else {
		h.Loaded, h.Done = true, next == 0
	}
	return true
}

// ReadHistory reads pages from q.Before until one holds a run that is not in live (the
// snapshot), or the oldest page was read, so that each "Show older runs" shows older runs
// if there are any. It returns the runs read and the Before of the next page. fetch is
// the core's History; it reads files, so ReadHistory runs off the UI goroutine.
func ReadHistory(q store.HistoryQuery, live *store.Doc, fetch func(store.HistoryQuery) (store.HistoryPage, error)) ([]store.Run, uint64, error) {
	ids := make(map[string]bool, len(live.Runs))
	for _, r := range live.Runs {
		ids[r.ID] = true
	}
	var runs []store.Run
	for {
		page, err := fetch(q)
		if err != nil {
			return runs, q.Before, err
		}
		runs = append(runs, page.Runs...)
		archived := false
		for i := range page.Runs {
			archived = archived || !ids[page.Runs[i].ID]
		}
		if archived || page.Next == 0 || page.Next >= q.Before && q.Before != 0 {
			return runs, page.Next, nil
		}
		q.Before = page.Next
	}
}

// docIDs returns the ids of doc's runs, built once per snapshot, or nil when no page is
// loaded (then nothing asks).
func (h *History) docIDs(doc *store.Doc) map[string]bool {
	if len(h.Runs) == 0 {
		return nil
	}
	if h.inDocOf != doc {
		h.inDoc = make(map[string]bool, len(doc.Runs))
		for i := range doc.Runs {
			h.inDoc[doc.Runs[i].ID] = true
		}
		h.inDocOf = doc
	}
	return h.inDoc
}

// List fills idx (reusing its backing array) with the rows of the runs list: the runs of
// doc and the loaded archived runs that are not in doc, that pass the filters hq and
// text, newest first (by Seq). An entry k >= 0 is doc.Runs[k]; k < 0 is h.Runs[-k-1]
// (see Row). It sets h.Shown to the archived runs listed.
func (h *History) List(idx []int, doc *store.Doc, hq store.HistoryQuery, text string) []int {
	arch, inDoc := h.Runs, h.docIDs(doc)
	idx = idx[:0]
	j, archived := 0, 0
	for i := len(doc.Runs) - 1; i >= 0; i-- {
		r := &doc.Runs[i]
		if !RunMatches(r, &hq, text) {
			continue
		}
		for ; j < len(arch) && arch[j].Seq > r.Seq; j++ { // the archived runs newer than r
			if !inDoc[arch[j].ID] && RunMatches(&arch[j], &hq, text) {
				idx = append(idx, -j-1)
				archived++
			}
		}
		idx = append(idx, i)
	}
	for ; j < len(arch); j++ {
		if !inDoc[arch[j].ID] && RunMatches(&arch[j], &hq, text) {
			idx = append(idx, -j-1)
			archived++
		}
	}
	h.Shown = archived
	return idx
}

// Row is the run of list entry k (see List).
func (h *History) Row(doc *store.Doc, k int) *store.Run {
	if k >= 0 {
		return &doc.Runs[k]
	}
	return &h.Runs[-k-1]
}

// Find returns run id of doc, else the loaded archived run id, else nil.
func (h *History) Find(doc *store.Doc, id string) *store.Run {
	if id == "" {
		return nil
	}
	if r := doc.Run(id); r != nil {
		return r
	}
	for i := range h.Runs {
		if h.Runs[i].ID == id {
			return &h.Runs[i]
		}
	}
	return nil
}

// RunsCount is the count next to the runs filter: listed rows, of live runs in the doc,
// archived of them from the archive.
func RunsCount(listed, live, archived int) string {
	switch {
	case listed == live && archived == 0:
		return Plural(live, "run", "runs")
	case archived == 0:
		return fmt.Sprintf("%d of %d runs", listed, live)
	}
	return Plural(listed, "run", "runs") // the bar under the list counts the archived ones
}

// HistoryBar is the row under the runs list: what is loaded of the archive and the
// controls that load more or go back to recent runs.
type HistoryBar struct {
	Text          string
	Older         string // the label of the button that loads the next page
	OlderEnabled  bool
	RecentEnabled bool
}

// Bar is the row under the runs list for what h loaded.
func (h *History) Bar(now time.Time) HistoryBar {
	b := HistoryBar{Older: "Show older runs", OlderEnabled: !h.Loading && !h.Done, RecentEnabled: h.Loaded || h.Loading}
	switch {
	case h.Loading:
		b.Text = "Reading older runs…"
	case h.Err != nil:
		b.Text = "Could not read older runs: " + ErrText(h.Err)
	case !h.Loaded:
		b.Text = fmt.Sprintf("Finished runs beyond the newest %d of each workflow are archived.", store.DefaultKeepFinished)
	case h.Done:
		b.Text = fmt.Sprintf("Every run is listed: %s from the archive.", Plural(h.Shown, "run", "runs"))
		b.Older = "No older runs"
	default:
		b.Text = fmt.Sprintf("%s from the archive, back to %s.", Plural(h.Shown, "run", "runs"),
			Clock(h.Runs[len(h.Runs)-1].Created, now))
	}
	return b
}

// PickNewest reports whether the run view should show the newest listed run: nothing is
// chosen yet and something is listed.
func PickNewest(selected string, listed int) bool { return selected == "" && listed > 0 }
