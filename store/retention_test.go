package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// archivedRuns makes n finished runs of workflow wf, seq from first on, ended a second apart.
func archivedRuns(wf string, first, n int) []Run {
	out := make([]Run, n)
	for i := range out {
		seq := uint64(first + i)
		out[i] = Run{ID: fmt.Sprintf("r%d-%s", seq, wf), Seq: seq, Workflow: wf, Status: StatusSucceeded, Steps: 1,
			Created: time.Unix(int64(seq), 0).UTC(), Ended: time.Unix(int64(seq)+1, 0).UTC(), Log: "padding to make lines long enough"}
	}
	return out
}

// archiveWith appends runs to a fresh archive in batches of batch runs (small files make
// several parts) and returns the archive and the store that reads it.
func archiveWith(t *testing.T, maxSize int64, batch int, runs []Run) (*Store, *Archive) {
	t.Helper()
	home := t.TempDir()
	s := New(home, Options{ArchiveMaxSize: maxSize})
	if _, err := s.Reload(); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < len(runs); i += batch {
		if err := s.Archive().Append(runs[i:min(i+batch, len(runs))]); err != nil {
			t.Fatal(err)
		}
	}
	return s, s.Archive()
}

func noCheck() error { return nil }

func archiveFiles(t *testing.T, a *Archive) []string {
	t.Helper()
	fs, err := a.list()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range fs {
		names = append(names, f.name)
	}
	return names
}

func historyIDs(t *testing.T, s *Store) []string {
	t.Helper()
	var ids []string
	for _, r := range allHistory(t, s, HistoryQuery{Limit: 7}) {
		ids = append(ids, r.ID)
	}
	slices.Sort(ids)
	return ids
}

func idsOf(runs []Run) []string {
	var ids []string
	for _, r := range runs {
		ids = append(ids, r.ID)
	}
	slices.Sort(ids)
	return ids
}

// TestArchiveRunsListsWhatRetentionNeeds: each archived run once, newest first, with its
// end time and the size of its line.
func TestArchiveRunsListsWhatRetentionNeeds(t *testing.T) {
	runs := archivedRuns("a", 1, 5)
	runs[2].Ended = time.Time{} // never ended: its age counts from its creation
	_, a := archiveWith(t, 0, 2, runs)
	seq, n, err := a.Runs()
	if err != nil {
		t.Fatal(err)
	}
	got := slices.Collect(seq)
	if n != len(got) {
		t.Errorf("Runs() says %d runs, yields %d", n, len(got))
	}
	if len(got) != 5 || got[0].ID != "r5-a" || got[4].ID != "r1-a" {
		t.Fatalf("Runs() = %+v, want r5-a .. r1-a", got)
	}
	size := int64(0)
	for _, r := range got {
		size += r.Bytes
	}
	if fi, err := os.Stat(filepath.Join(a.Dir(), archiveFiles(t, a)[0])); err != nil || fi.Size() != size {
		t.Errorf("line sizes add up to %d, file is %v (%v)", size, fi.Size(), err)
	}
	if !got[0].At.Equal(time.Unix(6, 0)) || !got[2].At.Equal(time.Unix(3, 0)) || got[0].Status != StatusSucceeded || got[0].Workflow != "a" {
		t.Errorf("Runs()[0] = %+v, [2] = %+v", got[0], got[2])
	}
}

