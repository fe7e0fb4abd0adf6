package ui

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	fyneapp "fyne.io/fyne/v2/app"
)

// prefsAppID is the app id of the preference writers: their file is
// $XDG_CONFIG_HOME/fyne/<id>/preferences.json.
const prefsAppID = "dev.baton.prefstest"

// prefsWriter is one window of the app, without a window on screen: the real app and
// driver (its preferences file, its watcher of that file, its save at exit). It sets key
// to a new large value 40 times (each set saves the file, at most every 100 ms, as Fyne
// debounces), then quits.
func prefsWriter(key string) int {
	a := fyneapp.NewWithID(prefsAppID)
	big := strings.Repeat("x", 512<<10) // a save takes long enough for a reader to catch it half-written
	a.Lifecycle().SetOnStarted(func() {
		go func() {
			for i := range 40 {
				fyne.DoAndWait(func() { a.Preferences().SetString(key, fmt.Sprintf("%d %s", i, big)) })
				time.Sleep(30 * time.Millisecond) // pace the sets; nothing waits on this
			}
			fyne.Do(a.Quit)
		}()
	})
	a.Run()
	return 0
}

// Settings shared by windows are written safely: Fyne's preferences file, which every
// window of the app reads again whenever another one writes it (the remembered theme and
// window sizes are in it), is replaced atomically (Baton's patch in
// .third_party/fyne/app/preferences_nonweb.go). Three real app processes save large
// preferences over and over while this test reads the file as fast as it can: every read
// is one whole JSON document, and no window says "Preferences load error" (upstream
// truncated the file and wrote it in place: a window loading it meanwhile read it empty,
// "Cause: EOF"). Needs Xvfb (the real driver needs a display); skipped, saying so, without.
func TestPreferencesSharedByWindowsAreWrittenSafely(t *testing.T) {
	display := startXvfb(t)
	config := t.TempDir()
	path := filepath.Join(config, "fyne", prefsAppID, "preferences.json")
	type proc struct {
		cmd    *exec.Cmd
		stderr *bytes.Buffer
	}
	var procs []proc
	for _, key := range []string{"theme", "width", "height"} {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), "DISPLAY="+display, "XDG_CONFIG_HOME="+config, "BATON_TEST_PREFS_KEY="+key)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		procs = append(procs, proc{cmd, &stderr})
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	for _, p := range procs {
		wg.Add(1)
		go func() { defer wg.Done(); _ = p.cmd.Wait() }()
	}
	go func() { wg.Wait(); close(done) }()
	t.Cleanup(func() {
		for _, p := range procs {
			_ = p.cmd.Process.Kill()
		}
		<-done
	})

	reads, torn := 0, 0
	var example string
	deadline := time.After(3 * time.Minute)
	for running := true; running; {
		select {
		case <-done:
			running = false
		case <-deadline:
			t.Fatal("the app processes did not finish within 3 minutes")
		default:
		}
		b, err := os.ReadFile(path)
		if errors.Is(err, os.ErrNotExist) {
			continue // before the first save
		}
		if err != nil {
			t.Fatal(err)
		}
		reads++
		var m map[string]any
		if json.Unmarshal(b, &m) != nil {
			torn++
			if example == "" {
				example = fmt.Sprintf("%d bytes: %.40q…", len(b), b)
			}
		}
	}
	t.Logf("%d reads of %s while 3 windows saved it, %d torn", reads, path, torn)
	if torn > 0 {
		t.Errorf("%d of %d reads found the preferences file half-written (e.g. %s)", torn, reads, example)
	}
	for _, p := range procs {
		if !p.cmd.ProcessState.Success() {
			t.Errorf("app process exited with %v: %s", p.cmd.ProcessState, p.stderr)
		}
		if s := p.stderr.String(); strings.Contains(s, "Preferences load error") || strings.Contains(s, "Failed on saving preferences") {
			t.Errorf("a window could not read or write the shared preferences:\n%s", s)
		}
	}
	if reads == 0 {
		t.Fatal("the preferences file was never written")
	}
}
