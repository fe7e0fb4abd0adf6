package host

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"baton/store"
)

// Benchmarks with real processes (the test binary re-run as headless windows, real
// state.lock, real kill -9). Run each with:
//
//	go test -run '^$' -bench BenchmarkTakeover -benchtime=60x ./host/
//	go test -run '^$' -bench BenchmarkFollowerFreshness -benchtime=200x ./host/
//	go test -run '^$' -bench BenchmarkLoad -benchtime=10x ./host/
//
// The first two run at 100, 10,000 and 100,000 recorded runs and report p50/p99 in ms;
// b.N is the number of takeovers (or writes) measured per size.

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

func (c *child) eventTime(i int) time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.eventAt[i]
}

func genAtLeast(g float64) func(map[string]any) bool {
	return func(e map[string]any) bool {
		v, _ := e["generation"].(float64)
		return e["event"] == "changed" && v >= g
	}
}

// recordAndSettle has the writer record a run and waits until reader saw it finish.
func recordAndSettle(b *testing.B, w, r *child) {
	rep := w.ok(map[string]any{"op": "start_run", "workflow": "wf0"})
	r.waitEvent(0, 10*time.Second, eventIs("run", "run", fmt.Sprint(rep["run"]), "status", store.StatusSucceeded))
}

// BenchmarkTakeover measures a chain of takeovers: a writer and a reader that follows it;
// the writer is killed with SIGKILL; the time from the kill to the reader's "writer" event
// (lock, re-read, epoch, reap, save done). The survivor is the next writer.
func BenchmarkTakeover(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("runs=%d", n), func(b *testing.B) {
			home := b.TempDir()
			prefillHome(b, home, 2, n)
			w := startChild(b, home)
			w.waitWriter(10 * time.Second)
			var lat, took []time.Duration
			for b.Loop() {
				r := startChild(b, home)
				if role := r.initialRole(); role != "reader" {
					b.Fatalf("second window is %s, want reader", role)
				}
				recordAndSettle(b, w, r)
				from := r.nEvents()
				t0 := time.Now()
				w.kill9()
				i, e := r.waitEvent(from, 10*time.Second, eventIs("role", "role", "writer"))
				lat = append(lat, r.eventTime(i).Sub(t0))
				ms, _ := e["took_ms"].(float64)
				took = append(took, time.Duration(ms*float64(time.Millisecond)))
				w = r
			}
			p50, p99 := pct(lat)
			b.ReportMetric(p50, "p50_ms")
			b.ReportMetric(p99, "p99_ms")
			t50, _ := pct(took)
			b.ReportMetric(t50, "becomewriter_p50_ms")
			reportSteps(b, w)
		})
	}
}

// BenchmarkFollowerFreshness measures the time from the writer publishing a write (its own
// "changed" event for the generation, which precedes its reply) to the reader's "changed"
// event for that generation or a later one.
func BenchmarkFollowerFreshness(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("runs=%d", n), func(b *testing.B) {
			home := b.TempDir()
			prefillHome(b, home, 2, n)
			w := startChild(b, home)
			w.waitWriter(10 * time.Second)
			r := startChild(b, home)
			r.initialRole()
			var lat, whole []time.Duration
			for b.Loop() {
				rf := r.nEvents()
				t0 := time.Now()
				rep, at := w.timedReply(map[string]any{"op": "start_run", "workflow": "wf0"})
				g, _ := rep["generation"].(float64)
				ri, _ := r.waitEvent(rf, 10*time.Second, genAtLeast(g))
				lat = append(lat, r.eventTime(ri).Sub(at))
				whole = append(whole, r.eventTime(ri).Sub(t0))
				r.waitEvent(rf, 10*time.Second, eventIs("run", "run", fmt.Sprint(rep["run"]), "status", store.StatusSucceeded))
			}
			p50, p99 := pct(lat)
			b.ReportMetric(p50, "p50_ms")
			b.ReportMetric(p99, "p99_ms")
			p50, p99 = pct(whole)
			b.ReportMetric(p50, "from_request_p50_ms")
			b.ReportMetric(p99, "from_request_p99_ms")
		})
	}
}

// timedReply sends a request and returns its reply and when the reply was seen (the
// harness does not stamp replies; this is the waiter's wake-up, a few microseconds late).
func (c *child) timedReply(req map[string]any) (map[string]any, time.Time) {
	c.t.Helper()
	id := c.send(req)
	var r map[string]any
	var at time.Time
	if !c.waitFor(10*time.Second, func() bool {
		r = c.replies[id]
		if r != nil && at.IsZero() {
			at = time.Now()
		}
		return r != nil
	}) || r["ok"] != true {
		c.t.Fatalf("child %d: %v: %v", c.pid, req["op"], r)
	}
	return r, at
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
