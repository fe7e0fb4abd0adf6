package host

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"baton/store"
	"baton/workflow"
)

// retentionHome is a writer window on a new home (no scheduler, so nothing but the test
// touches runs) with workflow "w", and its term.
func retentionHome(tb testing.TB) (*Core, *Term) {
	tb.Helper()
	w, err := Open(tb.TempDir(), Options{NoScheduler: true})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { w.Close() })
	if err := w.Start(); err != nil {
		tb.Fatal(err)
	}
	if w.Role() != RoleWriter {
		tb.Fatalf("the only window is %v, want writer", w.Role())
	}
	if _, err := w.Intents().AddWorkflow(context.Background(), store.Workflow{Name: "w", Steps: []store.Step{{Argv: []string{"true"}}}}); err != nil {
		tb.Fatal(err)
	}
	return w, w.currentTerm()
}

// oldRun is a run of wf numbered seq, created at `at` and finished a second later (or
// active, when status says so), with a log of size bytes in runs/.
func oldRun(t *testing.T, home, wf string, seq int, status string, at time.Time, size int) store.Run {
	t.Helper()
	r := store.Run{ID: fmt.Sprintf("r%d-%s", seq, wf), Seq: uint64(seq), Workflow: wf, Status: status, Steps: 1, Created: at.UTC()}
	if status != store.StatusRunning && status != store.StatusQueued {
		r.Ended = at.Add(time.Second).UTC()
	}
	r.Log = filepath.Join(home, "runs", r.ID+".log")
	if err := os.MkdirAll(filepath.Dir(r.Log), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(r.Log, []byte(strings.Repeat("x", size)), 0o600); err != nil {
		t.Fatal(err)
	}
	return r
}

// putRuns adds runs to the document as they are.
func putRuns(t *testing.T, tm *Term, runs ...store.Run) {
	t.Helper()
	if _, err := tm.Update(context.Background(), func(d *store.Doc) error {
		d.Runs = append(d.Runs, runs...)
		for _, r := range runs {
			d.Seq = max(d.Seq, r.Seq)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

func logsIn(t testing.TB, home string) []string {
	t.Helper()
	ents, err := os.ReadDir(filepath.Join(home, "runs"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		if id, ok := strings.CutSuffix(e.Name(), ".log"); ok {
			out = append(out, id)
		}
	}
	slices.Sort(out)
	return out
}

func historyOf(t *testing.T, w *Core) []string {
	t.Helper()
	p, err := w.Intents().History(store.HistoryQuery{Limit: store.MaxHistoryLimit})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range p.Runs {
		out = append(out, r.ID)
	}
	slices.Sort(out)
	return out
}

func ids(wf string, seqs ...int) []string {
	var out []string
	for _, s := range seqs {
		out = append(out, fmt.Sprintf("r%d-%s", s, wf))
	}
	slices.Sort(out)
	return out
}

// TestRetentionPassDeletesOnlyProvablyFinishedHistory: with keep_runs 2 the pass deletes
// the logs of every finished run but the newest two, archived or in the document, and
// compacts the archive without them; it never deletes the log of an active run, however
// old, nor a log whose run it does not know.
func TestRetentionPassDeletesOnlyProvablyFinishedHistory(t *testing.T) {
	w, tm := retentionHome(t)
	home := w.Home()
	long := time.Now().Add(-30 * 24 * time.Hour)
	var archived []store.Run
	for seq := 1; seq <= 10; seq++ {
		archived = append(archived, oldRun(t, home, "w", seq, store.StatusSucceeded, long.Add(time.Duration(seq)*time.Minute), 10))
	}
	if err := w.st.Archive().Append(archived); err != nil {
		t.Fatal(err)
	}
	running := oldRun(t, home, "w", 0, store.StatusRunning, long, 10) // the oldest of all, still running
	running.Owner = &store.Owner{PID: os.Getpid(), Instance: w.Self().Instance}
	putRuns(t, tm, running,
		oldRun(t, home, "w", 11, store.StatusFailed, long.Add(11*time.Minute), 10),
		oldRun(t, home, "w", 12, store.StatusSucceeded, long.Add(12*time.Minute), 10),
		oldRun(t, home, "w", 13, store.StatusCancelled, long.Add(13*time.Minute), 10))
	if err := os.WriteFile(filepath.Join(home, "runs", "unknown.log"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Intents().SetRetention(context.Background(), "w", &store.Retention{KeepRuns: 2, KeepFor: store.Duration(time.Hour)}); err != nil {
		t.Fatal(err)
	}

	rep, err := w.retain(tm, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if want := append(ids("w", 0, 12, 13), "unknown"); !slices.Equal(logsIn(t, home), slices.Sorted(slices.Values(want))) {
		t.Errorf("logs left %q, want %q", logsIn(t, home), want)
	}
	if got, want := historyOf(t, w), ids("w", 0, 11, 12, 13); !slices.Equal(got, want) {
		t.Errorf("history %q, want %q (the archive compacted, the document's records stay)", got, want)
	}
	if rep.ByRule != 11 || rep.LogsRemoved != 11 || rep.Archive.Dropped != 10 || rep.Archive.Removed != 1 || rep.Pending != 0 {
		t.Errorf("report %+v", rep)
	}
	// The second wall: a verdict that names an active run (a stale list) deletes nothing.
	var r2 retentionReport
	if gone := w.removeLogs(tm, w.retention(), []workflow.Entry{{ID: running.ID, Workflow: "w"}}, &r2); len(gone) != 0 || r2.LogsRemoved != 0 {
		t.Errorf("the log of running run %s was deleted", running.ID)
	}
	// A second pass finds nothing more to do.
	if rep, err := w.retain(tm, time.Now()); err != nil || rep.LogsRemoved != 0 || rep.Archive.Dropped != 0 {
		t.Errorf("second pass: %+v, %v", rep, err)
	}
}

// TestRetentionSizeCapDeletesOldestFirst: over the home's cap the oldest finished runs go
// first, just enough of them; an active run's log stays even though it alone is large.
func TestRetentionSizeCapDeletesOldestFirst(t *testing.T) {
	w, tm := retentionHome(t)
	home := w.Home()
	now := time.Now()
	big := oldRun(t, home, "w", 100, store.StatusRunning, now.Add(-48*time.Hour), 600<<10) // older than all, 600 KiB
	big.Owner = &store.Owner{PID: os.Getpid(), Instance: w.Self().Instance}
	var runs []store.Run
	for seq := 1; seq <= 20; seq++ {
		runs = append(runs, oldRun(t, home, "w", seq, store.StatusSucceeded, now.Add(-time.Duration(21-seq)*time.Minute), 60<<10)) // 15 blocks each
	}
	putRuns(t, tm, append(runs, big)...)
	if _, err := w.Intents().SetRetention(context.Background(), "", &store.Retention{MaxHomeBytes: 1 << 20}); err != nil {
		t.Fatal(err)
	}
	rep, err := w.retain(tm, now)
	if err != nil {
		t.Fatal(err)
	}
	// 1 MiB holds the 600 KiB active log and seven logs of 60 KiB: the newest seven.
	if got, want := logsIn(t, home), ids("w", 14, 15, 16, 17, 18, 19, 20, 100); !slices.Equal(got, want) {
		t.Errorf("logs left %q, want %q", got, want)
	}
	if rep.ByCap != 13 || rep.ByRule != 0 || rep.KeptBytes > 1<<20 || rep.KeptBytes+60<<10 <= 1<<20 {
		t.Errorf("report %+v: want 13 dropped by the cap, just under 1 MiB kept", rep)
	}
}

// TestRetentionPassStopsWithTheTerm: a pass of a term that ended deletes nothing.
func TestRetentionPassStopsWithTheTerm(t *testing.T) {
	w, tm := retentionHome(t)
	home := w.Home()
	putRuns(t, tm, oldRun(t, home, "w", 1, store.StatusSucceeded, time.Now().Add(-1000*time.Hour), 10))
	if _, err := w.Intents().SetRetention(context.Background(), "w", &store.Retention{KeepRuns: 1, KeepFor: store.Duration(time.Second)}); err != nil {
		t.Fatal(err)
	}
	putRuns(t, tm, oldRun(t, home, "w", 2, store.StatusSucceeded, time.Now().Add(-999*time.Hour), 10))
	tm.cancel(ErrClosed)
	if _, err := w.retain(tm, time.Now()); err == nil {
		t.Error("a pass of an ended term went on")
	}
	if got := logsIn(t, home); !slices.Equal(got, ids("w", 1, 2)) {
		t.Errorf("logs %q: an ended term deleted some", got)
	}
}

// TestSetRetention: the intent sets and clears the home's and a workflow's retention,
// refuses what validation refuses with the field named, and an unknown workflow; the
// control channel's op takes an object or null and refuses unknown fields.
func TestSetRetention(t *testing.T) {
	w, _ := retentionHome(t)
	in, ctx := w.Intents(), context.Background()
	if _, err := in.SetRetention(ctx, "w", &store.Retention{KeepRuns: 5}); err != nil {
		t.Fatal(err)
	}
	if r := w.Snapshot().Workflow("w").Retention; r == nil || r.KeepRuns != 5 {
		t.Errorf("workflow retention %+v", r)
	}
	var fe store.FieldErrors
	_, err := in.SetRetention(ctx, "w", &store.Retention{MaxHomeBytes: 1 << 30})
	if !errors.Is(err, workflow.ErrInvalid) || !errors.As(err, &fe) || fe[0].Field != "retention.max_home_bytes" {
		t.Errorf("cap on a workflow: %v", err)
	}
	if _, err := in.SetRetention(ctx, "nope", &store.Retention{KeepRuns: 5}); !errors.Is(err, workflow.ErrNotFound) {
		t.Errorf("unknown workflow: %v", err)
	}
	if _, err := setRetentionOp(ctx, in, "", json.RawMessage(`{"keep_runs":100,"keep_for":"720h","max_home_bytes":2147483648}`)); err != nil {
		t.Fatal(err)
	}
	if r := w.Snapshot().Retention; r == nil || r.KeepRuns != 100 || r.KeepFor.D() != 720*time.Hour || r.MaxHomeBytes != 2<<30 {
		t.Errorf("home retention %+v", r)
	}
	for _, bad := range []string{``, `{"keep_runz":1}`, `{"keep_for":"-1h"}`, `{"keep_runs":-1}`} {
		if _, err := setRetentionOp(ctx, in, "", json.RawMessage(bad)); ErrorCode(err) != "invalid" {
			t.Errorf("set_retention %s: %v, want invalid", bad, err)
		}
	}
	if _, err := setRetentionOp(ctx, in, "w", json.RawMessage(`null`)); err != nil {
		t.Fatal(err)
	}
	if r := w.Snapshot().Workflow("w").Retention; r != nil {
		t.Errorf("null left %+v", r)
	}
}

// TestLogCostCountsWholeBlocks: a log costs whole 4 KiB blocks, at least one however
// small (so the size cap bounds the number of files too); a missing log costs nothing.
func TestLogCostCountsWholeBlocks(t *testing.T) {
	home := t.TempDir()
	for _, c := range []struct {
		size int
		want int64
	}{{0, 4096}, {1, 4096}, {4096, 4096}, {4097, 8192}} {
		oldRun(t, home, "w", 1, store.StatusSucceeded, time.Now(), c.size)
		if got := logCost(home, "r1-w"); got != c.want {
			t.Errorf("a log of %d bytes costs %d, want %d", c.size, got, c.want)
		}
	}
	if got := logCost(home, "r2-w"); got != 0 {
		t.Errorf("a missing log costs %d", got)
	}
}

// BenchmarkRetentionMonthPerSecond: the home after a month of a schedule due every second
// (2.6 million runs), kept by the default retention. The history is written directly, a
// day at a time (86,400 runs: archive lines and a 38-byte log each, as a step that prints
// nothing leaves), and after each day the writer's retention passes run until nothing is
// left for them. It reports:
//   - files and bytes in the home at the end (disk: allocated blocks), runs and logs kept;
//   - the writer's memory: the heap it keeps between passes (the archive's index and the
//     log sizes) and the process's peak RSS (the history writing included);
//   - the time of one pass, medians over the days: busy (one that deletes
//     retentionMaxDeletes logs) and steady (one minute's runs to drop, as the writer's
//     pass every minute has; wall and CPU time).
//
// Run with:
//
//	go test -tags batontest -run '^$' -bench BenchmarkRetentionMonthPerSecond -benchtime=1x -timeout 90m ./host/
//
// BATON_BENCH_RETENTION_DAYS shortens the month (default 30).
func BenchmarkRetentionMonthPerSecond(b *testing.B) {
	days := 30
	if v, err := strconv.Atoi(os.Getenv("BATON_BENCH_RETENTION_DAYS")); err == nil && v > 0 {
		days = v
	}
	for range b.N {
		w, tm := retentionHome(b)
		h := newHistoryWriter(b, w.Home(), "every-second")
		start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		var busy, steady, steadyCPU []time.Duration
		for day := range days {
			end := start.Add(time.Duration(day+1) * 24 * time.Hour)
			h.write(b, end.Add(-24*time.Hour), 86400, time.Second)
			// The day's passes, as of two minutes before its end; then a pass a minute later
			// reads again what they compacted, and the steady pass at the end has one
			// minute's runs to drop and nothing to read again, as a pass every minute would.
			for {
				rep, err := w.retain(tm, end.Add(-2*time.Minute))
				if err != nil {
					b.Fatal(err)
				}
				if rep.LogsRemoved == retentionMaxDeletes {
					busy = append(busy, rep.Took)
				}
				if rep.Pending == 0 {
					break
				}
			}
			if _, err := w.retain(tm, end.Add(-time.Minute)); err != nil {
				b.Fatal(err)
			}
			cpu := cpuTime()
			rep, err := w.retain(tm, end)
			if err != nil || rep.Pending != 0 {
				b.Fatalf("steady pass: %+v, %v", rep, err)
			}
			steady, steadyCPU = append(steady, rep.Took), append(steadyCPU, cpuTime()-cpu)
		}
		files, disk, apparent := homeUsage(b, w.Home())
		_, kept, err := w.st.Archive().Runs()
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(files), "files")
		b.ReportMetric(float64(disk)/(1<<20), "disk_MiB")
		b.ReportMetric(float64(apparent)/(1<<20), "apparent_MiB")
		b.ReportMetric(float64(kept), "runs_archived")
		b.ReportMetric(float64(len(logsIn(b, w.Home()))), "logs")
		b.ReportMetric(float64(days*86400), "runs_written")
		b.ReportMetric(ms(median(busy)), "busy_pass_ms")
		var m runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m)
		var ru syscall.Rusage
		_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		b.ReportMetric(float64(m.HeapAlloc)/(1<<20), "live_heap_MiB")
		b.ReportMetric(float64(ru.Maxrss)/1024, "max_rss_MiB")
		b.ReportMetric(ms(median(steady)), "steady_pass_ms")
		b.ReportMetric(ms(median(steadyCPU)), "steady_pass_cpu_ms")
	}
}

// cpuTime is the CPU time this process used so far (user and system).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// homeUsage counts the regular files under home and what they take on disk (allocated
// blocks) and in bytes.
func homeUsage(tb testing.TB, home string) (files int, disk, apparent int64) {
	tb.Helper()
	err := filepath.WalkDir(home, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		files++
		apparent += fi.Size()
		if st, ok := fi.Sys().(*syscall.Stat_t); ok {
			disk += st.Blocks * 512
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return files, disk, apparent
}

// historyWriter writes a schedule's history directly: archive lines, in parts of the
// archive's size cap, and a log per run.
type historyWriter struct {
	home, wf   string
	seq        int
	part, size int // the archive part written to, and its size
}

func newHistoryWriter(tb testing.TB, home, wf string) *historyWriter {
	for _, dir := range []string{"runs", store.ArchiveDir} {
		if err := os.MkdirAll(filepath.Join(home, dir), 0o700); err != nil {
			tb.Fatal(err)
		}
	}
	return &historyWriter{home: home, wf: wf}
}

var benchLogLine = []byte("== step 1 of 1 (step 1): [\"true\"]\n")

// write records n finished runs, one every period from first, each with its log.
func (h *historyWriter) write(tb testing.TB, first time.Time, n int, period time.Duration) {
	tb.Helper()
	var buf bytes.Buffer
	code := 0
	owner := &store.Owner{PID: 4242, Start: 1, Boot: "boot", Instance: "0123456789abcdef"}
	for i := range n {
		h.seq++
		at := first.Add(time.Duration(i) * period)
		id := fmt.Sprintf("r%d-%08x", h.seq, h.seq*2654435761%(1<<32))
		r := store.Run{ID: id, Seq: uint64(h.seq), Workflow: h.wf, Status: store.StatusSucceeded, OwnerPID: 4242,
			Owner: owner, Steps: 1, Created: at, Started: at, Ended: at.Add(20 * time.Millisecond),
			ExitCode: &code, Log: filepath.Join(h.home, "runs", id+".log"), Schedule: "s1", Due: at}
		if err := os.WriteFile(r.Log, benchLogLine, 0o600); err != nil {
			tb.Fatal(err)
		}
		line, err := json.Marshal(&r)
		if err != nil {
			tb.Fatal(err)
		}
		if h.size > 0 && h.size+len(line)+1 > store.DefaultArchiveMaxSize {
			h.appendPart(tb, buf.Bytes())
			buf.Reset()
			h.part, h.size = h.part+1, 0
		}
		buf.Write(append(line, '\n'))
		h.size += len(line) + 1
	}
	h.appendPart(tb, buf.Bytes())
}

func (h *historyWriter) appendPart(tb testing.TB, data []byte) {
	tb.Helper()
	name := fmt.Sprintf("runs-2026-01.%d.jsonl", h.part+1)
	f, err := os.OpenFile(filepath.Join(h.home, store.ArchiveDir, name), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err == nil {
		_, err = f.Write(data)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		tb.Fatal(err)
	}
}

// TestRetentionPassSkipsAnIdleHome: while nothing is saved, a pass comes only once an
// hour (time alone can drop runs then); after a save the next call passes again, once the
// duty cycle allows.
func TestRetentionPassSkipsAnIdleHome(t *testing.T) {
	w, tm := retentionHome(t)
	st := w.retention()
	w.retentionPass(tm)
	first := st.at.Load()
	if first == 0 {
		t.Fatal("the first pass did not run")
	}
	st.idle.Store(0) // past the duty-cycle wait
	w.retentionPass(tm)
	if st.at.Load() != first {
		t.Error("a pass ran with nothing saved since the last one")
	}
	st.at.Store(time.Now().Add(-retentionIdle).UnixNano())
	w.retentionPass(tm)
	if st.at.Load() == first {
		t.Error("no pass an hour later")
	}
	last := st.at.Load()
	if st.idle.Load() <= last {
		t.Error("a pass did not set when the next may come")
	}
	st.idle.Store(time.Now().Add(time.Hour).UnixNano()) // as after a pass of 72 s
	putRuns(t, tm, oldRun(t, w.Home(), "w", 1, store.StatusSucceeded, time.Now(), 1))
	w.retentionPass(tm)
	if st.at.Load() != last {
		t.Error("a pass came before the duty cycle allowed")
	}
	st.idle.Store(0)
	w.retentionPass(tm)
	if st.at.Load() == last {
		t.Error("no pass after a save")
	}
}

// TestRetentionLoopPassesAndEndsWithTheTerm: the loop the writer starts at its takeover
// makes passes, and returns when the term ends.
func TestRetentionLoopPassesAndEndsWithTheTerm(t *testing.T) {
	first, every := retentionFirst, retentionEvery
	retentionFirst, retentionEvery = time.Millisecond, time.Millisecond
	t.Cleanup(func() { retentionFirst, retentionEvery = first, every })
	w, tm := retentionHome(t)
	done := make(chan struct{})
	go func() { w.retentionLoop(tm); close(done) }()
	deadline := time.Now().Add(10 * time.Second)
	for w.retention().at.Load() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("no pass within 10 s")
		}
		time.Sleep(time.Millisecond)
	}
	tm.cancel(ErrClosed)
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the loop goes on after its term ended")
	}
}

// TestRetentionPassIsAudited: a pass that removed history says so in the audit log, with
// what it removed and why; a pass that removed nothing writes nothing.
func TestRetentionPassIsAudited(t *testing.T) {
	w, tm := retentionHome(t)
	home := w.Home()
	long := time.Now().Add(-30 * 24 * time.Hour)
	var archived []store.Run
	for seq := 1; seq <= 4; seq++ {
		archived = append(archived, oldRun(t, home, "w", seq, store.StatusSucceeded, long.Add(time.Duration(seq)*time.Minute), 5000))
	}
	if err := w.st.Archive().Append(archived); err != nil {
		t.Fatal(err)
	}
	putRuns(t, tm, oldRun(t, home, "w", 5, store.StatusSucceeded, long.Add(5*time.Minute), 10))
	if _, err := w.Intents().SetRetention(context.Background(), "w", &store.Retention{KeepRuns: 1, KeepFor: store.Duration(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	passes := func() []store.RetentionPass {
		es, err := w.audit.Read(0)
		if err != nil {
			t.Fatal(err)
		}
		var out []store.RetentionPass
		for _, e := range es {
			if e.Kind == store.KindRetention {
				var p store.RetentionPass
				if err := e.Decode(&p); err != nil {
					t.Fatal(err)
				}
				out = append(out, p)
			}
		}
		return out
	}
	w.retentionPass(tm)
	got := passes()
	if len(got) != 1 || got[0].LogsRemoved != 4 || got[0].ArchivedRemoved != 4 || got[0].ByRule != 4 ||
		got[0].LogBytes < 4*5000 || got[0].KeptBytes <= 0 {
		t.Fatalf("audited passes %+v, want one that removed the 4 oldest runs' logs and records", got)
	}
	st := w.retention()
	st.idle.Store(0)
	st.at.Store(time.Now().Add(-retentionIdle).UnixNano()) // a pass is due again
	w.retentionPass(tm)
	if n := len(passes()); n != 1 || st.at.Load() < time.Now().Add(-time.Minute).UnixNano() {
		t.Fatalf("%d passes audited after a second pass that removed nothing (it ran: %v), want 1", n, st.at.Load() >= time.Now().Add(-time.Minute).UnixNano())
	}
}
