package view

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"baton/store"
)

// sr is a finished run with sequence number seq.
func sr(seq uint64, wf, status string) store.Run {
	return store.Run{ID: fmt.Sprintf("r%d", seq), Seq: seq, Workflow: wf, Status: status, Created: at(10, int(seq), 0)}
}

// ids lists the ids of the rows in idx.
func ids(h *History, doc *store.Doc, idx []int) []string {
	var out []string
	for _, k := range idx {
		out = append(out, h.Row(doc, k).ID)
	}
	return out
}

func TestListMergesArchivedAndLiveNewestFirst(t *testing.T) {
	ok, bad := store.StatusSucceeded, store.StatusFailed
	// workflows.json keeps an old running run (3) and the newest runs; History pages
	// through every run, live ones included, newest first.
	doc := &store.Doc{Runs: []store.Run{sr(3, "nightly", store.StatusRunning), sr(20, "photos", ok), sr(21, "nightly", bad)}}
	h := &History{Runs: []store.Run{sr(21, "nightly", bad), sr(20, "photos", ok), sr(19, "nightly", ok), sr(18, "photos", bad),
		sr(3, "nightly", store.StatusRunning), sr(2, "nightly", bad), sr(1, "photos", ok)}}
	all := store.HistoryQuery{}
	for _, c := range []struct {
		name  string
		hq    store.HistoryQuery
		text  string
		want  []string
		shown int
	}{
		{"everything", all, "", []string{"r21", "r20", "r19", "r18", "r3", "r2", "r1"}, 4},
		{"one workflow", store.HistoryQuery{Workflow: "nightly"}, "", []string{"r21", "r19", "r3", "r2"}, 2},
		{"one status", store.HistoryQuery{Status: bad}, "", []string{"r21", "r18", "r2"}, 2},
		{"text matches the workflow, any case", all, "PHOTO", []string{"r20", "r18", "r1"}, 2},
		{"text matches the status", all, "runn", []string{"r3"}, 0},
		{"text matches the id", all, "r19", []string{"r19"}, 1},
		{"nothing matches", all, "zzz", nil, 0},
	} {
		idx := h.List(nil, doc, c.hq, c.text)
		if got := ids(h, doc, idx); !slices.Equal(got, c.want) {
			t.Errorf("%s: listed %q, want %q", c.name, got, c.want)
		}
		if h.Shown != c.shown {
			t.Errorf("%s: %d archived runs shown, want %d", c.name, h.Shown, c.shown)
		}
	}

	// Without loaded pages only the live runs are listed, newest first.
	live := &History{}
	if got := ids(live, doc, live.List(nil, doc, all, "")); !slices.Equal(got, []string{"r21", "r20", "r3"}) {
		t.Errorf("live only: %q", got)
	}

	// A run archived after the page was loaded (gone from the doc) is listed from the page.
	doc2 := &store.Doc{Runs: []store.Run{sr(20, "photos", ok), sr(21, "nightly", bad)}}
	if got := ids(h, doc2, h.List(nil, doc2, all, "")); !slices.Equal(got, []string{"r21", "r20", "r19", "r18", "r3", "r2", "r1"}) || h.Shown != 5 {
		t.Errorf("after r3 was archived: %q, %d shown", got, h.Shown)
	}

	// Find looks in the doc first, then in the loaded pages.
	if r := h.Find(doc, "r2"); r == nil || r != &h.Runs[5] {
		t.Errorf("Find(r2) = %v, want the archived run", r)
	}
	if r := h.Find(doc, "r21"); r != &doc.Runs[2] {
		t.Errorf("Find(r21) = %v, want the live run", r)
	}
	if h.Find(doc, "") != nil || h.Find(doc, "r99") != nil {
		t.Error("Find found a run that is not there")
	}
}

func TestListReusesItsIndex(t *testing.T) {
	doc := &store.Doc{}
	for i := range 1000 {
		doc.Runs = append(doc.Runs, sr(uint64(i+1), "w", store.StatusSucceeded))
	}
	h := &History{}
	idx := h.List(nil, doc, store.HistoryQuery{}, "")
	if allocs := testing.AllocsPerRun(10, func() { idx = h.List(idx, doc, store.HistoryQuery{}, "w") }); allocs != 0 {
		t.Errorf("List allocates %v times per call with a big enough index, want 0", allocs)
	}
}

