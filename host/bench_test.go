package host

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"baton/store"
	"baton/workflow"
	"baton/workflow/proc"
)

// Benchmarks with real processes (the test binary re-run as headless windows, real
// state.lock, real kill -9). Every figure is a time the test process itself observes: a
// request it sent, a kill it sent, a JSON line it read from a window's stdout (stamped by
// the harness when the line was read; events carry no timestamp of their own). Run with:
//
//	go test -tags batontest -run '^$' -bench 'BenchmarkTakeover$/reap=0$' -benchtime=60x ./host/
//	go test -tags batontest -run '^$' -bench 'BenchmarkTakeover$/reap=10$' -benchtime=30x ./host/
//	go test -tags batontest -run '^$' -bench 'BenchmarkTakeoverIdle$' -benchtime=60x ./host/
//	go test -tags batontest -run '^$' -bench 'BenchmarkTakeoverRef$' -benchtime=60x ./host/   (python3)
//	go test -tags batontest -run '^$' -bench 'BenchmarkFollowerFreshness$' -benchtime=100x ./host/
//	go test -tags batontest -run '^$' -bench 'BenchmarkLoad$' -benchtime=10x ./host/
//
// Takeover and freshness run at 100, 10,000 and 100,000 recorded (finished) runs and
// report p50/p99 in ms; with -benchtime=Nx, N is the number of takeovers (or writes)
// measured per size, so with N < 100 the p99 is the slowest one.

var benchSizes = []int{100, 10_000, 100_000}

// prefillHome writes a home with the given workflows and recorded finished runs spread
// over the first two of them (the store archives all but the recent window).
func prefillHome(tb testing.TB, home string, workflows, recorded int) {
	tb.Helper()
	s := store.New(home, store.Options{})
	if _, err := s.Reload(); err != nil {
		tb.Fatal(err)
	}
	s.BeginEpoch()
	now := time.Now().UTC().Add(-time.Hour)
	if _, err := s.Update(func(d *store.Doc) error {
		for i := range workflows {
			d.Workflows = append(d.Workflows, store.Workflow{Name: fmt.Sprintf("wf%d", i), MaxConcurrent: 1,
				OnOwnerLost: "fail", Steps: []store.Step{{Name: "s", Argv: []string{"true"}}}})
		}
		for range recorded {
			d.Seq++
			code := 0
			d.Runs = append(d.Runs, store.Run{ID: fmt.Sprintf("r%d-bench", d.Seq), Seq: d.Seq,
				Workflow: fmt.Sprintf("wf%d", d.Seq%2), Status: store.StatusSucceeded, OwnerPID: 4242,
				Owner: &store.Owner{PID: 4242, Start: 1, Boot: "boot", Instance: "inst"}, Steps: 1,
				Created: now, Started: now, Ended: now, ExitCode: &code, Log: fmt.Sprintf("logs/r%d.log", d.Seq)})
		}
		return nil
	}); err != nil {
		tb.Fatal(err)
	}
}

func pct(ds []time.Duration) (p50, p99 float64) {
	s := slices.Clone(ds)
	slices.Sort(s)
	at := func(p float64) float64 {
		i := max(0, min(int(p*float64(len(s))+0.999999)-1, len(s)-1))
		return float64(s[i].Microseconds()) / 1000
	}
	return at(0.5), at(0.99)
}

// eventTime returns when child c emitted its event i (its "ts", taken by the window
// itself; both processes read the same clock), or when the test read it if it has none.
func (c *child) eventTime(i int) time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	if us, ok := c.events[i]["ts"].(float64); ok {
		return time.UnixMicro(int64(us))
	}
	return c.eventAt[i]
}

// recordAndSettle has the writer record a run and waits until reader saw it finish.
func recordAndSettle(b *testing.B, w, r *child) {
	rep := w.ok(map[string]any{"op": "start_run", "workflow": "wf0"})
	r.waitEvent(0, 10*time.Second, eventIs("run", "run", fmt.Sprint(rep["run"]), "status", store.StatusSucceeded))
}

// benchReaps is how many running runs the killed writer leaves to the survivor.
var benchReaps = []int{0, 10}

