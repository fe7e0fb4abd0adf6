package workflow

import (
	"os"
	"slices"
	"syscall"
	"testing"
	"time"

	"baton/store"
)

// Supervisor latencies. By default the supervisor is this test binary re-run; set
// BATON_BENCH_SUPERVISOR to a binary whose `__supervise --home H RUN` calls Supervise
// (a small main, or the real baton) to measure that instead:
//
//	cat > /tmp/supmain/main.go <<'EOF'
//	package main
//
//	import ("os"; "baton/workflow")
//
//	func main() { os.Exit(workflow.Supervise(os.Args[3], os.Args[4])) }
//	EOF
//	go build -o /tmp/baton-sup /tmp/supmain/main.go   # from the module's folder
//	BATON_BENCH_SUPERVISOR=/tmp/baton-sup go test -tags batontest -run '^$' -bench Supervisor ./workflow/

// BenchmarkSupervisorStart measures StartSupervisor's call to the first step's process
// running (p50_ms, p99_ms: the journal's step_start time, taken when the step's exec has
// succeeded), to StartSupervisor's return (ready_: the lock held and the start record on
// disk), and to the start record's time (boot_: the supervisor's exec and Go start-up,
// its spec read, its lock and its journal created; its first fdatasync not included).
func BenchmarkSupervisorStart(b *testing.B) {
	var toStep, toReady, toBoot []time.Duration
	for b.Loop() {
		spec := svSpec(b, store.Step{Argv: []string{"true"}})
		t0 := time.Now()
		sup, err := StartSupervisor(spec)
		if err != nil {
			b.Fatal(err)
		}
		toReady = append(toReady, time.Since(t0))
		j := svStepStarted(b, spec, 0)
		toStep = append(toStep, j.Steps[0].Started.Sub(t0))
		toBoot = append(toBoot, j.Started.Sub(t0))
		if code := svExit(b, sup); code != 0 {
			b.Fatalf("supervisor exit %d", code)
		}
	}
	reportPercentiles(b, toStep, "")
	reportPercentiles(b, toReady, "ready_")
	reportPercentiles(b, toBoot, "boot_")
}

// BenchmarkSupervisorDeathWatch measures kill -9 of a supervisor whose step runs to
// WatchSupervisor's channel closing.
func BenchmarkSupervisorDeathWatch(b *testing.B) {
	var lat []time.Duration
	for b.Loop() {
		spec := svSpec(b, store.Step{Argv: []string{"sleep", "300"}})
		sup, err := StartSupervisor(spec)
		if err != nil {
			b.Fatal(err)
		}
		step := svStepStarted(b, spec, 0).Steps[0]
		dead, stop := WatchSupervisor(spec.Home, spec.RunID)
		svWatchBlocked(b, spec)
		t0 := time.Now()
		_ = syscall.Kill(sup.PID, syscall.SIGKILL)
		<-dead
		lat = append(lat, time.Since(t0))
		stop()
		KillRun(spec.Home, &store.Run{ID: spec.RunID, PGID: step.PGID, StepStart: step.Start}, 10*time.Second)
		svExit(b, sup)
	}
	reportPercentiles(b, lat, "")
}

func reportPercentiles(b *testing.B, d []time.Duration, prefix string) {
	if len(d) == 0 {
		return
	}
	slices.Sort(d)
	ms := func(p int) float64 { return float64(d[(len(d)-1)*p/100]) / float64(time.Millisecond) }
	b.ReportMetric(ms(50), prefix+"p50_ms")
	b.ReportMetric(ms(99), prefix+"p99_ms")
	if bin := os.Getenv("BATON_BENCH_SUPERVISOR"); bin != "" && prefix == "" {
		b.Logf("supervisor binary: %s", bin)
	}
}