func TestRunsCount(t *testing.T) {
	for _, c := range []struct {
		listed, live, archived int
		want                   string
	}{
		{0, 0, 0, "0 runs"},
		{1, 1, 0, "1 run"},
		{3, 10, 0, "3 of 10 runs"},
		{12, 10, 5, "12 runs"},
		{1, 10, 1, "1 run"},
	} {
		if got := RunsCount(c.listed, c.live, c.archived); got != c.want {
			t.Errorf("RunsCount(%d, %d, %d) = %q, want %q", c.listed, c.live, c.archived, got, c.want)
		}
	}
}

func TestQueryOfAndChoices(t *testing.T) {
	if q := QueryOf(AllWorkflows, AllStatuses); q != (store.HistoryQuery{}) {
		t.Errorf("no filter: %+v", q)
	}
	if q := QueryOf("nightly", store.StatusFailed); q.Workflow != "nightly" || q.Status != store.StatusFailed {
		t.Errorf("filters: %+v", q)
	}
	doc := &store.Doc{Workflows: []store.Workflow{{Name: "a"}, {Name: "b"}}}
	opts, changed := WorkflowChoices([]string{AllWorkflows}, doc)
	if !changed || !slices.Equal(opts, []string{AllWorkflows, "a", "b"}) {
		t.Errorf("choices %q (changed %v)", opts, changed)
	}
	if _, changed := WorkflowChoices(opts, doc); changed {
		t.Error("the same workflows changed the choices")
	}
	if _, changed := WorkflowChoices([]string{AllWorkflows, "a", "c"}, doc); !changed {
		t.Error("a renamed workflow did not change the choices")
	}
}

func TestHistoryPaging(t *testing.T) {
	h := &History{}
	q, gen, ok := h.Begin(20)
	if !ok || !h.Loading || q.Limit != 20 || q.Before != 0 {
		t.Fatalf("first Begin: %+v gen %d ok %v loading %v", q, gen, ok, h.Loading)
	}
	if _, _, again := h.Begin(20); again {
		t.Error("a second Begin while a page is read starts another read")
	}
	if h.Arrived(gen-1, []store.Run{sr(1, "w", "x")}, 0, nil) || len(h.Runs) != 0 {
		t.Error("a page of an older generation was kept")
	}
	if !h.Arrived(gen, []store.Run{sr(9, "w", "x")}, 9, nil) || h.Loading || !h.Loaded || h.Done || h.Next != 9 {
		t.Fatalf("after a page: %+v", h)
	}
	q, gen, ok = h.Begin(20)
	if !ok || q.Before != 9 {
		t.Fatalf("second Begin: %+v ok %v, want Before 9", q, ok)
	}
	if !h.Arrived(gen, nil, 9, errors.New("disk")) || h.Err == nil || h.Loading || h.Done {
		t.Fatalf("after a failed read: %+v", h)
	}
	q, gen, ok = h.Begin(20)
	if !ok || h.Err != nil || q.Before != 9 {
		t.Fatalf("retry: %+v ok %v err %v", q, ok, h.Err)
	}
	if !h.Arrived(gen, []store.Run{sr(1, "w", "x")}, 0, nil) || !h.Done || len(h.Runs) != 2 {
		t.Fatalf("last page: %+v", h)
	}
	if _, _, ok := h.Begin(20); ok {
		t.Error("Begin after the oldest page starts a read")
	}

	// Going back to recent runs drops the pages, and a page still being read with them.
	h = &History{}
	_, gen, _ = h.Begin(20)
	h.Drop()
	if h.Loading || h.Gen == gen || h.Arrived(gen, []store.Run{sr(1, "w", "x")}, 0, nil) || len(h.Runs) != 0 {
		t.Errorf("after Drop: %+v", h)
	}
}

func TestHistoryRefilter(t *testing.T) {
	nightly := store.HistoryQuery{Workflow: "nightly"}
	h := &History{}
	if h.Refilter(store.HistoryQuery{}) {
		t.Error("the same filter reloads")
	}
	if h.Refilter(nightly) || h.Query != nightly {
		t.Errorf("a new filter while not browsing reloads, or was not kept: %+v", h.Query)
	}
	_, gen, _ := h.Begin(20)
	h.Arrived(gen, []store.Run{sr(1, "nightly", "x")}, 1, nil)
	if h.Refilter(nightly) || len(h.Runs) != 1 {
		t.Error("the same filter dropped the pages")
	}
	failed := store.HistoryQuery{Status: store.StatusFailed}
	if !h.Refilter(failed) || len(h.Runs) != 0 || h.Loaded || h.Query != failed {
		t.Errorf("a new filter while browsing: reload false or pages kept: %+v", h)
	}
	h.Begin(20)
	if !h.Refilter(nightly) {
		t.Error("a new filter while a page is read does not reload")
	}
}

