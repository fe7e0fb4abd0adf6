package ui

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// BenchmarkLaunchUnderXvfb measures, for a real app process under Xvfb, the time from
// launch to the window on screen and to its first drawn frame, and the resident memory
// of a window with an empty home and one with 1,000 workflows and 10,000 runs. It asserts
// nothing about time; run it with
//
//	go test -run '^$' -bench LaunchUnderXvfb -benchtime 1x ./ui/
func BenchmarkLaunchUnderXvfb(b *testing.B) {
	needX(b)
	display := startXvfb(b)
	bin := buildApp(b)
	for _, c := range []struct{ wf, runs int }{{0, 0}, {1000, 10000}} {
		b.Run(fmt.Sprintf("workflows=%d,runs=%d", c.wf, c.runs), func(b *testing.B) {
			home := newHome(b)
			seedHome(b, home, c.wf, c.runs)
			var mapped, frame time.Duration
			var rss int
			for i := 0; i < b.N; i++ {
				t0 := time.Now()
				a, took := startApp(b, bin, home, display, appEnv(b))
				mapped += took
				frame += firstFrame(b, display, a, t0)
				time.Sleep(2 * time.Second) // settle: first renders, watchers, caches
				rss = max(rss, rssKB(b, a.pid()))
				_ = a.cmd.Process.Kill()
				<-a.done
			}
			b.ReportMetric(float64(mapped.Milliseconds())/float64(b.N), "ms-to-window")
			b.ReportMetric(float64(frame.Milliseconds())/float64(b.N), "ms-to-first-frame")
			b.ReportMetric(float64(rss)/1024, "MB-RSS")
			b.Logf("workflows=%d runs=%d: window on screen %v, first frame %v, RSS %.1f MB",
				c.wf, c.runs, mapped/time.Duration(b.N), frame/time.Duration(b.N), float64(rss)/1024)
		})
	}
}

// firstFrame polls screenshots of a's window until it shows more than a flat colour and
// returns the time since t0. Each poll costs a few tens of milliseconds.
func firstFrame(b testing.TB, display string, a *app, t0 time.Time) time.Duration {
	b.Helper()
	p := filepath.Join(b.TempDir(), "frame.png")
	for time.Since(t0) < 20*time.Second {
		cmd := exec.Command("import", "-window", a.win, "-display", display, p)
		if cmd.Run() == nil && colours(b, p) > 8 {
			return time.Since(t0)
		}
		time.Sleep(10 * time.Millisecond)
	}
	b.Fatal("the window never drew a frame")
	return 0
}

// rssKB reads the resident set size of pid from /proc.
func rssKB(b testing.TB, pid int) int {
	b.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			n, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			return n
		}
	}
	b.Fatal("no VmRSS")
	return 0
}
