package workflow

import (
	"cmp"
	"iter"
	"path/filepath"
	"slices"
	"time"

	"baton/store"
)

// Retention decides which finished history of a home is kept: run logs and archived runs.
// A finished run is kept when it is among the newest KeepRuns finished runs of its
// workflow OR younger than KeepFor; then, while the kept history is over the home's size
// cap, the oldest finished runs go first. An active run is never dropped, whatever the
// cap. This file is the decision only; the writer applies it (host/retention.go).
//
// The defaults keep a year of a daily schedule (1,000 runs: 2.7 years) and a few days of a
// per-second one: three by the rule (259,200 runs), 2.7 under the 1 GiB cap, which keeps
// any mix of schedules bounded (BenchmarkRetentionMonthPerSecond). A schedule every minute
// keeps three days (4,320 runs); one every hour keeps 1,000 runs (41 days).
const (
	DefaultKeepRuns     = 1000
	DefaultKeepFor      = 72 * time.Hour
	DefaultMaxHomeBytes = 1 << 30
)

// Policy is the retention of one home, defaults filled in.
type Policy struct {
	KeepRuns     int           // the home default
	KeepFor      time.Duration // the home default
	MaxHomeBytes int64
	workflows    map[string]store.Retention // the workflows' own settings
}

// PolicyOf returns the retention d asks for: the home's setting, else the defaults, and
// each workflow's own setting over it.
func PolicyOf(d *store.Doc) Policy {
	p := Policy{KeepRuns: DefaultKeepRuns, KeepFor: DefaultKeepFor, MaxHomeBytes: DefaultMaxHomeBytes}
	if r := d.Retention; r != nil {
		p.KeepRuns, p.KeepFor = cmp.Or(r.KeepRuns, p.KeepRuns), cmp.Or(r.KeepFor.D(), p.KeepFor)
		p.MaxHomeBytes = cmp.Or(r.MaxHomeBytes, p.MaxHomeBytes)
	}
	for _, w := range d.Workflows {
		if w.Retention != nil {
			if p.workflows == nil {
				p.workflows = map[string]store.Retention{}
			}
			p.workflows[w.Name] = *w.Retention
		}
	}
	return p
}

// Rule returns how many finished runs of workflow name are kept, and for how long. A
// workflow without its own setting (or deleted) follows the home's.
func (p Policy) Rule(name string) (keepRuns int, keepFor time.Duration) {
	r := p.workflows[name]
	return cmp.Or(r.KeepRuns, p.KeepRuns), cmp.Or(r.KeepFor.D(), p.KeepFor)
}

// Entry is one run of the home's history as retention sees it.
type Entry struct {
	ID       string
	Workflow string
	Seq      uint64
	At       time.Time // when it ended (when it was created, if it has no end)
	Active   bool      // queued or running, or not provably finished: never dropped
	Bytes    int64     // what it costs on disk: its log and its archived record
}

// HistoryOf lists every run of the home once, from the document d and the n runs of the
// archive (the document's copy of a run wins). A run is finished only if its recorded
// status says so; a run whose id cannot name a file is listed as active, so it is never
// dropped (its log could not be named safely). Bytes holds the archived record's size;
// the caller adds the log's.
func HistoryOf(d *store.Doc, archived iter.Seq[store.ArchivedRun], n int) []Entry {
	out := make([]Entry, 0, len(d.Runs)+n)
	inDoc := make(map[string]bool, len(d.Runs))
	for i := range d.Runs {
		r := &d.Runs[i]
		inDoc[r.ID] = true
		out = append(out, entryOf(r.ID, r.Workflow, r.Status, r.Seq, endOf(r), 0))
	}
	for a := range archived {
		if !inDoc[a.ID] {
			out = append(out, entryOf(a.ID, a.Workflow, a.Status, a.Seq, a.At, a.Bytes))
		}
	}
	return out
}

// endOf is when r ended, or when it was created if it has no end.
func endOf(r *store.Run) time.Time {
	if r.Ended.IsZero() {
		return r.Created
	}
	return r.Ended
}

func entryOf(id, wf, status string, seq uint64, at time.Time, bytes int64) Entry {
	finished := status == store.StatusSucceeded || status == store.StatusFailed || status == store.StatusCancelled
	return Entry{ID: id, Workflow: wf, Seq: seq, At: at, Bytes: bytes, Active: !finished || checkRunID(id) != nil}
}

// Verdict is what Retain decided.
type Verdict struct {
	Drop      []Entry // the runs to delete, oldest first
	ByRule    int     // how many of them the workflows' rules drop
	ByCap     int     // how many more the size cap drops
	KeptBytes int64   // what the history costs once they are gone
}

// Retain decides which entries go under policy p at time now. It never drops an active
// entry. It sorts entries in place: a home's history may be millions of runs, so it
// copies none but the ones it drops.
func Retain(entries []Entry, p Policy, now time.Time) Verdict {
	// The active ones last; the finished ones by workflow, newest first, to rank them.
	slices.SortFunc(entries, func(a, b Entry) int {
		return cmp.Or(cmpBool(a.Active, b.Active), cmp.Compare(a.Workflow, b.Workflow), cmp.Compare(b.Seq, a.Seq))
	})
	var v Verdict
	var kept []int32 // the finished entries kept
	rank, keepRuns, keepFor := 0, 0, time.Duration(0)
	for i := range entries {
		e := &entries[i]
		if e.Active {
			v.KeptBytes += e.Bytes
			continue
		}
		if i == 0 || e.Workflow != entries[i-1].Workflow {
			rank = 0
			keepRuns, keepFor = p.Rule(e.Workflow)
		}
		if rank < keepRuns || now.Sub(e.At) < keepFor {
			kept = append(kept, int32(i))
			v.KeptBytes += e.Bytes
		} else {
			v.Drop = append(v.Drop, *e)
		}
		rank++
	}
	v.ByRule = len(v.Drop)
	if v.KeptBytes > p.MaxHomeBytes {
		slices.SortFunc(kept, func(a, b int32) int { return oldestFirst(entries[a], entries[b]) })
		for _, i := range kept {
			if v.KeptBytes <= p.MaxHomeBytes {
				break
			}
			v.Drop = append(v.Drop, entries[i])
			v.KeptBytes -= entries[i].Bytes
			v.ByCap++
		}
	}
	slices.SortFunc(v.Drop, oldestFirst)
	return v
}

// cmpBool orders false before true.
func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

func oldestFirst(a, b Entry) int { return cmp.Or(a.At.Compare(b.At), cmp.Compare(a.Seq, b.Seq)) }

// LogPath returns the log of run id in home (runs/<id>.log), or an error when id cannot
// name a file there (a hand-edited archive line must never make a path outside runs/).
func LogPath(home, id string) (string, error) {
	if err := checkRunID(id); err != nil {
		return "", err
	}
	return logPath(home, id), nil
}

// logPath is where run id's log is, for an id already checked (or made here).
func logPath(home, id string) string { return filepath.Join(runsDir(home), id+".log") }