// holdScript is the step of a run left to reap: a background sleep and the exec'd group
// leader, both in the step's own process group, both outliving the killed window.
const holdScript = `sleep 600 & exec sleep 600`

// BenchmarkTakeover measures a chain of takeovers: a writer and a reader that follows it;
// the writer is killed with SIGKILL; the time from just before the kill to the survivor's
// "writer" event (lock, re-read, epoch, reap, save done) as read from its stdout. The
// survivor is the next writer.
//
// reap=0: the writer has just recorded a finished run and has nothing running.
// reap=10: the writer has 10 running runs whose steps survive it (each a shell that forks
// a background sleep and execs another, in the step's own process group); the survivor
// must prove the owner dead, kill those processes, wait until they are gone and fail the
// runs before it reports writer. Each takeover checks that its writer event names exactly
// those runs and that no process of theirs is left.
//
// reap=0 also reports ref_p50_ms, the p50 of testdata/takeover_ref.py (a Python takeover
// of the same design) measured right after on the same machine, and vs_ref_p50, the ratio.
func BenchmarkTakeover(b *testing.B) {
	for _, reap := range benchReaps {
		b.Run(fmt.Sprintf("reap=%d", reap), func(b *testing.B) {
			for _, n := range benchSizes {
				b.Run(fmt.Sprintf("recorded=%d", n), func(b *testing.B) { benchTakeover(b, n, reap, false) })
			}
		})
	}
}

// BenchmarkTakeoverIdle is BenchmarkTakeover/reap=0 with the writer killed once it is idle
// (every thread of it asleep, as /proc shows), as the Python reference's writer is when
// it is killed. BenchmarkTakeover kills the writer while it still finishes the run the
// reader saw end (its folder fsync, the run's files, events): a killed process frees
// state.lock only once each of its threads has run to its exit, and on a busy machine
// each waits for a CPU, so there the writer's death, not the survivor, sets the figure.
func BenchmarkTakeoverIdle(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("recorded=%d", n), func(b *testing.B) { benchTakeover(b, n, 0, true) })
	}
}

func benchTakeover(b *testing.B, recorded, reap int, idle bool) {
	home := b.TempDir()
	prefillHome(b, home, 2, recorded)
	var started []string // every run left to reap, for the clean-up of a failed benchmark
	b.Cleanup(func() {
		for _, id := range started {
			for _, p := range workflow.RunProcesses(home, id) {
				_ = syscall.Kill(p, syscall.SIGKILL)
			}
		}
	})
	w := startChild(b, home)
	w.waitWriter(10 * time.Second)
	if reap > 0 {
		w.ok(addWF("hold", reap, "fail", "sh", "-c", holdScript))
	}
	var lat, took []time.Duration
	for b.Loop() {
		r := startChild(b, home)
		if role := r.initialRole(); role != "reader" {
			b.Fatalf("second window is %s, want reader", role)
		}
		var ids []string
		var groups []int
		if reap == 0 {
			recordAndSettle(b, w, r)
		} else {
			for range reap {
				rep := w.ok(map[string]any{"op": "start_run", "workflow": "hold"})
				ids = append(ids, fmt.Sprint(rep["run"]))
			}
			started = append(started, ids...)
			groups = waitRunningGroups(b, r, ids)
		}
		if idle {
			waitIdle(w.pid)
		}
		from := r.nEvents()
		t0 := time.Now()
		w.kill9()
		i, e := r.waitEvent(from, 20*time.Second, eventIs("role", "role", "writer"))
		lat = append(lat, r.eventTime(i).Sub(t0))
		ms, _ := e["took_ms"].(float64)
		took = append(took, time.Duration(ms*float64(time.Millisecond)))
		checkReaped(b, home, e, ids, groups)
		w = r
	}
	p50, p99 := pct(lat)
	b.ReportMetric(p50, "p50_ms")
	b.ReportMetric(p99, "p99_ms")
	t50, _ := pct(took)
	b.ReportMetric(t50, "becomewriter_p50_ms")
	reportSteps(b, w)
	if reap == 0 { // the yardstick, measured right after on the same machine
		b.StopTimer()
		if ref, _, ok := takeoverRef(b, recorded, len(lat)); ok {
			b.ReportMetric(ref, "ref_p50_ms")
			b.ReportMetric(p50/ref, "vs_ref_p50")
		}
	}
}