func TestHistoryBar(t *testing.T) {
	now := at(12, 0, 0)
	for _, c := range []struct {
		name          string
		h             History
		text, older   string
		olderOn, back bool
	}{
		{"nothing loaded", History{}, fmt.Sprintf("Finished runs beyond the newest %d of each workflow are archived.", store.DefaultKeepFinished),
			"Show older runs", true, false},
		{"reading", History{Loading: true}, "Reading older runs…", "Show older runs", false, true},
		{"failed", History{Err: errors.New("disk")}, "Could not read older runs: disk", "Show older runs", true, false},
		{"some pages", History{Loaded: true, Shown: 2, Runs: []store.Run{sr(9, "w", "x"), sr(4, "w", "x")}},
			"2 runs from the archive, back to 10:04.", "Show older runs", true, true},
		{"all", History{Loaded: true, Done: true, Shown: 1, Runs: []store.Run{sr(4, "w", "x")}},
			"Every run is listed: 1 run from the archive.", "No older runs", false, true},
	} {
		b := c.h.Bar(now)
		if b.Text != c.text || b.Older != c.older || b.OlderEnabled != c.olderOn || b.RecentEnabled != c.back {
			t.Errorf("%s: %+v, want %q %q older %v recent %v", c.name, b, c.text, c.older, c.olderOn, c.back)
		}
	}
}

func TestReadHistoryReadsUntilAnArchivedRun(t *testing.T) {
	live := &store.Doc{Runs: []store.Run{sr(5, "w", "x"), sr(6, "w", "x")}}
	pages := map[uint64]store.HistoryPage{
		0: {Runs: []store.Run{sr(6, "w", "x"), sr(5, "w", "x")}, Next: 5}, // all live
		5: {Runs: []store.Run{sr(4, "w", "x"), sr(3, "w", "x")}, Next: 3}, // archived
		3: {Runs: []store.Run{sr(2, "w", "x"), sr(1, "w", "x")}},
	}
	var asked []uint64
	fetch := func(q store.HistoryQuery) (store.HistoryPage, error) {
		asked = append(asked, q.Before)
		if q.Limit != 2 || q.Workflow != "w" {
			t.Errorf("query %+v lost its limit or filter", q)
		}
		return pages[q.Before], nil
	}
	runs, next, err := ReadHistory(store.HistoryQuery{Workflow: "w", Limit: 2}, live, fetch)
	if err != nil || next != 3 || len(runs) != 4 || !slices.Equal(asked, []uint64{0, 5}) {
		t.Errorf("read %d runs, next %d, err %v, asked %v; want 4 runs from pages 0 and 5, next 3", len(runs), next, err, asked)
	}

	// The oldest page ends the read even when it holds only live runs.
	asked = nil
	pages = map[uint64]store.HistoryPage{0: {Runs: []store.Run{sr(6, "w", "x")}}}
	if runs, next, err := ReadHistory(store.HistoryQuery{Workflow: "w", Limit: 2}, live, fetch); err != nil || next != 0 || len(runs) != 1 {
		t.Errorf("last page: %d runs, next %d, err %v", len(runs), next, err)
	}

	// A page that does not go back (Next not below Before) ends the read: no endless loop.
	asked = nil
	pages = map[uint64]store.HistoryPage{5: {Runs: []store.Run{sr(6, "w", "x")}, Next: 5}}
	if _, next, err := ReadHistory(store.HistoryQuery{Workflow: "w", Limit: 2, Before: 5}, live, fetch); err != nil || next != 5 || len(asked) != 1 {
		t.Errorf("no progress: next %d, err %v, asked %v", next, err, asked)
	}

	// An error returns what was read and where to go on from.
	asked = nil
	pages = map[uint64]store.HistoryPage{0: {Runs: []store.Run{sr(6, "w", "x")}, Next: 6}}
	failing := func(q store.HistoryQuery) (store.HistoryPage, error) {
		if q.Before == 6 {
			return store.HistoryPage{}, errors.New("archive unreadable")
		}
		return fetch(q)
	}
	runs, next, err = ReadHistory(store.HistoryQuery{Workflow: "w", Limit: 2}, live, failing)
	if err == nil || !strings.Contains(err.Error(), "unreadable") || next != 6 || len(runs) != 1 {
		t.Errorf("error: %d runs, next %d, err %v", len(runs), next, err)
	}
}

func TestPickNewest(t *testing.T) {
	for _, c := range []struct {
		sel    string
		listed int
		want   bool
	}{{"", 0, false}, {"", 3, true}, {"r1", 3, false}} {
		if got := PickNewest(c.sel, c.listed); got != c.want {
			t.Errorf("PickNewest(%q, %d) = %v", c.sel, c.listed, got)
		}
	}
}
