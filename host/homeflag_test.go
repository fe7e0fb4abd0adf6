package host

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// --home sanity: a system folder or a folder of other things is never laid out as a home;
// an empty folder becomes one; a command never makes a home; an empty --home is a usage
// error, not the default home.
func TestHomeFlagSanity(t *testing.T) {
	t.Parallel()
	for _, sys := range []string{"/", "/dev", "/proc", "/sys", "/dev/../"} {
		if _, err := Open(sys, Options{}); !errors.Is(err, ErrNotHome) {
			t.Errorf("Open(%q): %v, want ErrNotHome", sys, err)
		}
		if o := cliCmd(sys, "status"); o.code != exitFail || !strings.Contains(o.stderr, "system folder") {
			t.Errorf("status --home %s: exit %d, %q", sys, o.code, o.stderr)
		}
	}
	for _, sys := range []string{"/", "/dev"} {
		if _, err := os.Stat(filepath.Join(sys, InstancesDir)); err == nil {
			t.Fatalf("%s was laid out as a home", sys)
		}
	}

	docs := t.TempDir()
	if err := os.WriteFile(filepath.Join(docs, "notes.txt"), []byte("mine"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(docs, Options{}); !errors.Is(err, ErrNotHome) || !strings.Contains(err.Error(), "notes.txt") {
		t.Fatalf("Open of a folder of other things: %v, want ErrNotHome naming what is there", err)
	}
	if ents, _ := os.ReadDir(docs); len(ents) != 1 {
		t.Fatalf("the refused folder was changed: %v", ents)
	}

	empty := t.TempDir() // an existing empty folder is a new home
	w, err := Open(empty, Options{})
	if err != nil {
		t.Fatalf("Open of an empty folder: %v", err)
	}
	w.Close()
	if w, err = Open(empty, Options{}); err != nil { // and is a home from then on
		t.Fatalf("Open of the new home again: %v", err)
	}
	w.Close()

	missing := filepath.Join(t.TempDir(), "nope")
	fresh := t.TempDir()
	for _, args := range [][]string{{"status"}, {"workflows"}, {"runs"}, {"logs", "r1"}, {"run", "w"}, {"cancel", "r1"}} {
		for _, home := range []string{missing, fresh} {
			o := cliCmd(home, args...)
			if o.code != exitFail || !strings.Contains(o.stderr, "no home at "+home) {
				t.Errorf("%v --home %s: exit %d, %q; want 1 and \"no home at %s\"", args, home, o.code, o.stderr, home)
			}
		}
	}
	if _, err := os.Stat(missing); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a command created the missing home: %v", err)
	}
	if ents, _ := os.ReadDir(fresh); len(ents) != 0 {
		t.Fatalf("a command laid out an empty folder as a home: %v", ents)
	}

	for _, args := range [][]string{{"status"}, {"runs", "--json"}, {"logs", "r1"}} {
		var out lockedBuf
		o := <-cliStart(&out, append(args, "--home", ""))
		if o.code != exitUsage || !strings.Contains(o.stderr, "--home is empty") {
			t.Errorf("%v --home '': exit %d, %q; want 2", args, o.code, o.stderr)
		}
	}
}
