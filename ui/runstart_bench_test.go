//go:build batontest

package ui

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"baton/host"
	"baton/store"
	"baton/workflow"
)

// BenchmarkRunStartFyne measures start_run → the first step's process running (the
// journal's step_start time, taken once the step's exec succeeded) with this test binary,
// which links Fyne, as the runs' supervisor, as the app's binary is: "spare" hands each
// run to the spare supervisor the engine keeps started ahead of time (the app's way);
// "own" turns spares off, so each run starts a supervisor of its own and pays the
// binary's exec and Fyne's package initialisation between start_run and its step:
//
//	CGO_ENABLED=0 go test -tags batontest -run '^$' -bench BenchmarkRunStartFyne -benchtime 100x ./ui/
func BenchmarkRunStartFyne(b *testing.B) {
	for _, spare := range []bool{true, false} {
		b.Run(map[bool]string{true: "spare", false: "own"}[spare], func(b *testing.B) {
			ready := waitSpareIdle
			if !spare {
				defer workflow.SetSpares(false)()
				ready = func(testing.TB) {}
			}
			benchRunStart(b, ready)
		})
	}
}

// benchRunStart starts runs of a step that waits for its gate file, one at a time, in a
// writer window of this process, and reports the start latencies' p50_ms and p99_ms.
// Before each start, ready waits until the window is as a person finds it between runs.
func benchRunStart(b *testing.B, ready func(testing.TB)) {
	b.Setenv("XDG_CONFIG_HOME", b.TempDir())
	home, gates := newHome(b), b.TempDir()
	w, err := host.Open(home, host.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	if err := w.Start(); err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	gated := store.Step{Argv: []string{"sh", "-c", `while [ ! -e "$0/$BATON_RUN_ID" ]; do sleep 0.005; done`, gates}}
	if _, err := w.Intents().AddWorkflow(ctx, store.Workflow{Name: "gated", Steps: []store.Step{gated}}); err != nil {
		b.Fatal(err)
	}
	var lat []time.Duration
	for b.Loop() {
		ready(b)
		t0 := time.Now()
		run, _, err := w.Intents().StartRun(ctx, "gated", "")
		if err != nil {
			b.Fatal(err)
		}
		j := waitRunJournal(b, home, run.ID, func(j workflow.Journal) bool { return len(j.Steps) > 0 })
		lat = append(lat, j.Steps[0].Started.Sub(t0))
		if err := os.WriteFile(filepath.Join(gates, run.ID), nil, 0o600); err != nil {
			b.Fatal(err)
		}
		waitRunDoc(b, w, fmt.Sprintf("run %s recorded", run.ID), func(d *store.Doc) bool {
			r := d.Run(run.ID)
			return r == nil || !r.Active()
		})
	}
	slices.Sort(lat)
	at := func(p int) float64 { return float64(lat[(len(lat)-1)*p/100]) / float64(time.Millisecond) }
	b.ReportMetric(at(50), "p50_ms")
	b.ReportMetric(at(99), "p99_ms")
}

// waitSpareIdle waits until this process's spare supervisor (its child running
// `__supervise --spare`) is started up and waiting for a run: one of its threads is in
// recvmsg(2). Runs started back to back find it still starting up; a person's runs,
// seconds apart, find it waiting.
func waitSpareIdle(tb testing.TB) {
	tb.Helper()
	for deadline := time.Now().Add(30 * time.Second); !spareWaiting(os.Getpid()); {
		if time.Now().After(deadline) {
			tb.Fatal("no spare supervisor waiting for a run after 30s")
		}
		time.Sleep(time.Millisecond) // a process's start-up has no event to wait on
	}
}

// spareWaiting reports whether a child of parent running `__supervise --spare` has a
// thread blocked in recvmsg (x86-64 and arm64 syscall numbers).
func spareWaiting(parent int) bool {
	var kids []string // each thread lists the children it forked
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", parent))
	for _, t := range tasks {
		b, _ := os.ReadFile(t)
		kids = append(kids, strings.Fields(string(b))...)
	}
	for _, f := range kids {
		cmd, _ := os.ReadFile("/proc/" + f + "/cmdline")
		if !strings.HasSuffix(string(cmd), "\x00"+workflow.SuperviseArg+"\x00"+workflow.SpareArg+"\x00") {
			continue
		}
		calls, _ := filepath.Glob("/proc/" + f + "/task/*/syscall")
		for _, c := range calls {
			b, _ := os.ReadFile(c)
			if n := strings.Fields(string(b)); len(n) > 0 && (n[0] == "47" && runtime.GOARCH == "amd64" || n[0] == "212" && runtime.GOARCH == "arm64") {
				return true
			}
		}
	}
	return false
}

// waitRunJournal polls run id's journal (1 ms apart: the latency measured is the journal's
// own timestamp, not when this poll sees it) until cond holds.
func waitRunJournal(b *testing.B, home, id string, cond func(workflow.Journal) bool) workflow.Journal {
	b.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; {
		if j, err := workflow.ReadJournal(home, id); err == nil && cond(j) {
			return j
		}
		if time.Now().After(deadline) {
			b.Fatalf("run %s: its journal never showed the step started", id)
		}
		time.Sleep(time.Millisecond)
	}
}

// waitRunDoc waits, on the window's events, until cond holds for its snapshot.
func waitRunDoc(b *testing.B, w *host.Core, what string, cond func(*store.Doc) bool) {
	b.Helper()
	sub := w.Subscribe()
	defer sub.Close()
	deadline := time.After(30 * time.Second)
	for !cond(w.Snapshot()) {
		select {
		case <-sub.C:
		case <-deadline:
			b.Fatalf("timed out waiting for %s", what)
		}
	}
}
