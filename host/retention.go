package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"baton/store"
	"baton/workflow"
	"baton/workflow/proc"
)

// Retention in the writer: a pass, run from the writer's housekeeping loop (never inside a
// save a person waits for), lists the home's history (the document's runs and the
// archive's), asks workflow.Retain what goes, deletes those runs' logs and then compacts
// the archive without them. The deletion rule holds: a log is deleted only when its run is
// provably finished (a terminal status in the document or the archive, and not active in
// the newest document), and an archived run only once its log is gone, so no log is ever
// left without a record to find it by. Work per pass is bounded; what is left waits for
// the next pass.

const (
	// retentionMaxDeletes bounds the logs one pass deletes (a home that never had
	// retention may hold millions): about a second of unlinks.
	retentionMaxDeletes = 20000
	// retentionMaxRewrite bounds the archive bytes one pass rewrites past its first file.
	retentionMaxRewrite = 64 << 20
	// logBlock is the least a log costs on disk: one block of a common file system, even
	// for a few bytes. Counting it keeps the file count bounded by the size cap too.
	logBlock = 4096
	// retentionDuty bounds the writer's time spent on retention: after a pass that took d,
	// the next starts no sooner than retentionDuty*d later (2%), however often it is asked.
	retentionDuty = 50
	// retentionIdle is how often a pass comes while nothing was saved since the last one:
	// only the passing of time can drop runs then.
	retentionIdle = time.Hour
)

// retentionFirst is how long after a takeover the first pass comes (the takeover's own
// work goes first); retentionEvery is how often passes come after it. Variables for the
// tests only.
var retentionFirst, retentionEvery = 10 * time.Second, time.Minute

// retentionState is what a window's retention passes keep between them.
type retentionState struct {
	mu    sync.Mutex       // one pass at a time
	costs map[string]int64 // the log cost of finished runs, measured once: a finished run's log is complete
	idle  atomic.Int64     // no pass starts before this (unix ns): see retentionDuty
	gen   atomic.Uint64    // the generation of the document the last pass looked at
	at    atomic.Int64     // when the last pass began (unix ns)
}

// retention is this window's retention state, made at its first pass.
func (w *Core) retention() *retentionState {
	w.retainOnce.Do(func() { w.retainState = &retentionState{costs: map[string]int64{}} })
	return w.retainState
}

// retentionReport says what one retention pass did.
type retentionReport struct {
	Runs        int   // runs of the history looked at
	ByRule      int   // runs the workflows' rules drop
	ByCap       int   // more runs the size cap drops
	LogsRemoved int   // logs deleted by this pass
	LogBytes    int64 // what they cost on disk
	Pending     int   // dropped runs left for the next pass (the bound)
	Archive     store.CompactStats
	KeptBytes   int64 // what the history kept costs
	Took        time.Duration
}

// retentionLoop runs retention passes for writer term t, the first retentionFirst after
// the takeover, then every retentionEvery, until the term ends. Run it in its own
// goroutine: a pass over a big home takes seconds, which no schedule may wait for.
func (w *Core) retentionLoop(t *Term) {
	timer := time.NewTimer(retentionFirst)
	defer timer.Stop()
	for {
		select {
		case <-t.Done():
			return
		case <-timer.C:
		}
		w.retentionPass(t)
		timer.Reset(retentionEvery)
	}
}

// retentionPass applies the home's retention once, as the writer of term t, unless the
// last pass was too recent for its cost (see retentionDuty), or nothing was saved since it
// and it is less than retentionIdle ago. It logs what it did and any error.
func (w *Core) retentionPass(t *Term) {
	st, now := w.retention(), time.Now()
	if now.UnixNano() < st.idle.Load() ||
		w.Snapshot().Generation == st.gen.Load() && now.Sub(time.Unix(0, st.at.Load())) < retentionIdle {
		return
	}
	rep, err := w.retain(t, w.opts.Now())
	if err != nil {
		w.opts.Logf("retention: %v", err)
	}
	// A pass reads the whole history (the archive's runs too): megabytes of garbage on a
	// big home, which the Go runtime would keep mapped for minutes in a window that is
	// otherwise idle. Passes are rare (at most one a minute, and only after a save), so the
	// full collection that hands it back is cheap.
	debug.FreeOSMemory()
	if rep.LogsRemoved+rep.Archive.Dropped > 0 {
		w.opts.Logf("retention: %d logs (%d bytes) and %d archived runs removed, %d left for the next pass, in %s",
			rep.LogsRemoved, rep.LogBytes, rep.Archive.Dropped, rep.Pending, rep.Took)
		// The audit log says where the history went (the Activity tab shows it).
		if err := t.audit(store.RetentionPass{LogsRemoved: rep.LogsRemoved, LogBytes: rep.LogBytes,
			ArchivedRemoved: rep.Archive.Dropped, ByRule: rep.ByRule, ByCap: rep.ByCap, Pending: rep.Pending,
			KeptBytes: rep.KeptBytes, TookMS: ms(rep.Took)}); err != nil {
			w.opts.Logf("retention: %v", err)
		}
	}
}

