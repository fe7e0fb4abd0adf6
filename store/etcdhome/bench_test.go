package etcdhome

import (
	"context"
	"slices"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"baton/store"
)

// Figures (FIGURES.md): go test -run '^$' -bench . -benchtime 2000x ./store/etcdhome/
// All on the in-process member of TestMain, side by side in one run.

// benchDoc makes a writer with a document of n runs.
func benchDoc(b *testing.B, n int) (*Home, *Term) {
	h := newHome(b, Options{})
	term, err := h.Campaign(testCtx(b), ident("laptop", 10))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { term.Resign(context.Background()) })
	if _, err := term.Load(testCtx(b)); err != nil {
		b.Fatal(err)
	}
	if _, err := term.Update(testCtx(b), addRuns(n, "r")); err != nil {
		b.Fatal(err)
	}
	return h, term
}

// oneRunChange changes one run of the document, as a step's start or end does.
func oneRunChange(i int) func(*store.Doc) error {
	return func(d *store.Doc) error {
		r := &d.Runs[i%len(d.Runs)]
		r.Step++
		return nil
	}
}

func reportP50(b *testing.B, name string, ds []time.Duration) {
	slices.Sort(ds)
	if len(ds) > 0 {
		b.ReportMetric(float64(ds[len(ds)/2].Microseconds()), name+"-p50-µs")
		b.ReportMetric(float64(ds[len(ds)*99/100].Microseconds()), name+"-p99-µs")
	}
}

// BenchmarkSave: a writer's save of a one-run change (the meta and one run key, in one
// transaction guarded by the epoch and the meta's revision) on a document of 200 runs.
func BenchmarkSave(b *testing.B) {
	ctx := context.Background()
	_, term := benchDoc(b, 200)
	ds := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		if _, err := term.Update(ctx, oneRunChange(i)); err != nil {
			b.Fatal(err)
		}
		ds = append(ds, time.Since(t0))
	}
	reportP50(b, "save", ds)
}

// BenchmarkPlainTxn: the same two puts (same keys and sizes) in a plain transaction
// without compares: what etcd alone costs.
func BenchmarkPlainTxn(b *testing.B) {
	ctx := context.Background()
	h, term := benchDoc(b, 200)
	kv := term.doc.kv
	meta := string(kv["meta"])
	run := string(kv[setName(0)+"/run/r-0000"])
	ds := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		_, err := h.cli.Txn(ctx).Then(clientv3.OpPut(h.prefix+"/plain/meta", meta),
			clientv3.OpPut(h.prefix+"/plain/run", run)).Commit()
		if err != nil {
			b.Fatal(err)
		}
		ds = append(ds, time.Since(t0))
	}
	reportP50(b, "txn", ds)
}

// BenchmarkFollowerFreshness: from a save's start to a follower (its own client) having
// applied and published that generation; and from the save's acknowledgement.
func BenchmarkFollowerFreshness(b *testing.B) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	h, term := benchDoc(b, 200)
	f := openHome(b, shared.client(b), h.Prefix(), Options{})
	applied := make(chan Snapshot, 16)
	at := make(chan time.Time, 16)
	go f.Follow(ctx, func(s Snapshot) { applied <- s; at <- time.Now() })
	<-applied
	<-at
	fromStart := make([]time.Duration, 0, b.N)
	fromAck := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		d, err := term.Update(ctx, oneRunChange(i))
		if err != nil {
			b.Fatal(err)
		}
		ack := time.Now()
		for {
			s := <-applied
			t := <-at
			if s.Doc.Generation == d.Generation {
				fromStart = append(fromStart, t.Sub(t0))
				fromAck = append(fromAck, max(t.Sub(ack), 0))
				break
			}
		}
	}
	reportP50(b, "commit-to-applied", fromStart)
	reportP50(b, "ack-to-applied", fromAck)
}

// BenchmarkSameMachineTakeover: from a survivor's RevokeDead of a dead writer's lease to
// the waiting campaigner having won.
func BenchmarkSameMachineTakeover(b *testing.B) {
	ctx := context.Background()
	h := newHome(b, Options{Lease: time.Minute})
	ds := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		dead, err := h.Campaign(ctx, ident("laptop", 10))
		if err != nil {
			b.Fatal(err)
		}
		won := make(chan *Term, 1)
		go func() {
			t, err := h.Campaign(ctx, ident("laptop", 11))
			if err != nil {
				b.Error(err)
			}
			won <- t
		}()
		for { // until the waiter's key is there: it is campaigning
			resp, err := h.cli.Get(ctx, h.writerPfx()+"/", clientv3.WithPrefix(), clientv3.WithCountOnly())
			if err != nil {
				b.Fatal(err)
			}
			if resp.Count == 2 {
				break
			}
		}
		// A watch created at a past revision is synced by etcd's 100 ms loop; a survivor
		// waits long before a writer dies, so let the waiter's watch get there first.
		time.Sleep(250 * time.Millisecond)
		t0 := time.Now()
		if err := h.RevokeDead(ctx, dead.Lease()); err != nil {
			b.Fatal(err)
		}
		t := <-won
		ds = append(ds, time.Since(t0))
		t.Resign(ctx)
	}
	reportP50(b, "takeover", ds)
}

// BenchmarkStoreSave: the same one-run change through a store.Store on the DocHome seam,
// with the hold's Check as BeforeSave: the path a window takes.
func BenchmarkStoreSave(b *testing.B) {
	h := newHome(b, Options{})
	hold, ok, err := h.WriterLock(ident("laptop", 10)).TryLock()
	if err != nil || !ok {
		b.Fatalf("TryLock: %v %v", ok, err)
	}
	defer hold.Close()
	st := store.NewOn(b.TempDir(), h.DocHome(), store.Options{BeforeSave: hold.Check})
	if _, err := st.Reload(); err != nil {
		b.Fatal(err)
	}
	st.BeginEpoch()
	defer st.EndEpoch()
	if _, err := st.Update(addRuns(200, "r")); err != nil {
		b.Fatal(err)
	}
	ds := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		if _, err := st.Update(oneRunChange(i)); err != nil {
			b.Fatal(err)
		}
		ds = append(ds, time.Since(t0))
	}
	reportP50(b, "store-save", ds)
}
