package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// The archive of finished runs keeps workflows.json small. Finished runs beyond a
// per-workflow recent window leave the document in batches; each batch is appended to
// archive/runs-YYYY-MM.jsonl (one JSON run per line) and fsynced BEFORE the save that
// drops the runs from the document. A crash between the two leaves a run in both places,
// never in neither; readers de-duplicate by run id.
//
// # Files
//
// archive/runs-2026-05.jsonl is the first file of May 2026 (UTC, by the time the batch was
// archived); when it passes the size cap, archive/runs-2026-05.1.jsonl follows, then .2
// and so on. Files are appended to, and replaced whole only by retention's compaction
// (see retention.go); a torn last line (a crash mid-append) is skipped when reading and
// cut off from the next line by a newline.

// ArchiveDir is the folder of the run archive inside the home folder.
const ArchiveDir = "archive"

// DefaultKeepFinished is how many finished runs per workflow the document keeps by default.
const DefaultKeepFinished = 50

// DefaultMaxFinished is how many finished runs the document keeps in all by default.
const DefaultMaxFinished = 500

// DefaultArchiveMaxSize is the size at which an archive file is closed and the next part of
// the month begins.
const DefaultArchiveMaxSize = 32 << 20

// History paging limits.
const (
	DefaultHistoryLimit = 50
	MaxHistoryLimit     = 1000
)

// archiveSlack is how far over keep a workflow may go before a batch is archived, so
// archive appends (one more fsync) happen once every slack finished runs, not on each.
func archiveSlack(keep int) int { return max(1, keep/5) }

// trimFinished removes from d the finished runs beyond keep per workflow and beyond
// maxTotal in all (the oldest by Seq go first), once some workflow has more than
// keep+slack of them or the document more than maxTotal+slack, and returns them sorted by
// Seq. The total cap keeps a home with hundreds of workflows small too. It returns nil,
// leaving d alone, when there is nothing to move: the check is one pass over d.Runs.
func trimFinished(d *Doc, keep, maxTotal int) []Run {
	if keep < 0 {
		return nil
	}
	limit := keep + archiveSlack(keep)
	totalLimit := maxTotal + archiveSlack(maxTotal)
	if len(d.Runs) <= min(limit, totalLimit) {
		return nil
	}
	count := map[string]int{}
	finished, over := 0, false
	for i := range d.Runs {
		if !d.Runs[i].Active() {
			finished++
			count[d.Runs[i].Workflow]++
			over = over || count[d.Runs[i].Workflow] > limit
		}
	}
	if !over && finished <= totalLimit {
		return nil
	}
	// Keep the newest finished runs: at most keep per workflow and maxTotal in all.
	order := make([]int, 0, finished)
	for i := range d.Runs {
		if !d.Runs[i].Active() {
			order = append(order, i)
		}
	}
	slices.SortFunc(order, func(a, b int) int { return cmpU64(d.Runs[b].Seq, d.Runs[a].Seq) })
	kept := map[string]int{}
	move := make(map[int]bool)
	total := 0
	for _, i := range order {
		wf := d.Runs[i].Workflow
		if kept[wf] < keep && total < maxTotal {
			kept[wf]++
			total++
		} else {
			move[i] = true
		}
	}
	var moved []Run
	rest := make([]Run, 0, len(d.Runs)-len(move))
	for i, r := range d.Runs {
		if move[i] {
			moved = append(moved, r)
		} else {
			rest = append(rest, r)
		}
	}
	d.Runs = rest
	slices.SortFunc(moved, func(a, b Run) int { return cmpU64(a.Seq, b.Seq) })
	return moved
}

