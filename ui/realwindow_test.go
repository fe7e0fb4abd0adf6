package ui

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"image"
	_ "image/png"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"fyne.io/fyne/v2/widget"

	"baton/host"
	"baton/store"
)

// This file drives real app processes under Xvfb: two windows on one home, a run owned by
// the first, kill -9 of the first, and the second taking over. What the windows show is
// checked on the screen (realwindow_screen_test.go). Screenshots are kept as test
// artifacts: in ui/testdata/screenshots when BATON_UPDATE_SCREENSHOTS=1 (the README
// images, with the Timeline and Schedules tabs too), else in $BATON_ARTIFACTS, else in a
// temp folder.

// needX skips, loudly, when the X tools are missing.
func needX(t testing.TB) {
	t.Helper()
	for _, tool := range []string{"Xvfb", "xdotool", "import"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("SKIPPING REAL-WINDOW TEST: %s is not installed (apt-get install xvfb xdotool imagemagick): %v", tool, err)
		}
	}
}

// startXvfb starts a virtual screen and returns its display, ":N". Xvfb picks a free
// display itself (-displayfd), stepping over the stale locks of servers that were killed,
// and is stopped with SIGTERM, so that it removes its own lock and socket.
func startXvfb(t testing.TB) string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var stderr lockedBuffer
	cmd := exec.Command("Xvfb", "-displayfd", "3", "-screen", "0", "1280x800x24", "-nolisten", "tcp")
	cmd.ExtraFiles = []*os.File{w} // fd 3
	cmd.Stderr = &stderr
	err = cmd.Start()
	w.Close()
	if err != nil {
		t.Fatalf("start Xvfb: %v", err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(5 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
	})
	// Xvfb writes the display number when it is ready for clients; EOF if it exited.
	n, err := bufio.NewReader(r).ReadString('\n')
	if err != nil {
		t.Fatalf("Xvfb gave no display: %v\n%s", err, stderr.String())
	}
	return ":" + strings.TrimSpace(n)
}

// buildApp builds the baton binary (with cgo, as the desktop build needs).
func buildApp(t testing.TB) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "baton")
	cmd := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), "build", "-o", bin, "baton")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// lockedBuffer is a bytes.Buffer that the process's output copier and the test may
