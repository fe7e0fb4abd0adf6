package store

import (
	"bytes"
	"encoding/json"
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"time"
)

// Retention's side of the archive: list what is archived, and compact the files that hold
// runs retention dropped. Only the writer compacts, off its save path; any window reads
// History meanwhile.
//
// Compacting a file writes the runs it keeps to a temp file in the archive folder
// (O_EXCL, 0600), fsyncs it, renames it over the file and fsyncs the folder, like a save
// of workflows.json: a crash at any point leaves the old file or the new one, each
// complete. A file whose every run is dropped is removed. While a file is compacted,
// appends go to a new part of the month, so no appended run is lost by the rename. A
// reader that indexed the old file finds the run it wants missing where the index says,
// indexes the files again and reads the page again (see Archive.page).

// ArchivedRun is what the archive's index knows of one archived run.
type ArchivedRun struct {
	ID       string
	Workflow string
	Status   string
	Seq      uint64
	At       time.Time // when it ended (when it was created, if it has no end)
	Bytes    int64     // its line in the archive, the newline included
}

// Runs returns every archived run once (the copy in the newest file), newest first, and
// how many there are, as the index holds them now; it reads only what was appended since
// the last call. The sequence copies nothing: a home may archive millions of runs.
func (a *Archive) Runs() (iter.Seq[ArchivedRun], int, error) {
	a.mu.Lock()
	if err := a.refresh(); err != nil {
		a.mu.Unlock()
		return nil, 0, err
	}
	all := a.all // never modified in place: rebuild makes a new slice
	a.mu.Unlock()
	return func(yield func(ArchivedRun) bool) {
		for _, e := range all {
			r := ArchivedRun{ID: e.id, Workflow: e.workflow, Status: e.status, Seq: e.seq,
				At: time.Unix(0, e.at).UTC(), Bytes: int64(e.n) + 1}
			if !yield(r) {
				return
			}
		}
	}, len(all), nil
}

// CompactStats says what one Compact did.
type CompactStats struct {
	Removed   int   // files removed whole (every run in them dropped)
	Rewritten int   // files rewritten without their dropped runs
	Dropped   int   // run records removed
	Freed     int64 // bytes freed
	Deferred  int   // files holding dropped runs left for a later pass
}

// CompactAge is how long a dropped run may wait in an archive file that is mostly kept:
// such a file is rewritten at most once per CompactAge (its modification time says when
// it was last written), so a pass every minute does not rewrite it every minute.
const CompactAge = 24 * time.Hour

// Compact removes from the archive the records of the runs in drop. A file whose every
// run is dropped is removed; a file is rewritten once at least half of its bytes are
// dropped runs, or once it was last written CompactAge ago, so each byte is rewritten a
// bounded number of times however often retention runs (the rest wait in Deferred, and
// History still lists them meanwhile). Past the first rewrite, at most maxRewrite bytes
// are rewritten per call (removals are free); the oldest files come first.
//
// Only the writer calls it, and check says whether it still is: it runs before each file
// is replaced or removed, and an error stops the compaction there (another window may be
// appending by then). It blocks for the reads, writes and fsyncs, but never holds the
// archive's lock across them: appends and History go on meanwhile.
func (a *Archive) Compact(drop map[string]bool, maxRewrite int64, check func() error) (CompactStats, error) {
	var st CompactStats
	if len(drop) == 0 {
		return st, nil
	}
	plan, err := a.plan(drop)
	if err != nil {
		return st, err
	}
	for _, p := range plan {
		if !p.whole && p.dropped*2 < p.size && a.now().Sub(p.written) < CompactAge {
			st.Deferred++
			continue
		}
		if !p.whole && st.Rewritten > 0 && maxRewrite < p.size {
			st.Deferred++ // over this call's budget: the next call goes on
			continue
		}
		written, err := a.compactFile(p.name, drop, check, &st)
		if err != nil {
			return st, err
		}
		maxRewrite -= written
	}
	return st, nil
}

