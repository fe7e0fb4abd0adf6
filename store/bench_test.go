package store

import (
	"fmt"
	"testing"
	"time"
)

// Benchmarks of the document store at 100, 10,000 and 100,000 recorded runs (recorded = ever
// created; beyond the recent window they live in the archive). Run:
//
//	go test -tags batontest -run '^$' -bench 'BenchmarkSave|BenchmarkReload' -benchtime=2000x ./store/
//
// Each reports ns/op per size and, on the 100,000 case, x_vs_100: its cost over the
// 100-run case measured in the same run.

// benchSizes are the recorded-run counts every benchmark is run at.
var benchSizes = []int{100, 10_000, 100_000}

// benchWorkflows is how many workflows the benchmark home has. With the default window of
// 50 finished runs per workflow, 100 recorded runs already fill the document's window.
const benchWorkflows = 2

// benchRun is a finished run with the fields a real one carries.
func benchRun(seq uint64, wf string, now time.Time) Run {
	code := 0
	return Run{ID: fmt.Sprintf("r%d-%08x", seq, seq*2654435761%(1<<32)), Seq: seq, Workflow: wf,
		Status: StatusSucceeded, OwnerPID: 4242,
		Owner: &Owner{PID: 4242, Start: 123456789, Boot: "5c1a3a0e-8d9b-4c43-9e0f-7b1f1b2c3d4e",
			Instance: "0f8fad5b-d9cb-469f-a165-70867728950e"},
		Step: 0, Steps: 1, Created: now, Started: now, Ended: now.Add(time.Second), ExitCode: &code,
		Log: fmt.Sprintf("/home/user/.config/baton/logs/r%d.log", seq)}
}

// prefill makes home a store with recorded finished runs spread over the bench workflows,
// archived as Update archives them, and returns the store as the writer.
func prefill(tb testing.TB, home string, recorded int) *Store {
	tb.Helper()
	s := New(home, Options{})
	if _, err := s.Reload(); err != nil {
		tb.Fatal(err)
	}
	s.BeginEpoch()
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	if _, err := s.Update(func(d *Doc) error {
		for i := range benchWorkflows {
			d.Workflows = append(d.Workflows, testWorkflow(fmt.Sprintf("wf%d", i)))
		}
		d.Runs = make([]Run, 0, recorded)
		for range recorded {
			d.Seq++
			d.Runs = append(d.Runs, benchRun(d.Seq, fmt.Sprintf("wf%d", d.Seq%benchWorkflows), now))
		}
		return nil
	}); err != nil {
		tb.Fatal(err)
	}
	return s
}

// recordFinished is the operation the Save benchmark measures: one save that records a run.
func recordFinished(tb testing.TB, s *Store) {
	if _, err := s.Update(func(d *Doc) error {
		d.Seq++
		d.Runs = append(d.Runs, benchRun(d.Seq, fmt.Sprintf("wf%d", d.Seq%benchWorkflows), time.Now().UTC()))
		return nil
	}); err != nil {
		tb.Fatal(err)
	}
}

// BenchmarkSave measures one durable save that records a finished run (refresh check,
// clone, validate, archive when a batch is due, encode, temp file, fsync, rename, fsync
// folder).
func BenchmarkSave(b *testing.B) {
	perSize(b, func(b *testing.B, s *Store) {
		for b.Loop() {
			recordFinished(b, s)
		}
	})
}

// BenchmarkReload measures a re-read of workflows.json after a change (read, decode of the
// runs that changed, validate): what a reader does after every save. The save that
// records one run before each re-read is not timed.
func BenchmarkReload(b *testing.B) {
	perSize(b, func(b *testing.B, s *Store) {
		r := New(s.Dir(), Options{})
		if _, err := r.Reload(); err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			b.StopTimer()
			recordFinished(b, s)
			b.StartTimer()
			if _, err := r.Reload(); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkReloadUnchanged measures a forced re-read of a file that did not change since
// it was read: what a takeover does first when the reader followed the last save (read
// and compare the whole file, no decode).
func BenchmarkReloadUnchanged(b *testing.B) {
	perSize(b, func(b *testing.B, s *Store) {
		r := New(s.Dir(), Options{})
		for b.Loop() {
			if _, err := r.Reload(); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// perSize runs fn at each size and reports, on the largest, the ratio to the smallest.
func perSize(b *testing.B, fn func(*testing.B, *Store)) {
	nsAt := map[int]float64{}
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("runs=%d", n), func(b *testing.B) {
			s := prefill(b, b.TempDir(), n)
			b.ResetTimer()
			fn(b, s)
			b.StopTimer()
			doc, _ := s.View()
			b.ReportMetric(float64(len(doc.Runs)), "runs_in_doc")
			ns := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
			nsAt[n] = ns
			if n == benchSizes[len(benchSizes)-1] && nsAt[benchSizes[0]] > 0 {
				b.ReportMetric(ns/nsAt[benchSizes[0]], "x_vs_100")
			}
		})
	}
}