// TestCompactKeepsEveryKeptRun: a file whose runs are all dropped is removed, a file at
// least half dropped is rewritten without them, a file less than half dropped waits; every
// kept run is listed once, whole, and nothing dropped from a compacted file is.
func TestCompactKeepsEveryKeptRun(t *testing.T) {
	runs := archivedRuns("a", 1, 30)
	line := int64(len(mustJSON(t, runs[9])) + 1)
	s, a := archiveWith(t, 10*line, 10, runs) // three parts of ten runs
	files := archiveFiles(t, a)
	if len(files) != 3 {
		t.Fatalf("files %q, want three parts", files)
	}
	drop := map[string]bool{}
	for i := range 10 { // the whole first part
		drop[runs[i].ID] = true
	}
	for i := 10; i < 16; i++ { // six of the second
		drop[runs[i].ID] = true
	}
	drop[runs[25].ID] = true // one of the third: under the threshold
	st, err := a.Compact(drop, 1<<30, noCheck)
	if err != nil {
		t.Fatal(err)
	}
	if st.Removed != 1 || st.Rewritten != 1 || st.Deferred != 1 || st.Dropped != 16 || st.Freed <= 15*line {
		t.Errorf("stats %+v, want 1 removed, 1 rewritten, 1 deferred, 16 dropped", st)
	}
	if got := archiveFiles(t, a); !slices.Equal(got, files[1:]) {
		t.Errorf("files after %q, want %q", got, files[1:])
	}
	var want []Run
	for i, r := range runs {
		if i >= 16 {
			want = append(want, r)
		}
	}
	if got := historyIDs(t, s); !slices.Equal(got, idsOf(want)) {
		t.Errorf("history after compaction:\n got %q\nwant %q", got, idsOf(want))
	}
	for _, r := range allHistory(t, s, HistoryQuery{}) {
		if w := runs[r.Seq-1]; mustJSON(t, r) != mustJSON(t, w) {
			t.Errorf("run %s changed by compaction:\n got %s\nwant %s", r.ID, mustJSON(t, r), mustJSON(t, w))
		}
	}
	// A day later the file that waited is rewritten too, the rewritten one is not again.
	a.now = func() time.Time { return time.Now().Add(CompactAge + time.Minute) }
	st, err = a.Compact(drop, 1<<30, noCheck)
	if err != nil || st.Rewritten != 1 || st.Dropped != 1 || st.Deferred != 0 {
		t.Errorf("a day later: %+v, %v; want the waiting file rewritten", st, err)
	}
	if got := historyIDs(t, s); slices.Contains(got, runs[25].ID) || len(got) != 13 {
		t.Errorf("history a day later %q", got)
	}
}

