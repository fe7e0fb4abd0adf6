package host

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"sync/atomic"
	"testing"
	"time"

	"baton/store"
)

// An idle scheduling pass saves nothing and leaves the document as it is (it tries on a
// copy of the schedules and runs first); a pass that finds an occurrence due saves it.
func TestIdleSchedulePassSavesNothing(t *testing.T) {
	t.Parallel()
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

// TestSchedulePassLeavesTheSnapshotAlone: the pass tried first on a copy (which shares
// the runs unless one is a live scheduled run, the only kind a pass changes in place)
// never writes into the document in memory, even when it marks a run past its
// max_runtime.
func TestSchedulePassLeavesTheSnapshotAlone(t *testing.T) {
	t.Parallel()
	w, clock := sleepingWorkflowWindow(t, "slow")
	ctx := context.Background()
	if _, err := Call(ctx, w, &Request{Op: "add_schedule", Schedule: json.RawMessage(`{"workflow":"slow","every":"1h","max_runtime":"1m","catch_up":"none"}`)}); err != nil {
		t.Fatal(err)
	}
	term := w.currentTerm()
	w.schedulePass(term)
	clock.Add(int64(time.Hour + time.Second))
	w.schedulePass(term) // the occurrence is due: its run starts
	var id string
	for deadline := time.Now().Add(30 * time.Second); id == ""; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the scheduled run never ran")
		}
		d, _ := w.st.View()
		for _, r := range d.Runs {
			if r.Schedule != "" && r.Status == store.StatusRunning {
				id = r.ID
			}
		}
	}
	t.Cleanup(func() { _, _ = w.Intents().CancelRun(context.Background(), id) })
	before, _ := w.st.View()
	kept := before.Clone()
	clock.Add(int64(2 * time.Minute)) // past max_runtime
	w.schedulePass(term)
	after, _ := w.st.View()
	if r := after.Run(id); r == nil || !r.Overrun {
		t.Fatalf("the run past max_runtime was not marked: %+v", r)
	}
	if !reflect.DeepEqual(before, kept) {
		t.Fatal("the pass that marked an overrun changed the older document in memory")
	}
}

// BenchmarkIdleSchedulePass measures a scheduling pass that finds nothing due, on a home
// of 1,000 workflows, 20 schedules and 500 finished runs in the document (as many as it
// keeps): what an idle writer does every second. Run:
//
//	go test -tags batontest -run '^$' -bench BenchmarkIdleSchedulePass -benchmem ./host/
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
	if _, err := term.Update(ctx, func(d *store.Doc) error {
		now := time.Now().UTC()
		for i := range 500 {
			d.Seq++
			code := 0
			d.Runs = append(d.Runs, store.Run{ID: fmt.Sprintf("r%d-bench", d.Seq), Seq: d.Seq,
				Workflow: fmt.Sprintf("wf%04d", i%1000), Status: store.StatusSucceeded, Steps: 1,
				Owner: &store.Owner{PID: 4242, Start: 1, Boot: "boot", Instance: "inst"}, OwnerPID: 4242,
				Created: now, Started: now, Ended: now, ExitCode: &code, Log: fmt.Sprintf("runs/r%d.log", d.Seq)})
		}
		return nil
	}); err != nil {
		b.Fatal(err)
	}
	w.schedulePass(term)
	b.ReportAllocs()
	for b.Loop() {
		w.schedulePass(term)
	}
}

// TestReplaceOfAQueuedRunIsSaved: replace of a scheduled run still queued (its lane taken
// by a manual run) finishes it in the pass's save, where every reader sees it, and the pass
// tried first on a copy leaves the document in memory alone (it shared the queued run,
// the change then looked like no change, and the disk kept the run queued).
func TestReplaceOfAQueuedRunIsSaved(t *testing.T) {
	t.Parallel()
	w, clock := sleepingWorkflowWindow(t, "lane")
	ctx := context.Background()
	manual, _, err := w.Intents().StartRun(ctx, "lane", "by hand")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = w.Intents().CancelRun(context.Background(), manual.ID) })
	if _, err := Call(ctx, w, &Request{Op: "add_schedule", Schedule: json.RawMessage(`{"workflow":"lane","every":"1h","overlap":"replace","catch_up":"none"}`)}); err != nil {
		t.Fatal(err)
	}
	term := w.currentTerm()
	w.schedulePass(term)
	clock.Add(int64(time.Hour + time.Second))
	w.schedulePass(term) // due: its run waits, the lane taken
	var queued string
	d, _ := w.st.View()
	for _, r := range d.Runs {
		if r.Schedule != "" && r.Status == store.StatusQueued {
			queued = r.ID
		}
	}
	if queued == "" {
		t.Fatal("the scheduled run is not queued behind the manual one")
	}
	before, _ := w.st.View()
	kept := before.Clone()
	clock.Add(int64(time.Hour))
	w.schedulePass(term) // due again: replaces the queued run
	if !reflect.DeepEqual(before, kept) {
		t.Fatal("the pass changed the older document in memory")
	}
	disk, err := store.New(w.Home(), store.Options{}).Reload()
	if err != nil {
		t.Fatal(err)
	}
	if r := disk.Run(queued); r == nil || r.Status != store.StatusCancelled {
		t.Fatalf("the replaced queued run on disk: %+v, want cancelled", r)
	}
}

// schedulerWindow opens and starts a window on a new home with opts: the writer, whose
// scheduling passes the caller drives.
// sleepingWorkflowWindow is a writer window whose scheduler runs only when the test calls
// it, on a clock the test moves, with workflow name: one lane, a step that sleeps 60 s.
func sleepingWorkflowWindow(t *testing.T, name string) (*Core, *atomic.Int64) {
	t.Helper()
	clock := new(atomic.Int64)
	clock.Store(time.Now().UTC().UnixNano())
	w := schedulerWindow(t, Options{NoScheduler: true, Now: func() time.Time { return time.Unix(0, clock.Load()).UTC() }})
	def := json.RawMessage(fmt.Sprintf(`{"name":%q,"max_concurrent":1,"on_owner_lost":"fail","steps":[{"name":"s","argv":["sleep","60"]}]}`, name))
	if _, err := Call(context.Background(), w, &Request{Op: "add_workflow", Workflow: def}); err != nil {
		t.Fatal(err)
	}
	return w, clock
}

func schedulerWindow(tb testing.TB, opts Options) *Core {
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
