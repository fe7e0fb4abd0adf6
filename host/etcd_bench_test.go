package host

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"baton/store"
	"baton/store/etcdhome"
	"baton/store/storetest/etcdtest"
)

// Figures of an etcd home on the 3-member test cluster of etcdtest (each member its own
// process, fsync on), side by side in one run (FIGURES.spec: etcd-save, etcd-freshness,
// etcd-takeover). Never pass/fail: numbers only.

// benchRuns makes the document a writer saves in the figures: one workflow and n runs.
func benchRuns(n int) func(*store.Doc) error {
	return func(d *store.Doc) error {
		d.Workflows = append(d.Workflows, store.Workflow{Name: "wf", MaxConcurrent: 1, OnOwnerLost: "fail",
			Steps: []store.Step{{Argv: []string{"true"}}}})
		for i := range n {
			d.Seq++
			d.Runs = append(d.Runs, store.Run{ID: fmt.Sprintf("r-%04d", i), Seq: d.Seq, Workflow: "wf",
				Status: store.StatusQueued, Created: time.Unix(1700000000, 0).UTC()})
		}
		return nil
	}
}

// benchOneRun changes run i of the document, as a step's start or end does.
func benchOneRun(i int) func(*store.Doc) error {
	return func(d *store.Doc) error {
		d.Runs[i%len(d.Runs)].Step++
		return nil
	}
}

// benchWriter starts a cluster and a writer term on a document of 200 runs.
func benchWriter(b *testing.B, prefix string) (*etcdtest.Cluster, *clientv3.Client, *etcdhome.Home, *etcdhome.Term) {
	c := etcdtest.StartCluster(b, 3)
	cli := etcdtest.Client(b, c.Endpoints()...)
	h, err := etcdhome.Open(cli, prefix, etcdhome.Options{})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	term, err := h.Campaign(ctx, etcdhome.Identity{Machine: "bench", Owner: store.Owner{PID: 1, Instance: "bench"}})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = term.Resign(context.Background()) })
	if _, err := term.Load(ctx); err != nil {
		b.Fatal(err)
	}
	if _, err := term.Update(ctx, benchRuns(200)); err != nil {
		b.Fatal(err)
	}
	return c, cli, h, term
}

// reportQuantiles reports name_p50_us and name_p99_us of ds (sorted here).
func reportQuantiles(b *testing.B, name string, ds []time.Duration, unit time.Duration, suffix string) (p50 float64) {
	if len(ds) == 0 {
		return 0
	}
	slices.Sort(ds)
	p50 = float64(ds[len(ds)/2]) / float64(unit)
	b.ReportMetric(p50, name+"_p50_"+suffix)
	b.ReportMetric(float64(ds[len(ds)*99/100])/float64(unit), name+"_p99_"+suffix)
	return p50
}

// BenchmarkEtcdSave: a writer's save of a one-run change (Term.Update: clone, change,
// validate, encode, one transaction of the meta and that run guarded by the epoch and the
// meta's revision) against a plain transaction putting the same two keys with the same
// sizes and no compares, alternately, on the 3-member cluster.
func BenchmarkEtcdSave(b *testing.B) {
	ctx := context.Background()
	_, cli, _, term := benchWriter(b, "bench-save")
	meta, err := cli.Get(ctx, "/bench-save/doc/meta")
	if err != nil || len(meta.Kvs) != 1 {
		b.Fatalf("read the meta: %v", err)
	}
	run, err := cli.Get(ctx, "/bench-save/doc/", clientv3.WithPrefix(), clientv3.WithLimit(2))
	if err != nil || len(run.Kvs) == 0 {
		b.Fatalf("read a run: %v", err)
	}
	runVal := string(run.Kvs[len(run.Kvs)-1].Value)
	saves := make([]time.Duration, 0, b.N)
	txns := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		if _, err := term.Update(ctx, benchOneRun(i)); err != nil {
			b.Fatal(err)
		}
		saves = append(saves, time.Since(t0))
		t0 = time.Now()
		if _, err := cli.Txn(ctx).Then(clientv3.OpPut("/bench-save/plain/meta", string(meta.Kvs[0].Value)),
			clientv3.OpPut("/bench-save/plain/run", runVal)).Commit(); err != nil {
			b.Fatal(err)
		}
		txns = append(txns, time.Since(t0))
	}
	b.StopTimer()
	s := reportQuantiles(b, "save", saves, time.Microsecond, "us")
	x := reportQuantiles(b, "txn", txns, time.Microsecond, "us")
	if x > 0 {
		b.ReportMetric(s/x, "save_vs_txn_p50")
	}
}

