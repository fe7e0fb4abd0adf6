package host

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"sync/atomic"
	"testing"
	"time"
)

// An idle scheduling pass saves nothing and leaves the document as it is (it tries on a
// copy of the schedules and runs first); a pass that finds an occurrence due saves it.
func TestIdleSchedulePassSavesNothing(t *testing.T) {
	var clock atomic.Int64
	clock.Store(time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC).UnixNano())
	w := schedulerWindow(t, Options{NoScheduler: true, Now: func() time.Time { return time.Unix(0, clock.Load()).UTC() }})
	ctx := context.Background()
	if _, err := Call(ctx, w, &Request{Op: "add_workflow", Workflow: wfJSON("job")}); err != nil {
		t.Fatal(err)
	}
	if _, err := Call(ctx, w, &Request{Op: "add_schedule", Schedule: json.RawMessage(`{"workflow":"job","every":"1h"}`)}); err != nil {
		t.Fatal(err)
	}
	term := w.currentTerm()
	if term == nil {
		t.Fatal("not the writer")
	}
	w.schedulePass(term) // settles what a new schedule's first pass decides
	before, _ := w.st.View()
	kept := before.Clone()
	for range 5 {
		w.schedulePass(term)
	}
	after, _ := w.st.View()
	if after != before {
		t.Fatalf("idle passes saved: generation %d -> %d", before.Generation, after.Generation)
	}
	if !reflect.DeepEqual(after, kept) {
		t.Fatal("an idle pass changed the document in memory")
	}
	clock.Add(int64(2 * time.Hour))
	w.schedulePass(term)
	due, _ := w.st.View()
	if due.Generation == before.Generation || len(due.Runs) != 1 || due.Runs[0].Schedule == "" {
		t.Fatalf("the due occurrence was not saved: generation %d, runs %+v", due.Generation, due.Runs)
	}
	if !reflect.DeepEqual(before, kept) {
		t.Fatal("the pass that found an occurrence due changed the older document in memory")
	}
}

// BenchmarkIdleSchedulePass measures a scheduling pass that finds nothing due, on a home
// of 1,000 workflows and 20 schedules: what an idle writer does every second. Run:
//
//	go test -run '^$' -bench BenchmarkIdleSchedulePass -benchmem ./host/
func BenchmarkIdleSchedulePass(b *testing.B) {
	w := schedulerWindow(b, Options{NoScheduler: true})
	ctx := context.Background()
	for i := range 1000 {
		if _, err := Call(ctx, w, &Request{Op: "add_workflow", Workflow: wfJSON(fmt.Sprintf("wf%04d", i))}); err != nil {
			b.Fatal(err)
		}
	}
	for i := range 20 {
		if _, err := Call(ctx, w, &Request{Op: "add_schedule", Schedule: json.RawMessage(fmt.Sprintf(`{"workflow":"wf%04d","every":"1h"}`, i))}); err != nil {
			b.Fatal(err)
		}
	}
	term := w.currentTerm()
	w.schedulePass(term)
	b.ReportAllocs()
	for b.Loop() {
		w.schedulePass(term)
	}
}

// schedulerWindow opens and starts a window on a new home with opts: the writer, whose
// scheduling passes the caller drives.
func schedulerWindow(tb testing.TB, opts Options) *Window {
	tb.Helper()
	w, err := Open(tb.TempDir(), opts)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { w.Close() })
	if err := w.Start(); err != nil {
		tb.Fatal(err)
	}
	return w
}
