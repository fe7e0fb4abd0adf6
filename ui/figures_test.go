package ui

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// BenchmarkLaunchUnderXvfb measures, for a real app process under Xvfb, the time from
// launch to its first drawn frame (and the CPU time it took), its resident memory once
// settled, and the CPU it uses while idle, for an empty home and for one with 1,000
// workflows and 10,000 runs. Each figure is the median (p50) of the b.N launches. It
// asserts nothing; run it with
//
//	go test -run '^$' -bench LaunchUnderXvfb -benchtime 3x ./ui/
func BenchmarkLaunchUnderXvfb(b *testing.B) {
	needX(b)
	display := startXvfb(b)
	bin := buildApp(b)
	// One set of caches for every launch, as a person's launches share theirs: Mesa's
	// shader cache and the font index are filled by the first launch. The first launch
	// ever on a machine costs about 200 ms of CPU more.
	env := appEnv(b)
	// "in-doc": all 10,000 runs in workflows.json, which the first writer then archives (a
	// document no Baton leaves); "archived": the home as Baton keeps it, the newest runs in
	// the document and the rest in archive/.
	for _, c := range []struct {
		wf, runs int
		keep     string
	}{{0, 0, "in-doc"}, {1000, 10000, "in-doc"}, {1000, 10000, "archived"}} {
		b.Run(fmt.Sprintf("workflows=%d,runs=%d,%s", c.wf, c.runs, c.keep), func(b *testing.B) {
			seed := newHome(b)
			seedHomeKeeping(b, seed, c.wf, c.runs, map[string]int{"in-doc": -1, "archived": 0}[c.keep])
			var l launches
			for i := 0; i < b.N; i++ {
				l.add(launchOnce(b, bin, copyHome(b, seed), display, env))
			}
			l.report(b, fmt.Sprintf("workflows=%d runs=%d", c.wf, c.runs))
		})
	}
}

// SettleSpan is how long BenchmarkLaunchUnderXvfb lets a window settle after its first
// frame; IdleSpan is how long it then watches its CPU.
const SettleSpan, IdleSpan = 12 * time.Second, 5 * time.Second

// launch is what one launch of the app measured.
type launch struct {
	frame         time.Duration // from exec to the first drawn frame on the screen
	frameCPU      time.Duration // the CPU time the window had used when its first frame was seen
	rssKB, anonKB int           // resident memory once settled, and the anonymous part of it (Go heap, malloc)
	idleCPU       float64       // CPU time per wall second while idle, in ms/s
}

// launchOnce starts the app on home, waits for its first frame, lets it settle, and
// measures its memory and its idle CPU. The window has a fresh home each launch: the
// first window on a home archives runs, and later ones would measure a smaller home.
//
// It starts the process itself rather than with startApp, whose wait for the window
// (xdotool search --sync) looks only every 500 ms: a frame drawn at 0.3 s would be seen
// at 0.5 s at the earliest.
func launchOnce(b *testing.B, bin, home, display string, env []string) launch {
	b.Helper()
	// The X server drops a killed window's last frame a moment after the kill.
	pollScreen(b, display, "the screen still shows the last window", func(colours int) bool { return colours <= 8 })
	cmd := exec.Command(bin, "--home", home)
	cmd.Env = append(env, "DISPLAY="+display)
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	pid := cmd.Process.Pid
	l := launch{frame: firstFrame(b, display, t0)}
	l.frameCPU = cpuTime(b, pid)
	// Settle: the first renders, the takeover's save, watchers, caches, and the writer's
	// first retention pass, 10 s after its takeover (on the big home it reads the whole
	// history: 100 ms of CPU and, for a while, more memory).
	time.Sleep(SettleSpan)
	cpu0, w0 := cpuTime(b, pid), time.Now()
	time.Sleep(IdleSpan)
	used, wall := cpuTime(b, pid)-cpu0, time.Since(w0)
	l.idleCPU = float64(used.Microseconds()) / 1000 / wall.Seconds()
	l.rssKB = smapsKB(b, pid, "Rss")
	l.anonKB = smapsKB(b, pid, "Anonymous")
	return l
}

// launches collects the launches of one case.
type launches []launch

func (ls *launches) add(l launch) { *ls = append(*ls, l) }