// BenchmarkEtcdFreshness: a follower on another member (its own client) and the
// writer's save of a one-run change: from the save's start, and from its acknowledgement,
// to the follower having applied and published that generation.
func BenchmarkEtcdFreshness(b *testing.B) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c, _, _, term := benchWriter(b, "bench-fresh")
	fcli := etcdtest.Client(b, c.Member(1).Endpoint())
	f, err := etcdhome.Open(fcli, "bench-fresh", etcdhome.Options{})
	if err != nil {
		b.Fatal(err)
	}
	type seen struct {
		gen uint64
		at  time.Time
	}
	applied := make(chan seen, 64)
	go func() { _ = f.Follow(ctx, func(s etcdhome.Snapshot) { applied <- seen{s.Doc.Generation, time.Now()} }) }()
	<-applied
	fromStart := make([]time.Duration, 0, b.N)
	fromAck := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		d, err := term.Update(ctx, benchOneRun(i))
		if err != nil {
			b.Fatal(err)
		}
		ack := time.Now()
		for s := range applied {
			if s.gen == d.Generation {
				fromStart = append(fromStart, s.at.Sub(t0))
				fromAck = append(fromAck, max(s.at.Sub(ack), 0))
				break
			}
		}
	}
	b.StopTimer()
	reportQuantiles(b, "save_to_applied", fromStart, time.Microsecond, "us")
	reportQuantiles(b, "ack_to_applied", fromAck, time.Microsecond, "us")
}

// BenchmarkEtcdTakeover: kill -9 of the writer window → the survivor's `writer` event,
// real headless windows through their machines' proxies. same-machine: the survivor
// shares the writer's machine and local folder, proves the death by its instance lock
// and revokes the lease (lease 30 s, so the figure is the proof's, not the lease's).
// other-machine: the survivor has no evidence and waits for the lease (2 s). Each
// iteration the survivor is the next writer and a new window the next survivor.
func BenchmarkEtcdTakeover(b *testing.B) {
	for _, tc := range []struct {
		name  string
		lease time.Duration
		same  bool
	}{{"same-machine", 30 * time.Second, true}, {"other-machine", 2 * time.Second, false}} {
		b.Run(tc.name, func(b *testing.B) {
			c := etcdtest.StartCluster(b, 3)
			ma, mb := newEtcdMachine(b, c, "ma"), newEtcdMachine(b, c, "mb")
			machines := []*etcdMachine{ma, mb}
			next := func(i int) *etcdMachine {
				if tc.same {
					return ma
				}
				return machines[i%2]
			}
			prefix := "bench-" + tc.name
			w := next(0).window(b, prefix, tc.lease.String())
			if r := w.initialRole(); r != "writer" {
				b.Fatalf("first window: %s", r)
			}
			w.ok(addWF("wf", 1, "fail"))
			ds := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				s := next(i+1).window(b, prefix, tc.lease.String())
				if r := s.initialRole(); r != "reader" {
					b.Fatalf("survivor: %s", r)
				}
				// Waiting as a survivor does: it has read who writes and watches the election.
				awaitStatus(b, s, 30*time.Second, "the survivor names the writer", func(st map[string]any) bool {
					return fmt.Sprint(st["writer_pid"]) == fmt.Sprint(w.pid)
				})
				from := s.nEvents()
				b.StartTimer()
				w.kill9()
				killed := time.Now()
				at := writerEventSince(b, s, from, 60*time.Second, "the survivor takes over")
				ds = append(ds, at.Sub(killed))
				w = s
			}
			b.StopTimer()
			reportQuantiles(b, "takeover", ds, time.Millisecond, "ms")
		})
	}
}
