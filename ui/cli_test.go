package ui

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
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
	quietUnderEveryLocale(t, bin)
}

// quietUnderEveryLocale: the command-line paths say nothing about Fyne or locales on stderr,
// whatever the locale. LANG=C.UTF-8 is the default of Debian and Ubuntu servers and
// containers and of many systemd units and cron jobs, where Fyne's lang package, linked into
// every baton command, used to log "Fyne error: Error parsing user locale C" at start-up.
func quietUnderEveryLocale(t *testing.T, bin string) {
	for _, c := range []struct {
		name string
		env  []string
	}{
		{"LANG=C.UTF-8", []string{"LANG=C.UTF-8"}},
		{"LANG=C.utf8", []string{"LANG=C.utf8"}},
		{"LANG=C", []string{"LANG=C"}},
		{"LANG=POSIX", []string{"LANG=POSIX"}},
		{"unset", nil},
		{"LANG=en_US.UTF-8", []string{"LANG=en_US.UTF-8"}},
		{"LC_ALL=C.UTF-8", []string{"LC_ALL=C.UTF-8", "LANG=en_US.UTF-8"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			env := append(cliEnv(t), c.env...)
			home := filepath.Join(t.TempDir(), "home") // made by tick --once, then read
			for _, r := range []struct {
				args []string
				code int
			}{
				{[]string{"--version"}, 0},
				{[]string{"--bogus"}, 2},
				{[]string{"tick"}, 2},
				{[]string{"status", "--home", home}, 1}, // a command never creates a home
				{[]string{"tick", "--once", "--home", home}, 0},
				{[]string{"--headless", "--home", home}, 0}, // stdin at its end at once
				{[]string{"status", "--home", home}, 0},
				{[]string{"runs", "--json", "--home", home}, 0},
				{[]string{"run", "nope", "--home", home}, 1},
				{[]string{"run"}, 2},
			} {
				cmd := exec.Command(bin, r.args...)
				cmd.Env = env
				cmd.Stdin = strings.NewReader("")
				var out, errb bytes.Buffer
				cmd.Stdout, cmd.Stderr = &out, &errb
				code := 0
				if err := cmd.Run(); err != nil {
					ee, ok := err.(*exec.ExitError)
					if !ok {
						t.Fatal(err)
					}
					code = ee.ExitCode()
				}
				low := strings.ToLower(errb.String())
				if code != r.code || strings.Contains(low, "fyne") || strings.Contains(low, "locale") {
					t.Errorf("baton %s: exit %d (want %d); stderr must say nothing of Fyne or locales:\n%s",
						strings.Join(r.args, " "), code, r.code, errb.String())
				}
			}
		})
	}
}

// cliEnv is this process's environment without locale variables and without BATON_HOME,
// with the user config and cache folders in temp folders.
func cliEnv(t *testing.T) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if k == "LANG" || k == "LANGUAGE" || strings.HasPrefix(k, "LC_") || k == "BATON_HOME" ||
			k == "XDG_CONFIG_HOME" || k == "XDG_CACHE_HOME" {
			continue
		}
		env = append(env, kv)
	}
	return append(env, "XDG_CONFIG_HOME="+t.TempDir(), "XDG_CACHE_HOME="+t.TempDir())
}

// TestWindowQuietLocale: a real window under LANG=C.UTF-8 (the locale a desktop session
// started from a server-style systemd unit or a container gets) says nothing about Fyne or
// locales on stderr from start to a SIGTERM close.
func TestWindowQuietLocale(t *testing.T) {
	needX(t)
	display := startXvfb(t)
	bin := buildApp(t)
	a, _ := startApp(t, bin, filepath.Join(t.TempDir(), "home"), display, append(cliEnv(t), "LANG=C.UTF-8"))
	if err := a.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	<-a.done
	if code := a.cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("window exit %d", code)
	}
	if low := strings.ToLower(a.stderr.String()); strings.Contains(low, "fyne") || strings.Contains(low, "locale") {
		t.Errorf("the window's stderr must say nothing of Fyne or locales:\n%s", a.stderr)
	}
}

// TestEmptyHomeIsUsageError: an empty --home is a usage error (exit 2) for the window,
// headless, tick and every command; it never means the default home.
func TestEmptyHomeIsUsageError(t *testing.T) {
	bin := buildApp(t)
	for _, args := range [][]string{{"--home", ""}, {"--headless", "--home="}, {"tick", "--once", "--home", ""}, {"status", "--home", ""}} {
		cmd := exec.Command(bin, args...)
		cmd.Env = append(os.Environ(), "LANG=en_US.UTF-8", "XDG_CONFIG_HOME="+t.TempDir(), "XDG_CACHE_HOME="+t.TempDir())
		cmd.Stdin = strings.NewReader("")
		var errb bytes.Buffer
		cmd.Stderr = &errb
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if code != 2 || !strings.Contains(errb.String(), "--home is empty") {
			t.Errorf("baton %q: exit %d, %q; want 2", args, code, errb.String())
		}
	}
}