// BenchmarkTakeoverRef runs testdata/takeover_ref.py alone: a Python takeover of the same
// design as Baton's (flock wait, re-read workflows.json, bump the epoch, a durable replace
// with the same fsyncs, then report writer), N takeovers on a home prefilled like
// BenchmarkTakeover's, and reports its p50/p99 in ms. It is skipped without python3.
func BenchmarkTakeoverRef(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("recorded=%d", n), func(b *testing.B) {
			p50, p99, ok := takeoverRef(b, n, b.N)
			if !ok {
				b.Skip("no python3")
			}
			b.ReportMetric(p50, "p50_ms")
			b.ReportMetric(p99, "p99_ms")
		})
	}
}

// takeoverRef runs testdata/takeover_ref.py for n takeovers on a fresh home with recorded
// runs and returns its p50 and p99 in ms; ok is false without python3.
func takeoverRef(b *testing.B, recorded, n int) (p50, p99 float64, ok bool) {
	b.Helper()
	py, err := exec.LookPath("python3")
	if err != nil {
		return 0, 0, false
	}
	home := b.TempDir()
	prefillHome(b, home, 2, recorded)
	out, err := exec.Command(py, "-B", filepath.Join("testdata", "takeover_ref.py"), "bench", home, strconv.Itoa(n)).Output()
	if err != nil {
		b.Fatalf("takeover_ref.py: %v", err)
	}
	var res struct {
		P50 float64 `json:"p50_ms"`
		P99 float64 `json:"p99_ms"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		b.Fatalf("takeover_ref.py printed %q: %v", out, err)
	}
	return res.P50, res.P99, true
}

// waitIdle waits until every thread of process pid is asleep on three looks in a row,
// 0.5 ms apart, or 2 s passed. It polls /proc (Linux); elsewhere it returns at once.
func waitIdle(pid int) {
	for calm, deadline := 0, time.Now().Add(2*time.Second); calm < 3 && time.Now().Before(deadline); {
		if threadsAsleep(pid) {
			calm++
		} else {
			calm = 0
		}
		time.Sleep(500 * time.Microsecond)
	}
}

// threadsAsleep reports whether no thread of process pid is running, runnable or in an
// uninterruptible wait (state S in /proc/<pid>/task/<tid>/stat).
func threadsAsleep(pid int) bool {
	tasks, _ := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	for _, t := range tasks {
		stat, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/stat", pid, t.Name()))
		if i := strings.LastIndexByte(string(stat), ')'); i > 0 && i+2 < len(stat) && stat[i+2] != 'S' {
			return false
		}
	}
	return true
}

// waitRunningGroups waits until reader r's view (re-read from disk) has every run of ids
// running with its step's process group recorded, and returns the groups. It waits on
// the reader's changed events, not on time.
func waitRunningGroups(b *testing.B, r *child, ids []string) []int {
	b.Helper()
	for {
		from := r.nEvents()
		pg := map[string]int{}
		for _, run := range r.snapshot().Runs {
			if run.Status == store.StatusRunning && run.PGID > 0 {
				pg[run.ID] = run.PGID
			}
		}
		var groups []int
		for _, id := range ids {
			if pg[id] > 0 {
				groups = append(groups, pg[id])
			}
		}
		if len(groups) == len(ids) {
			return groups
		}
		r.waitEvent(from, 10*time.Second, eventIs("changed"))
	}
}

// checkReaped fails the benchmark unless the writer event e names exactly the runs ids as
// reaped and no process of theirs is left: the takeover measured did the reap it claims.
func checkReaped(b *testing.B, home string, e map[string]any, ids []string, groups []int) {
	b.Helper()
	var got []string
	rs, _ := e["reaped"].([]any)
	for _, x := range rs {
		got = append(got, fmt.Sprint(x))
	}
	slices.Sort(got)
	want := slices.Sorted(slices.Values(ids))
	if !slices.Equal(got, want) {
		b.Fatalf("survivor reaped %v, want %v", got, want)
	}
	for _, g := range groups {
		if proc.GroupAlive(g) {
			b.Fatalf("process group %d of a reaped run is alive after the survivor reported writer", g)
		}
	}
	for _, id := range ids {
		if ps := workflow.RunProcesses(home, id); len(ps) > 0 {
			b.Fatalf("processes %v of reaped run %s are alive after the survivor reported writer", ps, id)
		}
	}
}

// firstChangedFrom returns the index of the first changed event of c at or after from
// whose generation is at least g (a window may publish g and g+1 as one change).
func firstChangedFrom(b *testing.B, c *child, from int, g float64) int {
	b.Helper()
	i, _ := c.waitEvent(from, 10*time.Second, func(e map[string]any) bool {
		v, _ := e["generation"].(float64)
		return e["event"] == "changed" && v >= g
	})
	return i
}

// BenchmarkFollowerFreshness measures how soon a reader shows a write. Each write is a
// start_run sent to the writer; the figure is the time from just before the request is
// sent to the reader's "changed" event for the reply's generation (or a later one). It
// also reports, signed, the reader's changed event minus the writer's own changed event
// for that generation: a reader re-reads as soon as the new file is renamed into place,
// while the writer reports only after its folder fsync, so this is often negative.
// Between writes the benchmark waits until the reader saw the run finish, so each write
// is measured alone.
func BenchmarkFollowerFreshness(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("recorded=%d", n), func(b *testing.B) {
			home := b.TempDir()
			prefillHome(b, home, 2, n)
			w := startChild(b, home)
			w.waitWriter(10 * time.Second)
			r := startChild(b, home)
			if role := r.initialRole(); role != "reader" {
				b.Fatalf("second window is %s, want reader", role)
			}
			var fromReq, vsWriter []time.Duration
			for b.Loop() {
				rf, wf := r.nEvents(), w.nEvents()
				t0 := time.Now()
				rep := w.ok(map[string]any{"op": "start_run", "workflow": "wf0"})
				g, _ := rep["generation"].(float64)
				wi := firstChangedFrom(b, w, wf, g)
				ri := firstChangedFrom(b, r, rf, g)
				fromReq = append(fromReq, r.eventTime(ri).Sub(t0))
				vsWriter = append(vsWriter, r.eventTime(ri).Sub(w.eventTime(wi)))
				r.waitEvent(rf, 10*time.Second, eventIs("run", "run", fmt.Sprint(rep["run"]), "status", store.StatusSucceeded))
			}
			p50, p99 := pct(fromReq)
			b.ReportMetric(p50, "p50_ms")
			b.ReportMetric(p99, "p99_ms")
			p50, p99 = pct(vsWriter)
			b.ReportMetric(p50, "vs_writer_changed_p50_ms")
			b.ReportMetric(p99, "vs_writer_changed_p99_ms")
		})
	}
}

// reportSteps reports the median of each named BecomeWriter step over the takeovers in
// the audit log.
func reportSteps(b *testing.B, w *child) {
	rep := w.ok(map[string]any{"op": "audit", "max": 100000})
	steps := map[string][]time.Duration{}
	es, _ := rep["entries"].([]any)
	for _, e := range es {
		m, _ := e.(map[string]any)
		if m["kind"] != "takeover" {
			continue
		}
		data, _ := m["data"].(map[string]any)
		ss, _ := data["steps"].([]any)
		for _, st := range ss {
			sm, _ := st.(map[string]any)
			v, _ := sm["ms"].(float64)
			name := fmt.Sprint(sm["name"])
			steps[name] = append(steps[name], time.Duration(v*float64(time.Millisecond)))
		}
	}
	for name, ds := range steps {
		p50, _ := pct(ds)
		b.ReportMetric(p50, "step"+strings.SplitN(name, ".", 2)[0]+"_"+strings.SplitN(name+".", ".", 3)[1]+"_ms")
	}
}

// procStat returns the CPU time (user+system) and resident set size of a process.
func procStat(tb testing.TB, pid int) (cpu time.Duration, rss int64) {
	tb.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		tb.Fatal(err)
	}
	f := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+2:]))
	ut, _ := strconv.ParseInt(f[11], 10, 64) // field 14 of the whole line
	st, _ := strconv.ParseInt(f[12], 10, 64)
	pages, _ := strconv.ParseInt(f[21], 10, 64) // field 24
	const hz = 100                              // USER_HZ on Linux
	return time.Duration(ut+st) * time.Second / hz, pages * int64(os.Getpagesize())
}

// BenchmarkLoad runs a writer with 200 schedules due every second and 10 readers following
// it, for b.N seconds, and reports the CPU each window used (percent of one core) and its
// resident memory at the end.
func BenchmarkLoad(b *testing.B) {
	const schedules, readers = 200, 10
	home := b.TempDir()
	prefillHome(b, home, schedules, 0)
	w := startChild(b, home)
	w.waitWriter(10 * time.Second)
	for i := range schedules {
		w.ok(map[string]any{"op": "add_schedule", "schedule": map[string]any{"workflow": fmt.Sprintf("wf%d", i), "every": "1s"}})
	}
	var rs []*child
	for range readers {
		r := startChild(b, home)
		r.initialRole()
		rs = append(rs, r)
	}
	time.Sleep(3 * time.Second) // warm up: every schedule fired at least once
	all := append([]*child{w}, rs...)
	cpu0 := make([]time.Duration, len(all))
	for i, c := range all {
		cpu0[i], _ = procStat(b, c.pid)
	}
	e0 := w.nEvents()
	b.ResetTimer()
	start := time.Now()
	for b.Loop() {
		time.Sleep(time.Second)
	}
	elapsed := time.Since(start)
	b.StopTimer()
	e1 := w.nEvents()
	var readerCPU, readerRSS, maxReaderRSS float64
	for i, c := range all {
		cpu, rss := procStat(b, c.pid)
		p := 100 * float64(cpu-cpu0[i]) / float64(elapsed)
		if i == 0 {
			b.ReportMetric(p, "writer_cpu_pct")
			b.ReportMetric(float64(rss)/(1<<20), "writer_rss_MB")
			continue
		}
		readerCPU += p / readers
		readerRSS += float64(rss) / (1 << 20) / readers
		maxReaderRSS = max(maxReaderRSS, float64(rss)/(1<<20))
	}
	b.ReportMetric(readerCPU, "reader_cpu_pct")
	b.ReportMetric(readerRSS, "reader_rss_MB")
	b.ReportMetric(maxReaderRSS, "reader_max_rss_MB")
	saves, ended := 0, 0
	for _, e := range w.eventsCopy()[e0:e1] {
		switch {
		case e["event"] == "changed":
			saves++
		case e["event"] == "run" && e["status"] == store.StatusSucceeded:
			ended++
		}
	}
	b.ReportMetric(float64(saves)/elapsed.Seconds(), "saves_per_s")
	b.ReportMetric(float64(ended)/elapsed.Seconds(), "runs_done_per_s")
}

// BenchmarkTakeoverAdopt measures a takeover that adopts 10 running runs: kill -9 of the
// writer → the survivor's writer event (its own timestamp), which must list exactly those
// runs as adopted; their steps must still be alive. The same 10 runs are adopted by each
// next survivor.
func BenchmarkTakeoverAdopt(b *testing.B) {
	const n = 10
	home := b.TempDir()
	prefillHome(b, home, 2, 100)
	w := startChild(b, home)
	w.waitWriter(10 * time.Second)
	w.ok(addWF("keep", n, "adopt", "sh", "-c", holdScript))
	var ids []string
	for range n {
		ids = append(ids, fmt.Sprint(w.ok(map[string]any{"op": "start_run", "workflow": "keep"})["run"]))
	}
	b.Cleanup(func() {
		for _, id := range ids {
			for _, p := range workflow.RunProcesses(home, id) {
				_ = syscall.Kill(p, syscall.SIGKILL)
			}
		}
	})
	var lat []time.Duration
	for b.Loop() {
		r := startChild(b, home)
		if role := r.initialRole(); role != "reader" {
			b.Fatalf("second window is %s, want reader", role)
		}
		groups := waitRunningGroups(b, r, ids)
		from := r.nEvents()
		t0 := time.Now()
		w.kill9()
		i, e := r.waitEvent(from, 20*time.Second, eventIs("role", "role", "writer"))
		lat = append(lat, r.eventTime(i).Sub(t0))
		if testing.Verbose() {
			b.Logf("took_ms %v", e["took_ms"])
		}
		got := eventList(e, "adopted")
		slices.Sort(got)
		if want := slices.Sorted(slices.Values(ids)); !slices.Equal(got, want) {
			b.Fatalf("survivor adopted %v, want %v (reaped %v)", got, want, eventList(e, "reaped"))
		}
		for _, g := range groups {
			if !proc.GroupAlive(g) {
				b.Fatalf("process group %d of an adopted run is gone", g)
			}
		}
		w = r
	}
	p50, p99 := pct(lat)
	b.ReportMetric(p50, "p50_ms")
	b.ReportMetric(p99, "p99_ms")
}

// BenchmarkHandover measures a hand-over on request: request_write sent to a reader → that
// window's writer event (its own timestamp). The two windows take turns.
func BenchmarkHandover(b *testing.B) {
	for _, running := range []int{0, 5} { // runs going, adopted at each hand-over
		b.Run(fmt.Sprintf("running=%d", running), func(b *testing.B) {
			home := b.TempDir()
			prefillHome(b, home, 2, 100)
			w := startChild(b, home)
			w.waitWriter(10 * time.Second)
			if running > 0 {
				w.ok(addWF("long", running, "fail", "sleep", "300"))
				for range running {
					w.ok(map[string]any{"op": "start_run", "workflow": "long"})
				}
			}
			r := startChild(b, home)
			if role := r.initialRole(); role != "reader" {
				b.Fatalf("second window is %s, want reader", role)
			}
			var lat []time.Duration
			for b.Loop() {
				from := r.nEvents()
				t0 := time.Now()
				if rep := r.ok(map[string]any{"op": "request_write"}); rep["role"] != "writer" {
					b.Fatalf("request_write: %v", rep)
				}
				i, _ := r.waitEvent(from, 10*time.Second, eventIs("role", "role", "writer"))
				lat = append(lat, r.eventTime(i).Sub(t0))
				w, r = r, w
			}
			p50, p99 := pct(lat)
			b.ReportMetric(p50, "p50_ms")
			b.ReportMetric(p99, "p99_ms")
		})
	}
}

// BenchmarkRunStart measures start_run → the first step's process started under its
// supervisor: from just before the request is sent to the step's start as the
// supervisor's journal records it (right after the step's exec). The supervisor is this
// test binary in its hidden mode (the baton binary starts slower: it links Fyne, whose
// package init runs first). The step waits for a gate file so its journal can be read.
func BenchmarkRunStart(b *testing.B) {
	home, gates := b.TempDir(), b.TempDir()
	w := startChild(b, home)
	w.waitWriter(10 * time.Second)
	w.ok(addWF("gated", 1, "fail", "sh", "-c", `while [ ! -e "$0/$BATON_RUN_ID" ]; do sleep 0.005; done`, gates))
	var lat []time.Duration
	for b.Loop() {
		b.StopTimer()
		waitSpareWaiting(b, w.pid) // a person's next run, seconds after the last, finds it waiting
		b.StartTimer()
		from := w.nEvents()
		t0 := time.Now()
		id := fmt.Sprint(w.ok(map[string]any{"op": "start_run", "workflow": "gated"})["run"])
		var j workflow.Journal
		for deadline := time.Now().Add(10 * time.Second); len(j.Steps) == 0; {
			if time.Now().After(deadline) {
				b.Fatalf("run %s never started its step", id)
			}
			j, _ = workflow.ReadJournal(home, id)
			time.Sleep(time.Millisecond) // polling the journal, whose own timestamp is measured
		}
		lat = append(lat, j.Steps[0].Started.Sub(t0))
		if err := os.WriteFile(filepath.Join(gates, id), nil, 0o600); err != nil {
			b.Fatal(err)
		}
		w.waitEvent(from, 10*time.Second, eventIs("run", "run", id, "status", "succeeded"))
	}
	p50, p99 := pct(lat)
	b.ReportMetric(p50, "p50_ms")
	b.ReportMetric(p99, "p99_ms")
}
