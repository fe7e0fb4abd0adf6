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
// typing, Down), opens it and runs it (Ctrl+R): the run is in workflows.json. Before that,
// the keyboard opens a run of `seq 1 20000` (Ctrl+L, Enter, Enter) and Home scrolls its
// log to line 1 on the screen (issue 22, bug 2); Alt+H opens the Help menu and Left, Left
// the Run menu, on the screen.
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
	counting := store.Workflow{Name: "counting", Steps: []store.Step{{Argv: []string{"seq", "1", "20000"}}}}
	if _, err := w.Intents().AddWorkflow(context.Background(), counting); err != nil {
		t.Fatal(err)
	}
	if _, _, err := w.Intents().StartRun(context.Background(), counting.Name, ""); err != nil {
		t.Fatal(err)
	}
	waitDoc(t, home, "the run of seq 1 20000 to end", func(d *store.Doc) bool { return len(d.Runs) == 1 && !d.Runs[0].Active() })
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	a, _ := startApp(t, bin, home, display, themed(appEnv(t), ThemeLight))
	ref := newReferences(t)
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
	// The whole log, from the keyboard: the runs filter (Ctrl+L), Enter to the run, Enter to
	// its log, which shows its end; Home scrolls to its first line, 108 KiB earlier, past
	// what the pane first read.
	a.keys(t, display, "ctrl+l")
	a.keys(t, display, "Return")
	a.keys(t, display, "Return")
	tail := ref.focusedLog(ThemeLight, "19998\n19999\n20000")
	head := ref.focusedLog(ThemeLight, `== step 1 of 1 (step 1): ["seq" "1" "20000"]`+"\n1\n2\n3")
	a.see(t, display, []look{tail}, []look{head})
	a.keys(t, display, "Home")
	a.see(t, display, []look{head}, []look{tail})

	// The menus: Alt+H opens Help; Left, Left reach Run; Escape closes the bar.
	helpMenu, runMenu := ref.menuItem(ThemeLight, "Keyboard shortcuts"), ref.menuItem(ThemeLight, "Cancel run")
	a.keys(t, display, "alt+h")
	a.see(t, display, []look{helpMenu}, []look{runMenu})
	a.keys(t, display, "Left")
	a.keys(t, display, "Left")
	a.see(t, display, []look{runMenu}, []look{helpMenu})
	a.keys(t, display, "Escape")
	a.see(t, display, nil, []look{runMenu, helpMenu})

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
