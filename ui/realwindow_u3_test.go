package ui

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"baton/host"
	"baton/store"
)

// TestRealWindowFitsAScaledScreen (issue 22, bug 5): with FYNE_SCALE=2 a new window on a
// 1280 by 800 screen is no larger than the screen (it was 2360 by 1520: the default size
// in units, doubled).
func TestRealWindowFitsAScaledScreen(t *testing.T) {
	needX(t)
	display := startXvfb(t) // 1280x800
	bin := buildApp(t)
	home := filepath.Join(t.TempDir(), "home")
	a, _ := startApp(t, bin, home, display, append(appEnv(t), "FYNE_SCALE=2"))
	cmd := exec.Command("xdotool", "getwindowgeometry", "--shell", a.win)
	cmd.Env = append(os.Environ(), "DISPLAY="+display)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("xdotool getwindowgeometry: %v", err)
	}
	geo := map[string]int{}
	for _, line := range strings.Fields(string(out)) {
		if k, v, ok := strings.Cut(line, "="); ok {
			geo[k], _ = strconv.Atoi(v)
		}
	}
	if geo["WIDTH"] == 0 || geo["WIDTH"] > 1280 || geo["HEIGHT"] > 800 {
		t.Errorf("at FYNE_SCALE=2 the window is %dx%d on a 1280x800 screen", geo["WIDTH"], geo["HEIGHT"])
	}
}

// TestRealWindowLongNameAndKeyboardPath (issue 22, bugs 1 and 3): on a 1280 by 800
// screen, a window on a home with a 200-character workflow name stays within the screen,
// before and after the name is opened; and the keyboard alone finds that workflow (Ctrl+F,
// typing, Down), opens it and runs it (Ctrl+R): the run is in workflows.json.
func TestRealWindowLongNameAndKeyboardPath(t *testing.T) {
	needX(t)
	display := startXvfb(t)
	bin := buildApp(t)
	home := filepath.Join(t.TempDir(), "home")
	long := strings.Repeat("a-very-long-name ", 6) + "zqx" + strings.Repeat("y", 95)
	w, err := host.Open(home, host.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"short", long} {
		if _, err := w.Intents().AddWorkflow(context.Background(), store.Workflow{Name: name, Steps: []store.Step{{Argv: []string{"true"}}}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	a, _ := startApp(t, bin, home, display, appEnv(t))
	width := func() int {
		cmd := exec.Command("xdotool", "getwindowgeometry", "--shell", a.win)
		cmd.Env = append(os.Environ(), "DISPLAY="+display)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("xdotool getwindowgeometry: %v", err)
		}
		for _, f := range strings.Fields(string(out)) {
			if v, ok := strings.CutPrefix(f, "WIDTH="); ok {
				n, _ := strconv.Atoi(v)
				return n
			}
		}
		return 0
	}
	if got := width(); got == 0 || got > 1280 {
		t.Fatalf("the window is %d px wide on a 1280 px screen", got)
	}
	a.keys(t, display, "ctrl+f")
	xdo(t, display, "type", "--delay", "40", "zqx")
	a.keys(t, display, "Down")
	a.keys(t, display, "ctrl+r")
	waitDoc(t, home, "a run of the long workflow, started from the keyboard", func(d *store.Doc) bool {
		for _, r := range d.Runs {
			if r.Workflow == long {
				return true
			}
		}
		return false
	})
	if got := width(); got > 1280 {
		t.Errorf("with the long name open the window is %d px wide on a 1280 px screen", got)
	}
	noFyneThreadErrors(t, "the window", a)
}