func cmpU64(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Archive is the run archive of one home folder. Only the writer appends; any window reads.
// Safe for concurrent use.
type Archive struct {
	dir     string
	maxSize int64
	now     func() time.Time

	// wmu serialises appends and guards compacting. It is not mu: reading the index, even
	// a whole file of it again, never holds up an append (a save of the writer).
	wmu        sync.Mutex
	compacting string // the file being compacted: appends go to a new part

	mu    sync.Mutex            // guards the index: the fields below
	files map[string]*fileIndex // per file name: what has been read of it
	all   []histEntry           // every archived run once, newest (highest Seq) first
	dirty bool                  // all must be rebuilt from files
}

// fileIndex is what has been read of one archive file.
type fileIndex struct {
	name    string
	ident   os.FileInfo // the version of the file indexed (compaction replaces it)
	size    int64       // bytes read and indexed (up to the end of the last whole line)
	entries []histEntry
}

// histEntry locates one archived run.
type histEntry struct {
	seq      uint64
	id       string
	workflow string
	status   string
	at       int64 // when the run ended (or was created, if it has no end), unix ns
	file     *fileIndex
	off      int64
	n        int32
}

// NewArchive returns the archive of home. It does not touch the disk.
func NewArchive(home string, maxSize int64) *Archive {
	if maxSize <= 0 {
		maxSize = DefaultArchiveMaxSize
	}
	return &Archive{dir: filepath.Join(home, ArchiveDir), maxSize: maxSize, now: time.Now, files: map[string]*fileIndex{}}
}

// Dir returns the archive folder.
func (a *Archive) Dir() string { return a.dir }

// Append writes runs to the current archive file, one JSON line each, and fsyncs the file
// (and the folders when it created them) before it returns. Only the writer may call it.
func (a *Archive) Append(runs []Run) error {
	if len(runs) == 0 {
		return nil
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	for i := range runs {
		if err := enc.Encode(&runs[i]); err != nil { // Encode adds the newline
			return fmt.Errorf("archive: encode run %s: %w", runs[i].ID, err)
		}
	}
	a.wmu.Lock()
	defer a.wmu.Unlock()
	if err := a.ensureDir(); err != nil {
		return err
	}
	name, err := a.target(int64(buf.Len()))
	if err != nil {
		return err
	}
	return appendDurably(filepath.Join(a.dir, name), buf.Bytes())
}

// ensureDir creates the archive folder durably.
func (a *Archive) ensureDir() error {
	if err := MkdirDurable(a.dir); err != nil {
		return fmt.Errorf("archive: %w", err)
	}
	return nil
}

// target names the file the next batch of n bytes goes to: the newest part of this
// month, or the next part when that one would pass the size cap.
func (a *Archive) target(n int64) (string, error) {
	month := a.now().UTC().Format("2006-01")
	names, err := a.list()
	if err != nil {
		return "", err
	}
	part := 0
	for _, f := range names {
		if f.month == month {
			part = max(part, f.part)
		}
	}
	name := archiveName(month, part)
	if fi, err := os.Stat(filepath.Join(a.dir, name)); name == a.compacting ||
		err == nil && fi.Size() > 0 && fi.Size()+n > a.maxSize {
		name = archiveName(month, part+1)
	}
	return name, nil
}

// appendDurably appends data to path, separating it from a torn last line, and fsyncs the
// file; a new file's folder is fsynced too.
func appendDurably(path string, data []byte) error {
	_, statErr := os.Stat(path)
	created := errors.Is(statErr, os.ErrNotExist)
	f, err := OpenInHome(path, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("archive: %w", err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Size() > 0 {
		var last [1]byte
		if _, err := f.ReadAt(last[:], fi.Size()-1); err == nil && last[0] != '\n' {
			data = append([]byte{'\n'}, data...) // cut a torn line off
		}
	}
	if _, err := f.Write(data); err != nil {
		return fmt.Errorf("archive: write %s: %w", path, err)
	}
	if err := FsyncAt(SyncArchiveFile, f); err != nil {
		return fmt.Errorf("archive: fsync %s: %w", path, err)
	}
	if created {
		if err := SyncDirAt(SyncArchiveFolder, filepath.Dir(path)); err != nil {
			return fmt.Errorf("archive: fsync %s: %w", filepath.Dir(path), err)
		}
	}
	return nil
}

// archFile is one archive file name, parsed.
type archFile struct {
	name  string
	month string // YYYY-MM
	part  int
}

func archiveName(month string, part int) string {
	if part == 0 {
		return "runs-" + month + ".jsonl"
	}
	return fmt.Sprintf("runs-%s.%d.jsonl", month, part)
}

// parseArchiveName reads runs-YYYY-MM.jsonl or runs-YYYY-MM.N.jsonl.
func parseArchiveName(name string) (archFile, bool) {
	s, ok := strings.CutPrefix(name, "runs-")
	if !ok {
		return archFile{}, false
	}
	s, ok = strings.CutSuffix(s, ".jsonl")
	if !ok || len(s) < 7 {
		return archFile{}, false
	}
	f := archFile{name: name, month: s[:7]}
	if _, err := time.Parse("2006-01", f.month); err != nil {
		return archFile{}, false
	}
	if rest := s[7:]; rest != "" {
		n, err := strconv.Atoi(strings.TrimPrefix(rest, "."))
		if !strings.HasPrefix(rest, ".") || err != nil || n < 1 {
			return archFile{}, false
		}
		f.part = n
	}
	return f, true
}

// list returns the archive files, oldest first. A missing folder is an empty archive.
func (a *Archive) list() ([]archFile, error) {
	ents, err := os.ReadDir(a.dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("archive: %w", err)
	}
	var out []archFile
	for _, e := range ents {
		if f, ok := parseArchiveName(e.Name()); ok && e.Type().IsRegular() {
			out = append(out, f)
		}
	}
	slices.SortFunc(out, func(x, y archFile) int {
		if c := strings.Compare(x.month, y.month); c != 0 {
			return c
		}
		return x.part - y.part
	})
	return out, nil
}

// refresh brings the index up to date with the files: it reads only what was appended
// since the last call. Called with a.mu held.
func (a *Archive) refresh() error {
	names, err := a.list()
	if err != nil {
		return err
	}
	seen := make(map[string]bool, len(names))
	present := names[:0:0]
	for _, f := range names {
		fi := a.files[f.name]
		if fi == nil {
			fi = &fileIndex{name: f.name}
		}
		grew, err := fi.update(filepath.Join(a.dir, f.name))
		if errors.Is(err, os.ErrNotExist) {
			continue // removed since it was listed (compaction emptied it)
		}
		if err != nil {
			return err
		}
		seen[f.name], a.files[f.name] = true, fi
		present = append(present, f)
		a.dirty = a.dirty || grew
	}
	for name := range a.files {
		if !seen[name] { // removed by compaction or by hand
			delete(a.files, name)
			a.dirty = true
		}
	}
	if a.dirty {
		a.rebuild(present)
	}
	return nil
}

// update indexes the whole lines appended to the file since the last call. A file
// replaced (compacted) or shortened since is read again from its start. It reports whether
// the entries changed.
func (fi *fileIndex) update(path string) (bool, error) {
	f, err := OpenInHome(path, os.O_RDONLY, 0)
	if err != nil {
		return false, fmt.Errorf("archive: %w", err)
	}
	defer f.Close()
	st, err := f.Stat() // of the version opened, whatever replaces the name meanwhile
	if err != nil {
		return false, fmt.Errorf("archive: %w", err)
	}
	// Appends only ever grow a file: one that is another file (compacted), shorter, or
	// changed at the same size (compacted into a reused inode and grown back) is read anew.
	reset := fi.ident != nil && (!os.SameFile(fi.ident, st) || st.Size() == fi.size && !st.ModTime().Equal(fi.ident.ModTime())) ||
		st.Size() < fi.size
	if reset {
		fi.size, fi.entries = 0, nil
	}
	fi.ident = st
	if st.Size() == fi.size {
		return reset, nil
	}
	data := make([]byte, st.Size()-fi.size)
	n, err := f.ReadAt(data, fi.size)
	if n < len(data) && err != nil {
		return false, fmt.Errorf("archive: read %s: %w", path, err)
	}
	data = data[:n]
	var probe struct {
		ID       string    `json:"id"`
		Seq      uint64    `json:"seq"`
		Workflow string    `json:"workflow"`
		Status   string    `json:"status"`
		Created  time.Time `json:"created"`
		Ended    time.Time `json:"ended"`
	}
	off := fi.size
	for {
		nl := bytes.IndexByte(data, '\n')
		if nl < 0 {
			break // a torn or unfinished last line waits for its newline
		}
		line := data[:nl]
		probe.ID, probe.Seq, probe.Workflow, probe.Status = "", 0, "", ""
		probe.Created, probe.Ended = time.Time{}, time.Time{}
		if len(line) > 0 && json.Unmarshal(line, &probe) == nil && probe.ID != "" {
			at := probe.Ended
			if at.IsZero() {
				at = probe.Created
			}
			fi.entries = append(fi.entries, histEntry{seq: probe.Seq, id: probe.ID, workflow: probe.Workflow,
				status: probe.Status, at: at.UnixNano(), file: fi, off: off, n: int32(nl)})
		}
		off += int64(nl) + 1
		data = data[nl+1:]
	}
	grew := off > fi.size
	fi.size = off
	return grew || reset, nil
}

// rebuild merges the files into a.all: each run once (the copy in the newest file wins),
// newest first. Called with a.mu held.
func (a *Archive) rebuild(names []archFile) {
	n := 0
	for _, fi := range a.files {
		n += len(fi.entries)
	}
	all := make([]histEntry, 0, n)
	ids := make(map[string]bool, n)
	intern := map[string]string{}
	in := func(s string) string {
		if v, ok := intern[s]; ok {
			return v
		}
		intern[s] = s
		return s
	}
	for i := len(names) - 1; i >= 0; i-- {
		fi := a.files[names[i].name]
		for j := len(fi.entries) - 1; j >= 0; j-- {
			e := &fi.entries[j]
			if ids[e.id] {
				continue
			}
			ids[e.id] = true
			e.workflow, e.status = in(e.workflow), in(e.status)
			all = append(all, *e)
		}
	}
	slices.SortStableFunc(all, func(x, y histEntry) int { return cmpU64(y.seq, x.seq) })
	a.all, a.dirty = all, false
}

// errStale says that an archive file changed under its index: compaction replaced or
// removed it between the index's refresh and a read. Index it again and retry.
var errStale = errors.New("archive file replaced since it was indexed")

// staleError is errStale for one file.
type staleError struct {
	file string
	err  error
}

func (e *staleError) Error() string { return e.err.Error() }
func (e *staleError) Unwrap() error { return errStale }

// load reads the full run of one entry. It returns errStale when the file no longer
// holds that run where the index says (retention compacted it meanwhile).
func (a *Archive) load(e histEntry) (Run, error) {
	path := filepath.Join(a.dir, e.file.name)
	f, err := OpenInHome(path, os.O_RDONLY, 0)
	if errors.Is(err, os.ErrNotExist) {
		return Run{}, &staleError{e.file.name, fmt.Errorf("archive: %s: %w", path, errStale)}
	}
	if err != nil {
		return Run{}, fmt.Errorf("archive: %w", err)
	}
	defer f.Close()
	buf := make([]byte, e.n)
	var r Run
	if _, err := f.ReadAt(buf, e.off); err != nil || json.Unmarshal(buf, &r) != nil || r.ID != e.id {
		return Run{}, &staleError{e.file.name, fmt.Errorf("archive: %s at %d: run %s: %w", path, e.off, e.id, errStale)}
	}
	return r, nil
}

// HistoryQuery selects a page of runs, newest (highest Seq) first.
type HistoryQuery struct {
	// Workflow keeps only the runs of this workflow; "" keeps all.
	Workflow string `json:"workflow,omitempty"`
	// Status keeps only runs with this status; "" keeps all.
	Status string `json:"status,omitempty"`
	// Before keeps only runs with a Seq below it: pass the Next of the previous page;
	// 0 asks for the newest page.
	Before uint64 `json:"before,omitempty"`
	// Limit is the page size: DefaultHistoryLimit when 0, at most MaxHistoryLimit.
	Limit int `json:"limit,omitempty"`
}

// HistoryPage is one page of runs.
type HistoryPage struct {
	Runs []Run `json:"runs"` // newest first
	// Next is the Before of the next page, or 0 when this is the last page.
	Next uint64 `json:"next,omitempty"`
}

func (q HistoryQuery) match(seq uint64, workflow, status string) bool {
	return (q.Before == 0 || seq < q.Before) && (q.Workflow == "" || q.Workflow == workflow) &&
		(q.Status == "" || q.Status == status)
}

// staleRetries bounds how often a page is read again because compaction replaced a file
// under it. Retention compacts at most once a pass (a minute), so a second try normally
// succeeds; the bound is for a machine so loaded that a page spans several compactions.
const staleRetries = 20

// page merges doc (the live runs) and the archive into one page for q, reading it again
// if retention compacted the archive meanwhile. Called with a.mu not held.
func (a *Archive) page(doc *Doc, q HistoryQuery) (HistoryPage, error) {
	for i := 0; ; i++ {
		p, err := a.pageOnce(doc, q)
		var se *staleError
		if !errors.As(err, &se) || i == staleRetries {
			return p, err
		}
		a.mu.Lock()
		delete(a.files, se.file) // whatever its size and identity say: read it anew
		a.mu.Unlock()
	}
}

// pageOnce merges doc and the archive as indexed now into one page for q. A run in both is
// taken from doc.
func (a *Archive) pageOnce(doc *Doc, q HistoryQuery) (HistoryPage, error) {
	if q.Limit <= 0 {
		q.Limit = DefaultHistoryLimit
	}
	q.Limit = min(q.Limit, MaxHistoryLimit)
	live := make([]*Run, 0, len(doc.Runs))
	inDoc := make(map[string]bool, len(doc.Runs))
	for i := range doc.Runs {
		r := &doc.Runs[i]
		inDoc[r.ID] = true
		if q.match(r.Seq, r.Workflow, r.Status) {
			live = append(live, r)
		}
	}
	slices.SortFunc(live, func(x, y *Run) int { return cmpU64(y.Seq, x.Seq) })

	a.mu.Lock()
	if err := a.refresh(); err != nil {
		a.mu.Unlock()
		return HistoryPage{}, err
	}
	all := a.all // never modified in place: rebuild makes a new slice
	a.mu.Unlock()

	var page HistoryPage
	i, j := 0, 0
	for len(page.Runs) < q.Limit+1 {
		for j < len(all) && (inDoc[all[j].id] || !q.match(all[j].seq, all[j].workflow, all[j].status)) {
			j++
		}
		var pick *Run
		switch {
		case i < len(live) && (j >= len(all) || live[i].Seq >= all[j].seq):
			c := live[i].Clone()
			pick = &c
			i++
		case j < len(all):
			r, err := a.load(all[j])
			if err != nil {
				return HistoryPage{}, err
			}
			pick = &r
			j++
		}
		if pick == nil {
			break
		}
		page.Runs = append(page.Runs, *pick)
	}
	if len(page.Runs) > q.Limit {
		page.Runs = page.Runs[:q.Limit]
		page.Next = page.Runs[q.Limit-1].Seq
	}
	if page.Runs == nil {
		page.Runs = []Run{}
	}
	return page, nil
}
