package store

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// writerStore opens a store on a fresh home as the writer, with the given workflows.
func writerStore(t testing.TB, home string, opts Options, workflows ...string) *Store {
	t.Helper()
	s := New(home, opts)
	if _, err := s.Reload(); err != nil {
		t.Fatal(err)
	}
	s.BeginEpoch()
	if len(workflows) == 0 {
		return s
	}
	if _, err := s.Update(func(d *Doc) error {
		for _, name := range workflows {
			if d.Workflow(name) == nil {
				d.Workflows = append(d.Workflows, testWorkflow(name))
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return s
}

func testWorkflow(name string) Workflow {
	return Workflow{Name: name, MaxConcurrent: 1, OnOwnerLost: "fail",
		Steps: []Step{{Name: "s", Argv: []string{"true"}}}}
}

var testStatuses = []string{StatusSucceeded, StatusFailed, StatusSucceeded, StatusCancelled}

// addFinished records n finished runs of wf, one save each, and returns their ids.
func addFinished(t testing.TB, s *Store, wf string, n int) []string {
	t.Helper()
	var ids []string
	for range n {
		if _, err := s.Update(func(d *Doc) error {
			d.Seq++
			r := Run{ID: fmt.Sprintf("r%d-%s", d.Seq, wf), Seq: d.Seq, Workflow: wf,
				Status: testStatuses[d.Seq%uint64(len(testStatuses))], Steps: 1,
				Created: time.Unix(int64(d.Seq), 0).UTC(), Ended: time.Unix(int64(d.Seq)+1, 0).UTC()}
			d.Runs = append(d.Runs, r)
			ids = append(ids, r.ID)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	return ids
}

// allHistory pages through q and returns every run.
func allHistory(t testing.TB, s *Store, q HistoryQuery) []Run {
	t.Helper()
	var out []Run
	for pages := 0; ; pages++ {
		p, err := s.History(q)
		if err != nil {
			t.Fatal(err)
		}
		if q.Limit > 0 && len(p.Runs) > q.Limit {
			t.Fatalf("page of %d runs, limit %d", len(p.Runs), q.Limit)
		}
		out = append(out, p.Runs...)
		if p.Next == 0 {
			return out
		}
		if pages > 100000 {
			t.Fatal("paging does not end")
		}
		q.Before = p.Next
	}
}

func finishedPerWorkflow(d *Doc) map[string]int {
	m := map[string]int{}
	for _, r := range d.Runs {
		if !r.Active() {
			m[r.Workflow]++
		}
	}
	return m
}

func TestArchiveKeepsDocumentSmall(t *testing.T) {
	home := t.TempDir()
	s := writerStore(t, home, Options{KeepFinished: 10}, "a", "b")
	ids := append(addFinished(t, s, "a", 75), addFinished(t, s, "b", 5)...)
	doc, _ := s.View()
	for wf, n := range finishedPerWorkflow(doc) {
		if n > 10+archiveSlack(10) {
			t.Errorf("workflow %s keeps %d finished runs in the document, want at most %d", wf, n, 10+archiveSlack(10))
		}
	}
	if got := finishedPerWorkflow(doc)["b"]; got != 5 {
		t.Errorf("workflow b keeps %d runs, want all 5 (below the window)", got)
	}
	got := allHistory(t, s, HistoryQuery{})
	if len(got) != len(ids) {
		t.Fatalf("history has %d runs, want %d", len(got), len(ids))
	}
	for i := 1; i < len(got); i++ {
		if got[i].Seq >= got[i-1].Seq {
			t.Fatalf("history not newest first at %d: %d after %d", i, got[i].Seq, got[i-1].Seq)
		}
	}
	// A reader (a second store on the same home) sees the same history.
	r := New(home, Options{})
	if _, err := r.Reload(); err != nil {
		t.Fatal(err)
	}
	if got2 := allHistory(t, r, HistoryQuery{Limit: 7}); len(got2) != len(ids) {
		t.Fatalf("reader history has %d runs, want %d", len(got2), len(ids))
	}
}

func TestArchiveNegativeKeepNeverArchives(t *testing.T) {
	s := writerStore(t, t.TempDir(), Options{KeepFinished: -1}, "a")
	addFinished(t, s, "a", 30)
	doc, _ := s.View()
	if len(doc.Runs) != 30 {
		t.Fatalf("document keeps %d runs, want 30", len(doc.Runs))
	}
	if _, err := os.Stat(s.Archive().Dir()); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("archive folder exists: %v", err)
	}
}

func TestHistoryPagingAndFilters(t *testing.T) {
	s := writerStore(t, t.TempDir(), Options{KeepFinished: 4}, "a", "b", "c")
	for range 6 {
		addFinished(t, s, "a", 7)
		addFinished(t, s, "b", 3)
		addFinished(t, s, "c", 1)
	}
	// A live (queued) run must be listed too.
	if _, err := s.Update(func(d *Doc) error {
		d.Seq++
		d.Runs = append(d.Runs, Run{ID: "live", Seq: d.Seq, Workflow: "a", Status: StatusQueued, Steps: 1})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	full := allHistory(t, s, HistoryQuery{Limit: MaxHistoryLimit})
	if len(full) != 6*11+1 {
		t.Fatalf("history has %d runs, want %d", len(full), 6*11+1)
	}
	for _, q := range []HistoryQuery{
		{Limit: 1}, {Limit: 5}, {Limit: 13},
		{Workflow: "a", Limit: 4}, {Workflow: "b", Limit: 3}, {Workflow: "c"},
		{Status: StatusFailed, Limit: 2}, {Status: StatusQueued},
		{Workflow: "a", Status: StatusSucceeded, Limit: 3},
		{Workflow: "nope"},
	} {
		var want []uint64
		for _, r := range full {
			if q.match(r.Seq, r.Workflow, r.Status) {
				want = append(want, r.Seq)
			}
		}
		var got []uint64
		for _, r := range allHistory(t, s, q) {
			got = append(got, r.Seq)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%+v: got seqs %v, want %v", q, got, want)
		}
	}
	// Runs read back from the archive are whole.
	p, err := s.History(HistoryQuery{Workflow: "a", Before: 5, Limit: 1})
	if err != nil || len(p.Runs) != 1 {
		t.Fatalf("history: %v %v", p, err)
	}
	if r := p.Runs[0]; r.ID == "" || r.Created.IsZero() || r.Ended.IsZero() || r.Steps != 1 {
		t.Errorf("archived run lost fields: %+v", r)
	}
}

func TestHistoryDeduplicates(t *testing.T) {
	s := writerStore(t, t.TempDir(), Options{KeepFinished: 3}, "a")
	ids := addFinished(t, s, "a", 20)
	doc, _ := s.View()
	// Duplicate everything: every archived run again, and the runs still in the document.
	all := allHistory(t, s, HistoryQuery{})
	if err := s.Archive().Append(all); err != nil {
		t.Fatal(err)
	}
	if err := s.Archive().Append(doc.Runs); err != nil {
		t.Fatal(err)
	}
	got := allHistory(t, s, HistoryQuery{Limit: 3})
	if len(got) != len(ids) {
		t.Fatalf("history has %d runs after duplication, want %d", len(got), len(ids))
	}
	seen := map[string]bool{}
	for _, r := range got {
		if seen[r.ID] {
			t.Fatalf("run %s listed twice", r.ID)
		}
		seen[r.ID] = true
	}
}

func TestArchiveRotatesByMonthAndSize(t *testing.T) {
	home := t.TempDir()
	s := writerStore(t, home, Options{KeepFinished: 2, ArchiveMaxSize: 2000}, "a")
	month := time.Date(2026, 1, 31, 23, 0, 0, 0, time.UTC)
	s.Archive().now = func() time.Time { return month }
	ids := addFinished(t, s, "a", 40)
	month = month.Add(48 * time.Hour)
	ids = append(ids, addFinished(t, s, "a", 40)...)
	names, err := s.Archive().list()
	if err != nil {
		t.Fatal(err)
	}
	var jan, feb int
	for _, f := range names {
		switch f.month {
		case "2026-01":
			jan++
		case "2026-02":
			feb++
		default:
			t.Errorf("unexpected file %s", f.name)
		}
		if fi, err := os.Stat(filepath.Join(s.Archive().Dir(), f.name)); err != nil || fi.Size() > 2000+2000 {
			t.Errorf("file %s: %v (size cap 2000 plus one batch)", f.name, err)
		}
	}
	if jan < 2 || feb < 2 {
		t.Errorf("want several parts per month, got %d in January and %d in February: %v", jan, feb, names)
	}
	if got := allHistory(t, s, HistoryQuery{}); len(got) != len(ids) {
		t.Fatalf("history has %d runs, want %d", len(got), len(ids))
	}
}

func TestArchiveTornLineIsSkipped(t *testing.T) {
	s := writerStore(t, t.TempDir(), Options{KeepFinished: 2}, "a")
	ids := addFinished(t, s, "a", 10)
	names, _ := s.Archive().list()
	if len(names) == 0 {
		t.Fatal("nothing archived")
	}
	last := filepath.Join(s.Archive().Dir(), names[len(names)-1].name)
	f, err := os.OpenFile(last, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"id":"torn","seq":999,"workfl`) // a crash mid-append
	f.Close()
	if got := allHistory(t, s, HistoryQuery{}); len(got) != len(ids) {
		t.Fatalf("history has %d runs with a torn line, want %d", len(got), len(ids))
	}
	ids = append(ids, addFinished(t, s, "a", 10)...)
	got := allHistory(t, s, HistoryQuery{})
	if len(got) != len(ids) {
		t.Fatalf("history has %d runs after appending past a torn line, want %d", len(got), len(ids))
	}
	for _, r := range got {
		if r.ID == "torn" {
			t.Fatal("the torn line was read as a run")
		}
	}
}

// TestArchiveCrashBetweenArchiveAndSave kills a real process (SIGKILL, failpoint
// save.after-archive) after the archive append and before the save: every run is still
// found exactly once, and the next writer finishes the move.
func TestArchiveCrashBetweenArchiveAndSave(t *testing.T) {
	if os.Getenv("BATON_TEST_ARCHIVE_CHILD") != "" {
		return // the child's part runs in TestArchiveCrashChild
	}
	home := t.TempDir()
	s := writerStore(t, home, Options{KeepFinished: 5}, "a")
	ids := addFinished(t, s, "a", 6) // one short of the threshold
	before, _ := s.View()

	cmd := exec.Command(os.Args[0], "-test.run=^TestArchiveCrashChild$")
	cmd.Env = append(os.Environ(), "BATON_TEST_ARCHIVE_CHILD="+home, "BATON_FAILPOINTS=save.after-archive")
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ProcessState.String() != "signal: killed" {
		t.Fatalf("child should die by SIGKILL at the failpoint; got %v\n%s", err, out)
	}
	// The child's own new run (r7-a) was never saved: its Update did not return, so it is
	// rightly absent. The runs it moved must all be found, once.

	r := New(home, Options{KeepFinished: 5})
	doc, err := r.Reload()
	if err != nil {
		t.Fatal(err)
	}
	if doc.Generation != before.Generation {
		t.Fatalf("the save after the archive happened (generation %d, want %d)", doc.Generation, before.Generation)
	}
	archived := 0
	for _, e := range archivedIDs(t, r) {
		if doc.Run(e) != nil {
			archived++ // in both places: the harmless duplicate
		}
	}
	if archived == 0 {
		t.Fatal("the child archived nothing before it died")
	}
	checkHistoryOnce(t, r, ids)

	// The next writer moves them again (a second copy in the archive) and loses nothing.
	r.BeginEpoch()
	ids = append(ids, addFinished(t, r, "a", 1)...)
	checkHistoryOnce(t, r, ids)
}

// TestArchiveCrashChild is the child of TestArchiveCrashBetweenArchiveAndSave.
func TestArchiveCrashChild(t *testing.T) {
	home := os.Getenv("BATON_TEST_ARCHIVE_CHILD")
	if home == "" {
		t.Skip("runs only as the child of TestArchiveCrashBetweenArchiveAndSave")
	}
	s := writerStore(t, home, Options{KeepFinished: 5})
	if _, err := s.Update(func(d *Doc) error {
		d.Seq++
		d.Runs = append(d.Runs, Run{ID: "r7-a", Seq: d.Seq, Workflow: "a", Status: StatusSucceeded, Steps: 1})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	t.Fatal("the failpoint did not kill the process")
}

func archivedIDs(t testing.TB, s *Store) []string {
	t.Helper()
	a := s.Archive()
	a.mu.Lock()
	defer a.mu.Unlock()
	if err := a.refresh(); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, e := range a.all {
		ids = append(ids, e.id)
	}
	return ids
}

func checkHistoryOnce(t testing.TB, s *Store, ids []string) {
	t.Helper()
	got := map[string]int{}
	for _, r := range allHistory(t, s, HistoryQuery{Limit: 4}) {
		got[r.ID]++
	}
	for _, id := range ids {
		if got[id] != 1 {
			t.Errorf("run %s listed %d times, want once", id, got[id])
		}
	}
	if len(got) != len(ids) {
		t.Errorf("history lists %d runs, want %d", len(got), len(ids))
	}
}

// TestTrimFinishedCapsTheWholeDocument: with many workflows the per-workflow window alone
// would keep thousands of runs; the total cap keeps the newest maxTotal, the active ones
// always stay, and nothing moves below the slack.
func TestTrimFinishedCapsTheWholeDocument(t *testing.T) {
	d := &Doc{}
	for i := 0; i < 1000; i++ {
		st := StatusSucceeded
		if i%100 == 0 {
			st = StatusQueued
		}
		d.Runs = append(d.Runs, Run{ID: fmt.Sprintf("r%d", i+1), Seq: uint64(i + 1), Workflow: fmt.Sprintf("w%d", i%100), Status: st})
	}
	moved := trimFinished(d, 50, 500)
	finished := 0
	for _, r := range d.Runs {
		if !r.Active() {
			finished++
			if r.Seq <= 1000-510 {
				t.Fatalf("an old run %d stayed while newer ones moved", r.Seq)
			}
		}
	}
	if finished != 500 || len(moved) != 490 || len(d.Runs) != 510 {
		t.Fatalf("finished kept %d, moved %d, runs %d; want 500, 490, 510", finished, len(moved), len(d.Runs))
	}
	for i := 1; i < len(moved); i++ {
		if moved[i].Seq < moved[i-1].Seq {
			t.Fatal("moved runs are not in Seq order")
		}
	}
	if again := trimFinished(d, 50, 500); again != nil {
		t.Fatalf("a trimmed document moved %d more runs", len(again))
	}
}
