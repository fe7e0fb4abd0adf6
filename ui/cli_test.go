package ui

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestCommandLine drives the real baton binary (main.go's flags and wiring): bad input
// gets a clear error and a non-zero exit; the headless channel works end to end.
func TestCommandLine(t *testing.T) {
	bin := buildApp(t)
	run := func(stdin string, args ...string) (int, string, string) {
		cmd := exec.Command(bin, args...)
		cmd.Env = append(os.Environ(), "LANG=en_US.UTF-8", "XDG_CONFIG_HOME="+t.TempDir(), "XDG_CACHE_HOME="+t.TempDir())
		cmd.Stdin = strings.NewReader(stdin)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return code, out.String(), errb.String()
	}
	if code, out, _ := run("", "--version"); code != 0 || !strings.HasPrefix(out, "baton ") {
		t.Errorf("--version: %d %q", code, out)
	}
	if code, _, errs := run("", "--bogus"); code != 2 || !strings.Contains(errs, "flag provided but not defined: -bogus") {
		t.Errorf("--bogus: %d %q", code, errs)
	}
	if code, _, errs := run("", "stray"); code != 2 || !strings.Contains(errs, `unexpected argument "stray"`) {
		t.Errorf("stray argument: %d %q", code, errs)
	}
	if code, _, errs := run("", "tick"); code != 2 || !strings.Contains(errs, "baton tick --once") {
		t.Errorf("tick without --once: %d %q", code, errs)
	}
	base := t.TempDir()
	real := filepath.Join(base, "real")
	os.Mkdir(real, 0o700)
	os.Symlink(real, filepath.Join(base, "link"))
	if code, _, errs := run("", "--headless", "--home", filepath.Join(base, "link")); code != 1 || !strings.Contains(errs, "symlink") {
		t.Errorf("symlink home: %d %q", code, errs)
	}
	home := filepath.Join(base, "home")
	code, out, _ := run("not json\n{\"id\":7,\"op\":\"frobnicate\"}\n{\"id\":8,\"op\":\"status\"}\n", "--headless", "--home", home)
	if code != 0 {
		t.Fatalf("headless exit %d", code)
	}
	var sawNull, sawUnknown, sawStatus bool
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("stdout line is not JSON: %q", line)
		}
		switch {
		case m["id"] == nil && m["code"] == "invalid":
			sawNull = true
		case m["id"] == 7.0:
			sawUnknown = m["code"] == "invalid" && strings.Contains(m["error"].(string), `unknown op "frobnicate"`)
		case m["id"] == 8.0:
			sawStatus = m["ok"] == true && m["role"] == "writer"
		}
	}
	if !sawNull || !sawUnknown || !sawStatus {
		t.Fatalf("headless replies (null-id invalid %v, unknown op %v, status %v):\n%s", sawNull, sawUnknown, sawStatus, out)
	}
}
