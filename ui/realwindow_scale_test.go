package ui

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
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
