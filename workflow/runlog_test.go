package workflow

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"baton/store"
)

// TestRunFilesNeverFollowSymlinks: the files of a run in runs/ (its log, journal, spec,
// lock and cancel request) are never opened through a symbolic link: each is refused
// with store.ErrNotOurs, and the file it points to is neither read nor written. A new
// log is created exclusively; an existing one of this user's is appended to.
func TestRunFilesNeverFollowSymlinks(t *testing.T) {
	home := t.TempDir()
	if err := os.MkdirAll(runsDir(home), 0o700); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(t.TempDir(), "outside")
	if err := os.WriteFile(outside, []byte(`{"pid":1}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	const id = "r1-0000abcd"
	for _, p := range []string{logPath(home, id), journalPath(home, id), specPath(home, id), lockPath(home, id), cancelPath(home, id)} {
		if err := os.Symlink(outside, p); err != nil {
			t.Fatal(err)
		}
	}
	if f, err := openRunLogFile(logPath(home, id)); !errors.Is(err, store.ErrNotOurs) {
		if f != nil {
			f.Close()
		}
		t.Fatalf("run log through a symlink: %v", err)
	}
	if _, err := ReadJournal(home, id); !errors.Is(err, store.ErrNotOurs) {
		t.Fatalf("journal through a symlink: %v", err)
	}
	if _, err := readSpec(home, id); !errors.Is(err, store.ErrNotOurs) {
		t.Fatalf("spec through a symlink: %v", err)
	}
	if _, ok := lockHolder(home, id); ok {
		t.Fatal("lock holder read through a symlink")
	}
	if r := cancelReason(home, id); r == `{"pid":1}`+"\n" {
		t.Fatal("cancel reason read through a symlink")
	}
	if b, _ := os.ReadFile(outside); string(b) != `{"pid":1}`+"\n" {
		t.Fatalf("the file outside was written: %q", b)
	}
	// A new log is made exclusively, 0600; opened again it is appended to.
	fresh := logPath(home, "r2-0000abcd")
	for _, line := range []string{"one\n", "two\n"} {
		f, err := openRunLogFile(fresh)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString(line)
		f.Close()
	}
	if b, _ := os.ReadFile(fresh); string(b) != "one\ntwo\n" {
		t.Fatalf("log: %q", b)
	}
	if fi, _ := os.Stat(fresh); fi.Mode().Perm() != 0o600 {
		t.Fatalf("log mode %v", fi.Mode())
	}
}

// TestRunDirNeverASymlink: a run's private folder (where an incremental schedule's step
// writes its next watermark, which Baton reads) that is a symbolic link is refused.
func TestRunDirNeverASymlink(t *testing.T) {
	home, elsewhere := t.TempDir(), t.TempDir()
	if err := os.MkdirAll(runsDir(home), 0o700); err != nil {
		t.Fatal(err)
	}
	dir := RunDir(home, "r1-0000abcd")
	env := map[string]string{EnvWatermarkOut: filepath.Join(dir, "watermark.out")}
	if err := os.Symlink(elsewhere, dir); err != nil {
		t.Fatal(err)
	}
	if err := makeRunDir(dir, env); !errors.Is(err, store.ErrNotOurs) {
		t.Fatalf("run folder that is a symlink: %v", err)
	}
	if err := os.Remove(dir); err != nil {
		t.Fatal(err)
	}
	if err := makeRunDir(dir, env); err != nil {
		t.Fatalf("run folder: %v", err)
	}
}
