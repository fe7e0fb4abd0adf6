package host

// BenchmarkEtcdSchedules: the figure of issue 21 "3 machines × 3 windows, 100 schedules
// due every second". A 3-member etcdtest cluster, 3 machines (BATON_MACHINE, --local, a
// proxy each) of 3 headless windows, --lease 5 s (the default: a 2 s lease is lost on a
// busy 2-core machine while the schedules are added); 100 workflows of one quick step ("true"), each with
// a schedule due every second (overlap skip). After a 3 s warm-up it runs b.N seconds
// (-benchtime=20x is 20 s) and reports, from the document read from etcd, the runs that
// ended succeeded per second and the saves (generations) per second, and the writer's CPU.
// kill=1 kill -9s the writer once, half-way (its machine's other windows take over).
//
// Correctness, not timing: at the end every run of the home (the document and each
// machine's local archive) is read, and the benchmark fails if a (schedule, due)
// occurrence has more than one run.

import (
	"context"
	"fmt"
	"testing"
	"time"

	"baton/store"
	"baton/store/etcdhome"
	"baton/store/storetest/etcdtest"
	"baton/workflow"
	"baton/workflow/proc"
)

func BenchmarkEtcdSchedules(b *testing.B) {
	b.Run("kill=0", func(b *testing.B) { benchEtcdSchedules(b, false) })
	b.Run("kill=1", func(b *testing.B) { benchEtcdSchedules(b, true) })
}

func benchEtcdSchedules(b *testing.B, kill bool) {
	const schedules, machines, perMachine = 100, 3, 3
	const prefix = "sched-bench"
	c := etcdtest.StartCluster(b, 3)
	cli := etcdtest.Client(b, c.Endpoints()...)
	h, err := etcdhome.Open(cli, prefix, etcdhome.Options{})
	if err != nil {
		b.Fatal(err)
	}
	load := func() *store.Doc {
		d, err := h.DocHome().Load(&store.Doc{}, true)
		if err != nil {
			b.Fatalf("read the document from etcd: %v", err)
		}
		return d
	}
	var ms []*etcdMachine
	var wins [][]*child
	for i := range machines {
		m := newEtcdMachine(b, c, fmt.Sprintf("m%d", i))
		b.Cleanup(func() { proc.KillAll(nil, [][]string{{workflow.EnvHome + "=" + m.local}}, 5*time.Second) })
		ms = append(ms, m)
		wins = append(wins, nil)
	}
	w := ms[0].window(b, prefix, "5s")
	if r := w.initialRole(); r != "writer" {
		b.Fatalf("the first window is %s, not the writer", r)
	}
	wins[0] = append(wins[0], w)
	for i := range schedules {
		w.ok(addWF(fmt.Sprintf("wf%d", i), 1, "fail"))
		w.ok(map[string]any{"op": "add_schedule", "schedule": map[string]any{"workflow": fmt.Sprintf("wf%d", i), "every": "1s", "overlap": "skip"}})
	}
	for i, m := range ms {
		for len(wins[i]) < perMachine {
			x := m.window(b, prefix, "5s")
			x.initialRole()
			wins[i] = append(wins[i], x)
		}
	}
	time.Sleep(3 * time.Second) // warm up: every schedule fired at least once
	d0 := load()
	cpu0, _ := procStat(b, w.pid)
	b.ResetTimer()
	start := time.Now()
	n := 0
	var takeover time.Duration
	for b.Loop() {
		n++
		if kill && n == max(b.N/2, 1) {
			from := []int{wins[0][1].nEvents(), wins[0][2].nEvents()}
			cpu1, _ := procStat(b, w.pid)
			t0 := time.Now()
			w.kill9()
			w = awaitWriterOf(b, wins[0][1:], from, 30*time.Second)
			takeover = time.Since(t0)
			cpu0 -= cpu1 // the killed writer's CPU so far counts; the new one's from 0 on
			c0, _ := procStat(b, w.pid)
			cpu0 += c0
		}
		time.Sleep(time.Second)
	}
	elapsed := time.Since(start)
	b.StopTimer()
	cpu, _ := procStat(b, w.pid)
	d1 := load()
	done := 0
	runs, err := etcdRuns(h, d1, ms)
	if err != nil {
		b.Fatal(err)
	}
	occ := map[string]string{}
	var lag, took []time.Duration // due → step started; created → ended, of the runs done
	for _, r := range runs {
		if r.Status == store.StatusSucceeded && r.Ended.After(start) && !r.Ended.After(start.Add(elapsed)) {
			done++
			if !r.Due.IsZero() && !r.Started.IsZero() {
				lag = append(lag, r.Started.Sub(r.Due))
			}
			took = append(took, r.Ended.Sub(r.Created))
		}
		if r.Schedule == "" {
			continue
		}
		k := r.Schedule + "@" + r.Due.UTC().Format(time.RFC3339Nano)
		if prev, dup := occ[k]; dup {
			b.Errorf("occurrence %s ran twice: runs %s and %s", k, prev, r.ID)
		}
		occ[k] = r.ID
	}
	b.ReportMetric(float64(done)/elapsed.Seconds(), "runs_done_per_s")
	b.ReportMetric(float64(d1.Generation-d0.Generation)/elapsed.Seconds(), "saves_per_s")
	b.ReportMetric(100*float64(cpu-cpu0)/float64(elapsed), "writer_cpu_pct")
	b.ReportMetric(float64(len(occ)), "occurrences")
	if len(lag) > 0 && len(took) > 0 {
		lag50, _ := pct(lag)
		took50, _ := pct(took)
		b.ReportMetric(lag50, "due_to_start_p50_ms")
		b.ReportMetric(took50, "created_to_ended_p50_ms")
	}
	if kill {
		b.ReportMetric(float64(takeover.Milliseconds()), "takeover_ms")
	}
	b.Logf("%d runs of %d occurrences in all, %d ended succeeded in %s; generations %d → %d",
		len(runs), len(occ), done, elapsed.Round(time.Millisecond), d0.Generation, d1.Generation)
}

// awaitWriterOf waits until one of ws (whose events before from[i] are old) says writer.
func awaitWriterOf(tb testing.TB, ws []*child, from []int, timeout time.Duration) *child {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	for {
		for i, x := range ws {
			for _, e := range x.eventsCopy()[from[i]:] {
				if e["event"] == "role" && e["role"] == "writer" {
					return x
				}
			}
		}
		select {
		case <-ctx.Done():
			tb.Fatalf("no window took over within %s of the writer's kill -9", timeout)
		case <-time.After(5 * time.Millisecond): // polls the windows' events
		}
	}
}