// report reports the median of each figure as a metric and logs every launch.
func (ls launches) report(b *testing.B, name string) {
	b.Helper()
	med := func(f func(launch) float64) float64 {
		v := make([]float64, len(ls))
		for i, l := range ls {
			v[i] = f(l)
		}
		slices.Sort(v)
		return v[len(v)/2]
	}
	b.ReportMetric(med(func(l launch) float64 { return float64(l.frame.Milliseconds()) }), "ms-to-first-frame")
	b.ReportMetric(med(func(l launch) float64 { return float64(l.frameCPU.Milliseconds()) }), "CPU-ms-to-first-frame")
	b.ReportMetric(med(func(l launch) float64 { return float64(l.rssKB) / 1024 }), "MB-RSS")
	b.ReportMetric(med(func(l launch) float64 { return float64(l.anonKB) / 1024 }), "MB-anon")
	b.ReportMetric(med(func(l launch) float64 { return l.idleCPU }), "idle-CPU-ms/s")
	for _, l := range ls {
		b.Logf("%s: first frame %v (CPU %v), RSS %.1f MB (anonymous %.1f MB), idle CPU %.1f ms/s",
			name, l.frame, l.frameCPU, float64(l.rssKB)/1024, float64(l.anonKB)/1024, l.idleCPU)
	}
}

// copyHome copies the seeded home's document and archive, if any, into a fresh home.
func copyHome(b *testing.B, seed string) string {
	b.Helper()
	home := newHome(b)
	if _, err := os.Stat(filepath.Join(seed, "workflows.json")); errors.Is(err, os.ErrNotExist) {
		return home // an empty home: nothing was saved
	}
	err := filepath.WalkDir(seed, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(seed, p)
		switch {
		case d.IsDir() && (rel == "." || rel == "archive"):
			return os.MkdirAll(filepath.Join(home, rel), 0o700)
		case d.IsDir():
			return fs.SkipDir // locks, runs: a fresh home has none
		case rel == "workflows.json" || filepath.Dir(rel) == "archive":
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			return os.WriteFile(filepath.Join(home, rel), data, 0o600)
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	return home
}

// firstFrame polls screenshots of the whole screen, where the only window is the app's,
// until it shows more than Xvfb's two-colour background, and returns the time since t0.
// Each poll costs a few tens of milliseconds.
func firstFrame(b testing.TB, display string, t0 time.Time) time.Duration {
	b.Helper()
	pollScreen(b, display, "the window never drew a frame", func(colours int) bool { return colours > 8 })
	return time.Since(t0)
}

// pollScreen takes screenshots of the whole screen until ok holds for the number of
// colours in one, or fails with why after 20 s.
func pollScreen(b testing.TB, display, why string, ok func(colours int) bool) {
	b.Helper()
	p := filepath.Join(b.TempDir(), "screen.png")
	for t0 := time.Now(); time.Since(t0) < 20*time.Second; time.Sleep(5 * time.Millisecond) {
		cmd := exec.Command("import", "-window", "root", "-display", display, p)
		if cmd.Run() == nil && ok(colours(b, p)) {
			return
		}
	}
	b.Fatal(why)
}

// cpuTime is the CPU time all of pid's threads have used, to the nanosecond (the first
// field of each thread's schedstat; the window only: the teardown keeper is a process of
// its own). The clock ticks of /proc/<pid>/stat count in 10 ms steps: over IdleSpan an
// idle window's 1 ms/s is five ms, half a tick.
func cpuTime(b testing.TB, pid int) time.Duration {
	b.Helper()
	tasks, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/schedstat", pid))
	if err != nil || len(tasks) == 0 {
		b.Fatalf("no threads of pid %d: %v", pid, err)
	}
	var sum time.Duration
	for _, p := range tasks {
		data, err := os.ReadFile(p)
		if err != nil {
			continue // a thread that ended
		}
		f := strings.Fields(string(data))
		if len(f) == 0 {
			b.Fatalf("%s: empty", p)
		}
		ns, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			b.Fatalf("%s: %q", p, data)
		}
		sum += time.Duration(ns)
	}
	return sum
}

// smapsKB reads one field (Rss, Anonymous…) of /proc/<pid>/smaps_rollup, in kB.
func smapsKB(b testing.TB, pid int, field string) int {
	b.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/smaps_rollup", pid))
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			if err != nil {
				b.Fatalf("smaps_rollup %s: %q", field, line)
			}
			return n
		}
	}
	b.Fatalf("no %s in /proc/%d/smaps_rollup", field, pid)
	return 0
}