// retain is one retention pass at time now. It stops where it is once term t ends.
func (w *Core) retain(t *Term, now time.Time) (retentionReport, error) {
	st := w.retention()
	st.mu.Lock()
	defer st.mu.Unlock()
	start := time.Now()
	var rep retentionReport
	defer func() { st.idle.Store(time.Now().Add(retentionDuty * time.Since(start)).UnixNano()) }()
	if err := t.writable(); err != nil {
		return rep, err
	}
	arch := w.st.Archive()
	store.CleanTemps(arch.Dir(), proc.TagGone) // a compaction's temp file whose process died
	doc := w.Snapshot()
	st.gen.Store(doc.Generation)
	st.at.Store(start.UnixNano())
	archived, n, err := arch.Runs()
	if err != nil {
		return rep, err
	}
	entries := workflow.HistoryOf(doc, archived, n)
	for i := range entries {
		entries[i].Bytes += st.logCost(w.home, &entries[i])
	}
	v := workflow.Retain(entries, workflow.PolicyOf(doc), now)
	rep.Runs, rep.ByRule, rep.ByCap, rep.KeptBytes = len(entries), v.ByRule, v.ByCap, v.KeptBytes

	gone := w.removeLogs(t, st, v.Drop, &rep)
	if len(st.costs) > 2*len(entries) { // forget the runs no longer in the history
		st.costs = make(map[string]int64, len(entries))
	}
	rep.Archive, err = arch.Compact(gone, retentionMaxRewrite, t.commitCheck)
	rep.Took = time.Since(start)
	return rep, err
}

// removeLogs deletes the logs of the dropped runs, oldest first, at most
// retentionMaxDeletes, and returns the runs whose logs are gone (deleted now or before).
// A run active in the newest document is skipped whatever the verdict (the second wall).
func (w *Core) removeLogs(t *Term, st *retentionState, drop []workflow.Entry, rep *retentionReport) map[string]bool {
	active := map[string]bool{}
	for _, r := range w.Snapshot().Runs {
		if r.Active() {
			active[r.ID] = true
		}
	}
	gone := make(map[string]bool, len(drop))
	for _, e := range drop {
		if t.ctx.Err() != nil || rep.LogsRemoved == retentionMaxDeletes {
			rep.Pending++
			continue
		}
		path, err := workflow.LogPath(w.home, e.ID)
		if err != nil || active[e.ID] {
			continue
		}
		cost, known := st.costs[e.ID]
		if known && cost == 0 { // gone already (a record that waits for its file's compaction)
			gone[e.ID] = true
			continue
		}
		if err := w.forgetEtcdRun(t, e.ID); err != nil { // an etcd home: its journal and log tail there
			w.opts.Logf("retention: %v; its log is kept until a later pass forgets it", err)
			rep.Pending++
			continue
		}
		switch err := os.Remove(path); {
		case err == nil:
			rep.LogsRemoved++
			rep.LogBytes += cost
			gone[e.ID], st.costs[e.ID] = true, 0
		case errors.Is(err, fs.ErrNotExist):
			gone[e.ID], st.costs[e.ID] = true, 0
		default:
			w.opts.Logf("retention: %v", err)
		}
	}
	return gone
}

// logCost is what e's log costs on disk (see logCost), measured once for a finished run.
func (st *retentionState) logCost(home string, e *workflow.Entry) int64 {
	if c, ok := st.costs[e.ID]; ok {
		return c
	}
	c := logCost(home, e.ID)
	if !e.Active {
		st.costs[e.ID] = c
	}
	return c
}

// logCost is what run id's log costs on disk: its size rounded up to whole blocks, at
// least one block; nothing when it has none.
func logCost(home, id string) int64 {
	path, err := workflow.LogPath(home, id)
	if err != nil {
		return 0
	}
	fi, err := os.Lstat(path)
	if err != nil {
		return 0
	}
	return max(logBlock, (fi.Size()+logBlock-1)/logBlock*logBlock)
}

// SetRetention sets the history retention of workflow name, or the home's default and
// size cap when name is "". A nil r (or one with every field zero) goes back to the
// defaults. It returns the generation saved.
func (s *Intents) SetRetention(ctx context.Context, name string, r *store.Retention) (uint64, error) {
	if r != nil && *r == (store.Retention{}) {
		r = nil
	}
	if err := r.Validate(name == ""); err != nil {
		return 0, fmt.Errorf("%w: %w", workflow.ErrInvalid, err)
	}
	d, _, err := s.update(ctx, func(d *store.Doc) error {
		cur := &d.Retention
		if name != "" {
			wf := d.Workflow(name)
			if wf == nil {
				return fmt.Errorf("%w: no workflow named %q", workflow.ErrNotFound, name)
			}
			cur = &wf.Retention
		}
		if *cur == nil && r == nil || *cur != nil && r != nil && **cur == *r {
			return store.ErrNoChange
		}
		*cur = nil
		if r != nil {
			c := *r
			*cur = &c
		}
		return nil
	})
	return gen(d), err
}

// setRetentionOp is the control channel's set_retention: raw is the "retention" object,
// or null to go back to the defaults; name is the workflow, "" for the home.
func setRetentionOp(ctx context.Context, in *Intents, name string, raw json.RawMessage) (map[string]any, error) {
	if len(raw) == 0 {
		return nil, fmt.Errorf("%w: set_retention needs \"retention\": an object, or null for the defaults", workflow.ErrInvalid)
	}
	var r *store.Retention
	if err := decodeObject(raw, &r); err != nil {
		return nil, fmt.Errorf("%w: retention: %v", workflow.ErrInvalid, err)
	}
	g, err := in.SetRetention(ctx, name, r)
	return writeReply(g, nil, nil), err
}
