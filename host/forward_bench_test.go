package host

import (
	"testing"
	"time"
)

// BenchmarkForward: a forwarded write as a script sees it: from the request line sent to
// a reader window's control channel to its reply, through requests/, the writer's save
// (which records the request in the same save) and replies/. The op is update_workflow,
// which always saves. "direct" is the same request sent to the writer itself.
//
//	go test -tags batontest ./host -run '^$' -bench BenchmarkForward -benchtime 300x
func BenchmarkForward(b *testing.B) {
	home := b.TempDir()
	w := startChild(b, home)
	if w.initialRole() != "writer" {
		b.Fatal("the first window is not the writer")
	}
	w.ok(addWF("bench", 1, "fail"))
	r := startChild(b, home)
	if r.initialRole() != "reader" {
		b.Fatal("the second window is not a reader")
	}
	update := func() map[string]any {
		req := addWF("bench", 1, "fail")
		req["op"], req["forward"] = "update_workflow", true
		return req
	}
	for _, bc := range []struct {
		name string
		to   *child
	}{{"forwarded", r}, {"direct", w}} {
		b.Run(bc.name, func(b *testing.B) {
			var lat []time.Duration
			for b.Loop() {
				t0 := time.Now()
				bc.to.ok(update())
				lat = append(lat, time.Since(t0))
			}
			p50, p99 := pct(lat)
			b.ReportMetric(p50, "p50_ms")
			b.ReportMetric(p99, "p99_ms")
		})
	}
}