// use at once.
type lockedBuffer struct {
	mu sync.Mutex // guards b
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// app is one real Baton window process.
type app struct {
	cmd    *exec.Cmd
	stderr *lockedBuffer
	done   chan struct{}
	win    string // X window id
}

func (a *app) pid() int { return a.cmd.Process.Pid }

// startApp starts a window on home and waits until it is on the screen.
func startApp(t testing.TB, bin, home, display string, env []string) (*app, time.Duration) {
	t.Helper()
	a := &app{stderr: &lockedBuffer{}, done: make(chan struct{})}
	a.cmd = exec.Command(bin, "--home", home)
	a.cmd.Env = append(env, "DISPLAY="+display)
	a.cmd.Stderr = a.stderr
	t0 := time.Now()
	if err := a.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { _ = a.cmd.Wait(); close(a.done) }()
	t.Cleanup(func() {
		_ = a.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-a.done:
		case <-time.After(5 * time.Second):
			_ = a.cmd.Process.Kill()
			<-a.done
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	search := exec.CommandContext(ctx, "xdotool", "search", "--sync", "--onlyvisible", "--pid", strconv.Itoa(a.pid()))
	search.Env = append(os.Environ(), "DISPLAY="+display)
	out, err := search.Output()
	if err != nil {
		t.Fatalf("window of pid %d never appeared: %v\nstderr:\n%s", a.pid(), err, a.stderr)
	}
	took := time.Since(t0)
	a.win = strings.Fields(string(out))[0]
	return a, took
}

// xdo runs xdotool on display.
func xdo(t testing.TB, display string, args ...string) {
	t.Helper()
	cmd := exec.Command("xdotool", args...)
	cmd.Env = append(os.Environ(), "DISPLAY="+display)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("xdotool %v: %v\n%s", args, err, out)
	}
}

// keys focuses the window of a and types a key chord in it.
func (a *app) keys(t testing.TB, display, chord string) {
	t.Helper()
	xdo(t, display, "windowraise", a.win)
	xdo(t, display, "windowfocus", "--sync", a.win)
	xdo(t, display, "key", "--clearmodifiers", chord)
}

// screenshot saves shot as name in dir and checks that it is a picture of something (not
// one flat colour).
func screenshot(t testing.TB, dir, name string, shot image.Image) string {
	t.Helper()
	p := filepath.Join(dir, name)
	savePNG(t, p, shot)
	if n := colours(t, p); n < 8 {
		t.Fatalf("%s has %d colours: the window did not draw", p, n)
	}
	return p
}

// colours counts the distinct colours of a sample of the picture at p.
func colours(t testing.TB, p string) int {
	t.Helper()
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, _, err := image.Decode(f)
	if err != nil {
		t.Fatalf("%s: %v", p, err)
	}
	seen := map[[3]uint32]bool{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y += 4 {
		for x := b.Min.X; x < b.Max.X; x += 4 {
			r, g, bl, _ := img.At(x, y).RGBA()
			seen[[3]uint32{r, g, bl}] = true
		}
	}
	return len(seen)
}

// waitDoc waits until the home's document (workflows.json and the frames of
// workflows.wal that follow it) satisfies ok.
func waitDoc(t testing.TB, home, what string, ok func(*store.Doc) bool) *store.Doc {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		d, err := store.ReadHome(home)
		if err == nil && ok(d) {
			return d
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s; the home's document: %+v (%v)", what, d, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func screenshotDir(t testing.TB) string {
	t.Helper()
	if os.Getenv("BATON_UPDATE_SCREENSHOTS") == "1" {
		dir := filepath.Join("testdata", "screenshots")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	if dir := os.Getenv("BATON_ARTIFACTS"); dir != "" {
		dir = filepath.Join(dir, "screenshots")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	return t.TempDir()
}

// appEnv is the environment of the app processes: a real locale, and Fyne's settings
// and caches in temp folders.
func appEnv(t testing.TB) []string {
	t.Helper()
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "DISPLAY", "LANG", "LC_ALL", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "BATON_HOME", "DBUS_SESSION_BUS_ADDRESS",
			"FYNE_SCALE", "FYNE_THEME": // the screen checks draw their references at scale 1, themed as asked
			continue
		}
		env = append(env, kv)
	}
	return append(env, "LANG=en_US.UTF-8", "XDG_CONFIG_HOME="+t.TempDir(), "XDG_CACHE_HOME="+t.TempDir())
}

// seedSleepy prepares home with a workflow whose step sleeps, through a short-lived
// headless core.
func seedSleepy(t testing.TB, home string) {
	t.Helper()
	w, err := host.Open(home, host.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	for _, def := range []store.Workflow{
		{Name: "nightly backup", Steps: []store.Step{{Name: "copy", Argv: []string{"sleep", "300"}}, {Name: "verify", Argv: []string{"true"}}}},
		{Name: "photos sync", MaxConcurrent: 2, Steps: []store.Step{{Argv: []string{"true"}}}},
	} {
		if _, err := w.Intents().AddWorkflow(context.Background(), def); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < 3; i++ { // a little history for the chart and the timeline
		if _, _, err := w.Intents().StartRun(context.Background(), "photos sync", ""); err != nil {
			t.Fatal(err)
		}
	}
	waitDoc(t, home, "the seed runs to finish", func(d *store.Doc) bool {
		for _, r := range d.Runs {
			if r.Active() {
				return false
			}
		}
		return len(d.Runs) == 3
	})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

func noFyneThreadErrors(t testing.TB, name string, a *app) {
	t.Helper()
	if s := a.stderr.String(); strings.Contains(s, "Error in Fyne call thread") {
		t.Errorf("%s (pid %d) wrote 'Error in Fyne call thread':\n%s", name, a.pid(), s)
	}
}

// TestRealWindowsTakeoverAfterKill9 opens two windows on one home, the first (dark theme)
// the writer with a run going, the second (light theme) a reader; kills the first with -9
// and checks, in workflows.json and on the screen, that the second took over: its role bar
// names the dead window and the run it failed, and its write buttons come alive.
func TestRealWindowsTakeoverAfterKill9(t *testing.T) {
	needX(t)
	display := startXvfb(t)
	bin := buildApp(t)
	home, err := host.PrepareHome(newHome(t))
	if err != nil {
		t.Fatal(err)
	}
	seedSleepy(t, home)
	update := os.Getenv("BATON_UPDATE_SCREENSHOTS") == "1"
	if update {
		seedSchedule(t, home)
	}
	env := appEnv(t)
	shots := screenshotDir(t)
	ref := newReferences(t)
	width := int(DefaultSize.Width)

	// The first window becomes the writer and runs the sleepy workflow (Ctrl+R runs the
	// workflow open in the editor, which is the first one).
	w1, took := startApp(t, bin, home, display, themed(env, ThemeDark))
	t.Logf("first window on screen %v after launch", took.Round(time.Millisecond))
	waitDoc(t, home, "window 1 to be the writer", func(d *store.Doc) bool { return d.Writer != nil && d.Writer.PID == w1.pid() })
	w1.keys(t, display, "ctrl+r")
	var runID string
	d := waitDoc(t, home, "a run owned by window 1", func(d *store.Doc) bool {
		for _, r := range d.Runs {
			if r.Workflow == "nightly backup" && r.Status == store.StatusRunning && r.OwnerPID == w1.pid() {
				runID = r.ID
				return true
			}
		}
		return false
	})
	shot := w1.see(t, display, []look{
		ref.roleBar(ThemeDark, width, host.RoleWriter, "Writer"),
		ref.rename(ThemeDark, true), ref.delete(ThemeDark, true),
		ref.message(ThemeDark, fmt.Sprintf("Started run %s; see Runs.", runID), widget.SuccessImportance),
	}, []look{ref.delete(ThemeDark, false)})
	p1 := screenshot(t, shots, "1-writer.png", shot)

	// The second window follows as a reader: its role bar names the writer, and its write
	// buttons are greyed.
	w2, _ := startApp(t, bin, home, display, themed(env, ThemeLight))
	readOnly := fmt.Sprintf("Read-only: window pid %d on this computer is writing (since %s)", w1.pid(), d.Writer.Since.Local().Format("15:04"))
	shot = w2.see(t, display, []look{
		ref.roleBar(ThemeLight, width, host.RoleReader, readOnly),
		ref.ask(ThemeLight),
		ref.rename(ThemeLight, false), ref.delete(ThemeLight, false),
	}, []look{ref.rename(ThemeLight, true), ref.delete(ThemeLight, true)})
	p2 := screenshot(t, shots, "2-read-only.png", shot)

	// Its Runs tab (Ctrl+2) shows the run going and its live log.
	w2.keys(t, display, "ctrl+2")
	shot = w2.see(t, display, []look{ref.logLine(ThemeLight, `== step 1 of 2 (copy): ["sleep" "300"]`)}, nil)
	p3 := screenshot(t, shots, "4-log.png", shot)

	// kill -9 the writer: the reader takes over and fails the run its owner left running.
	if err := w1.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-w1.done
	d = waitDoc(t, home, "window 2 to take over and reap the run", func(d *store.Doc) bool {
		r := d.Run(runID)
		return d.Writer != nil && d.Writer.PID == w2.pid() && r != nil && r.Status == store.StatusFailed
	})
	if r := d.Run(runID); !strings.Contains(r.Error, fmt.Sprintf("pid %d", w1.pid())) {
		t.Errorf("reaped run's error %q does not name the dead window pid %d", r.Error, w1.pid())
	}
	tk := waitTakeover(t, home, w2.pid())
	tookOver := fmt.Sprintf("Writer — took over from pid %d, failed 1 run it left running, %s", w1.pid(), millis(tk.TookMS))
	shot = w2.see(t, display, []look{ref.roleBar(ThemeLight, width, host.RoleWriter, tookOver)},
		[]look{ref.ask(ThemeLight)})
	p4 := screenshot(t, shots, "3-took-over.png", shot)

	// The survivor's write buttons are live (Ctrl+1: the Workflow tab).
	w2.keys(t, display, "ctrl+1")
	w2.see(t, display, []look{ref.rename(ThemeLight, true), ref.delete(ThemeLight, true)}, []look{ref.delete(ThemeLight, false)})
	t.Logf("screenshots: %s %s %s %s", p1, p2, p3, p4)
	if update {
		readmeShots(t, display, shots, w2, ref)
	}

	noFyneThreadErrors(t, "window 1", w1)
	noFyneThreadErrors(t, "window 2", w2)
	_ = w2.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-w2.done:
	case <-time.After(5 * time.Second):
		t.Error("window 2 did not quit on SIGTERM")
	}
	noFyneThreadErrors(t, "window 2", w2)
	if testing.Verbose() {
		t.Logf("window 2 stderr:\n%s", w2.stderr)
	}
}