func mustJSON(t *testing.T, r Run) string {
	t.Helper()
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestCompactRefusedWhenNoLongerWriter: check failing stops the compaction before any file
// is replaced or removed.
func TestCompactRefusedWhenNoLongerWriter(t *testing.T) {
	runs := archivedRuns("a", 1, 10)
	s, a := archiveWith(t, 0, 10, runs)
	drop := map[string]bool{}
	for _, r := range runs {
		drop[r.ID] = true
	}
	lost := errors.New("lock lost")
	if _, err := a.Compact(drop, 1<<30, func() error { return lost }); !errors.Is(err, lost) {
		t.Fatalf("Compact = %v, want the check's error", err)
	}
	if got := historyIDs(t, s); !slices.Equal(got, idsOf(runs)) {
		t.Errorf("history %q, want all of %q", got, idsOf(runs))
	}
}

// TestAppendDuringCompactionGoesToANewPart: a batch archived while a file is compacted goes
// to a new part of the month, so the rename cannot lose it.
func TestAppendDuringCompactionGoesToANewPart(t *testing.T) {
	runs := archivedRuns("a", 1, 4)
	s, a := archiveWith(t, 0, 4, runs)
	name := archiveFiles(t, a)[0]
	a.wmu.Lock()
	a.compacting = name
	a.wmu.Unlock()
	late := archivedRuns("a", 5, 1)
	if err := a.Append(late); err != nil {
		t.Fatal(err)
	}
	a.wmu.Lock()
	a.compacting = ""
	a.wmu.Unlock()
	if files := archiveFiles(t, a); len(files) != 2 || files[0] != name {
		t.Fatalf("files %q: the append went into the file being compacted", files)
	}
	if _, err := a.Compact(map[string]bool{runs[0].ID: true, runs[1].ID: true}, 1<<30, noCheck); err != nil {
		t.Fatal(err)
	}
	if got, want := historyIDs(t, s), idsOf(append(runs[2:], late...)); !slices.Equal(got, want) {
		t.Errorf("history %q, want %q", got, want)
	}
}

// TestHistoryReadsThroughCompaction: a reader (another store on the same home) that
// indexed the archive before a compaction reads the right runs after it, even when the
// compacted file then grew past its old size (the index must notice it is another file).
func TestHistoryReadsThroughCompaction(t *testing.T) {
	runs := archivedRuns("a", 1, 20)
	w, a := archiveWith(t, 0, 20, runs)
	reader := New(w.Dir(), Options{})
	if got := historyIDs(t, reader); !slices.Equal(got, idsOf(runs)) {
		t.Fatalf("reader before: %q", got)
	}
	drop := map[string]bool{}
	for _, r := range runs[:15] {
		drop[r.ID] = true
	}
	if st, err := a.Compact(drop, 1<<30, noCheck); err != nil || st.Rewritten != 1 {
		t.Fatalf("Compact = %+v, %v", st, err)
	}
	more := archivedRuns("a", 21, 40) // the file grows past its size before compaction
	if err := a.Append(more); err != nil {
		t.Fatal(err)
	}
	want := idsOf(append(slices.Clone(runs[15:]), more...))
	if got := indexIDs(t, reader.Archive()); !slices.Equal(got, want) {
		t.Errorf("reader's index after compaction:\n got %q\nwant %q", got, want)
	}
	if got := historyIDs(t, reader); !slices.Equal(got, want) {
		t.Errorf("reader after compaction:\n got %q\nwant %q", got, want)
	}
	for _, r := range allHistory(t, reader, HistoryQuery{Limit: 3}) {
		if r.ID != fmt.Sprintf("r%d-a", r.Seq) {
			t.Errorf("reader read run %s as seq %d", r.ID, r.Seq)
		}
	}
}

// TestHistoryRetriesAPageReadDuringCompaction: a page whose index was taken before a
// compaction replaced the file (the reader's refresh ran first, its reads after) is read
// again, not failed and not filled with other runs.
func TestHistoryRetriesAPageReadDuringCompaction(t *testing.T) {
	runs := archivedRuns("a", 10, 20) // ids of one length: a stale offset may hold a whole other run
	w, a := archiveWith(t, 0, 20, runs)
	reader := New(w.Dir(), Options{})
	ra := reader.Archive()
	ra.mu.Lock()
	if err := ra.refresh(); err != nil { // indexed before the compaction
		t.Fatal(err)
	}
	stale := ra.all
	ra.mu.Unlock()
	drop := map[string]bool{}
	for _, r := range runs[:12] {
		drop[r.ID] = true
	}
	if _, err := a.Compact(drop, 1<<30, noCheck); err != nil {
		t.Fatal(err)
	}
	oldest := stale[len(stale)-1] // r10-a at offset 0, where r22-a is now
	if r, err := ra.load(oldest); !errors.Is(err, errStale) {
		t.Fatalf("load of %s from the old index = %s, %v, want errStale", oldest.id, r.ID, err)
	}
	p, err := reader.History(HistoryQuery{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := idsOf(p.Runs), idsOf(runs[12:]); !slices.Equal(got, want) {
		t.Errorf("page %q, want %q", got, want)
	}
}

// TestCompactCrashLeavesOldArchiveComplete: a writer killed mid-compaction (its new file
// durable, not yet renamed) leaves the old file byte for byte and every run listed; its
// temp file is removed once its creator is proven gone, and the next compaction completes.
func TestCompactCrashLeavesOldArchiveComplete(t *testing.T) {
	if os.Getenv("BATON_TEST_COMPACT_CHILD") != "" {
		return
	}
	runs := archivedRuns("a", 1, 20)
	s, a := archiveWith(t, 0, 20, runs)
	name := archiveFiles(t, a)[0]
	before, err := os.ReadFile(filepath.Join(a.Dir(), name))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestCompactCrashChild$")
	cmd.Env = append(os.Environ(), "BATON_TEST_COMPACT_CHILD="+s.Dir(), "BATON_FAILPOINTS=archive.compact.before-rename")
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ProcessState.String() != "signal: killed" {
		t.Fatalf("child should die by SIGKILL at the failpoint; got %v\n%s", err, out)
	}
	after, err := os.ReadFile(filepath.Join(a.Dir(), name))
	if err != nil || string(after) != string(before) {
		t.Fatalf("the old archive file changed (%v)", err)
	}
	if got := historyIDs(t, New(s.Dir(), Options{})); !slices.Equal(got, idsOf(runs)) {
		t.Errorf("history after the crash %q, want every run", got)
	}
	ents, _ := os.ReadDir(a.Dir())
	if len(ents) != 2 {
		t.Fatalf("archive folder %v, want the file and the dead compaction's temp file", ents)
	}
	if rm := CleanTemps(a.Dir(), func(string) bool { return true }); len(rm) != 1 {
		t.Errorf("temp files removed %q, want one", rm)
	}
	if _, err := a.Compact(compactChildDrop(runs), 1<<30, noCheck); err != nil {
		t.Fatal(err)
	}
	if got := historyIDs(t, s); !slices.Equal(got, idsOf(runs[15:])) {
		t.Errorf("history after the next compaction %q, want %q", got, idsOf(runs[15:]))
	}
}

func compactChildDrop(runs []Run) map[string]bool {
	drop := map[string]bool{}
	for _, r := range runs[:15] {
		drop[r.ID] = true
	}
	return drop
}

// TestCompactCrashChild is the child of TestCompactCrashLeavesOldArchiveComplete.
func TestCompactCrashChild(t *testing.T) {
	home := os.Getenv("BATON_TEST_COMPACT_CHILD")
	if home == "" {
		t.Skip("runs only as the child of TestCompactCrashLeavesOldArchiveComplete")
	}
	a := NewArchive(home, 0)
	_, _ = a.Compact(compactChildDrop(archivedRuns("a", 1, 20)), 1<<30, noCheck)
	t.Fatal("the failpoint did not kill the process")
}

// TestHistoryDuringCompactionStress: a reader paging through History while the writer
// appends and compacts never gets an error or a run in the wrong place, and always lists
// the runs that are never dropped. The writer compacts again as soon as the reader has read
// a page since its last compaction: far more often than retention would, always mid-scan.
func TestHistoryDuringCompactionStress(t *testing.T) {
	keep := archivedRuns("k", 1, 50) // never dropped
	w, a := archiveWith(t, 0, 50, keep)
	reader := New(w.Dir(), Options{})
	done := make(chan struct{})
	errc := make(chan error, 1)
	paged := make(chan struct{}, 1)
	go func() {
		defer close(errc)
		for {
			select {
			case <-done:
				return
			default:
			}
			seen := 0
			q := HistoryQuery{Limit: 5}
			for {
				p, err := reader.History(q)
				if err != nil {
					errc <- err
					return
				}
				select {
				case paged <- struct{}{}:
				default:
				}
				for _, r := range p.Runs {
					if r.ID != fmt.Sprintf("r%d-%s", r.Seq, r.Workflow) {
						errc <- fmt.Errorf("run %s read as seq %d", r.ID, r.Seq)
						return
					}
					if r.Workflow == "k" {
						seen++
					}
				}
				if p.Next == 0 {
					break
				}
				q.Before = p.Next
			}
			if seen != len(keep) {
				errc <- fmt.Errorf("a full scan listed %d of the %d kept runs", seen, len(keep))
				return
			}
		}
	}()
	seq := 100
	for range 200 {
		batch := archivedRuns("d", seq, 50)
		seq += 50
		if err := a.Append(batch); err != nil {
			t.Fatal(err)
		}
		drop := map[string]bool{}
		for _, r := range batch {
			drop[r.ID] = true
		}
		select {
		case <-paged:
		case err := <-errc:
			t.Fatal(err)
		}
		if _, err := a.Compact(drop, 1<<30, noCheck); err != nil {
			t.Fatal(err)
		}
	}
	close(done)
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
}

// indexIDs lists the runs a's index holds, sorted.
func indexIDs(t *testing.T, a *Archive) []string {
	t.Helper()
	rs, _, err := a.Runs()
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for r := range rs {
		ids = append(ids, r.ID)
	}
	slices.Sort(ids)
	return ids
}

// rewriteInPlace replaces the content of archive file name with runs, keeping its inode
// (as a compaction into a reused inode would look), and its modification time when keep.
func rewriteInPlace(t *testing.T, a *Archive, name string, runs []Run, keep bool) {
	t.Helper()
	path := filepath.Join(a.Dir(), name)
	before, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	var b []byte
	for _, r := range runs {
		b = append(append(b, mustJSON(t, r)...), '\n')
	}
	if int64(len(b)) != before.Size() {
		t.Fatalf("new content is %d bytes, the file %d: the test needs the same size", len(b), before.Size())
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	if keep {
		if err := os.Chtimes(path, before.ModTime(), before.ModTime()); err != nil {
			t.Fatal(err)
		}
	}
}

// TestArchiveIndexNoticesSameSizeReplacement: a file whose content changed at the same
// size and inode (changed modification time) is indexed anew.
func TestArchiveIndexNoticesSameSizeReplacement(t *testing.T) {
	runs := archivedRuns("a", 10, 10)
	_, a := archiveWith(t, 0, 10, runs)
	reader := NewArchive(filepath.Dir(a.Dir()), 0)
	if got := indexIDs(t, reader); !slices.Equal(got, idsOf(runs)) {
		t.Fatalf("index before: %q", got)
	}
	others := archivedRuns("b", 10, 10)
	rewriteInPlace(t, a, archiveFiles(t, a)[0], others, false)
	if got := indexIDs(t, reader); !slices.Equal(got, idsOf(others)) {
		t.Errorf("index after a same-size rewrite %q, want %q", got, idsOf(others))
	}
}

// TestHistoryHealsAnIndexItCannotTellIsStale: even a rewrite that no stat can tell (same
// inode, size and modification time) is found by the first read that misses its run, and
// the page is read from the file anew.
func TestHistoryHealsAnIndexItCannotTellIsStale(t *testing.T) {
	runs := archivedRuns("a", 10, 10)
	w, a := archiveWith(t, 0, 10, runs)
	reader := New(w.Dir(), Options{})
	if got := historyIDs(t, reader); !slices.Equal(got, idsOf(runs)) {
		t.Fatalf("history before: %q", got)
	}
	others := archivedRuns("b", 10, 10)
	rewriteInPlace(t, a, archiveFiles(t, a)[0], others, true)
	if got := historyIDs(t, reader); !slices.Equal(got, idsOf(others)) {
		t.Errorf("history after an undetectable rewrite %q, want %q", got, idsOf(others))
	}
}

// TestCompactBoundsTheBytesRewrittenPerCall: past its first rewrite a call rewrites no
// more than its budget; the next call goes on where it stopped.
func TestCompactBoundsTheBytesRewrittenPerCall(t *testing.T) {
	runs := archivedRuns("a", 10, 30)
	line := int64(len(mustJSON(t, runs[0])) + 1)
	s, a := archiveWith(t, 10*line, 10, runs) // three parts of ten runs
	drop := map[string]bool{}
	for i, r := range runs {
		if i%10 < 6 { // six of each part: each to be rewritten
			drop[r.ID] = true
		}
	}
	st, err := a.Compact(drop, 5*line, noCheck)
	if err != nil || st.Rewritten != 1 || st.Deferred != 2 {
		t.Fatalf("first call %+v, %v; want one file rewritten, two left", st, err)
	}
	st, err = a.Compact(drop, 5*line, noCheck)
	if err != nil || st.Rewritten != 1 || st.Deferred != 1 {
		t.Fatalf("second call %+v, %v; want the next file rewritten", st, err)
	}
	if _, err := a.Compact(drop, 1<<30, noCheck); err != nil {
		t.Fatal(err)
	}
	var want []Run
	for i, r := range runs {
		if i%10 >= 6 {
			want = append(want, r)
		}
	}
	if got := historyIDs(t, s); !slices.Equal(got, idsOf(want)) {
		t.Errorf("history %q, want %q", got, idsOf(want))
	}
}