// filePlan is what the index says one archive file holds of the dropped runs.
type filePlan struct {
	name    string
	size    int64     // bytes indexed
	dropped int64     // bytes of dropped runs' lines
	whole   bool      // every run in it is dropped
	written time.Time // when it was last written
}

// plan lists the archive files that hold dropped runs, oldest first.
func (a *Archive) plan(drop map[string]bool) ([]filePlan, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if err := a.refresh(); err != nil {
		return nil, err
	}
	names, err := a.list()
	if err != nil {
		return nil, err
	}
	var out []filePlan
	for _, f := range names {
		fi := a.files[f.name]
		if fi == nil {
			continue
		}
		p := filePlan{name: f.name, size: fi.size, whole: true, written: fi.ident.ModTime()}
		for _, e := range fi.entries {
			if drop[e.id] {
				p.dropped += int64(e.n) + 1
			} else {
				p.whole = false
			}
		}
		if p.dropped > 0 {
			out = append(out, p)
		}
	}
	return out, nil
}

// compactFile rewrites archive file name without the runs in drop, or removes it when
// none is left; it adds what it did to st and returns the bytes it wrote.
func (a *Archive) compactFile(name string, drop map[string]bool, check func() error, st *CompactStats) (int64, error) {
	a.wmu.Lock()
	a.compacting = name // from now on appends go to a new part: nothing appended is lost
	a.wmu.Unlock()
	path := filepath.Join(a.dir, name)
	defer func() {
		a.wmu.Lock()
		a.compacting = ""
		a.wmu.Unlock()
		a.reindex(path, name)
	}()
	data, err := ReadInHome(path)
	if err != nil {
		return 0, fmt.Errorf("archive: compact: %w", err)
	}
	out, dropped := keepLines(data, drop)
	freed := int64(len(data) - len(out)) // data is dead from here: a 32 MiB file is not held twice
	if err := check(); err != nil {
		return 0, fmt.Errorf("archive: compact %s: %w", name, err)
	}
	if len(out) == 0 {
		if err := os.Remove(path); err != nil {
			return 0, fmt.Errorf("archive: compact: %w", err)
		}
		if err := SyncDirAt(SyncArchiveFolder, a.dir); err != nil {
			return 0, fmt.Errorf("archive: compact: fsync %s: %w", a.dir, err)
		}
		st.Removed++
	} else {
		if err := WriteFileAtomic(path, out, func() { Failpoint("archive.compact.before-rename") }); err != nil {
			return 0, fmt.Errorf("archive: compact: %w", err)
		}
		st.Rewritten++
	}
	st.Dropped += dropped
	st.Freed += freed
	return int64(len(out)), nil
}

// keepLines returns the whole lines of data that hold a run not in drop, and how many
// runs were dropped. Lines that hold no run (torn by a crash mid-append, or garbage) are
// not kept: the index never lists them, so no reader ever saw them.
func keepLines(data []byte, drop map[string]bool) ([]byte, int) {
	out := make([]byte, 0, len(data))
	dropped := 0
	var probe struct {
		ID string `json:"id"`
	}
	for len(data) > 0 {
		nl := bytes.IndexByte(data, '\n')
		if nl < 0 {
			break // a torn last line
		}
		line := data[:nl+1]
		data = data[nl+1:]
		probe.ID = ""
		switch {
		case json.Unmarshal(line, &probe) != nil || probe.ID == "":
		case drop[probe.ID]:
			dropped++
		default:
			out = append(out, line...)
		}
	}
	return out, dropped
}

// reindex indexes file name again from its start after its compaction, without holding
// the index's lock while it reads, and puts it in place of the old index.
func (a *Archive) reindex(path, name string) {
	fi := &fileIndex{name: name}
	if _, err := fi.update(path); err != nil {
		fi = nil // removed, or unreadable: the next refresh finds out
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if fi != nil {
		a.files[name] = fi
	} else {
		delete(a.files, name)
	}
	a.dirty = true
}
