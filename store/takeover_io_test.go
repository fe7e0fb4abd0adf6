package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// What a takeover does to the store, made cheap: its re-read and its first save.
//
// A re-read that finds the very bytes of the document in memory skips the decode (the
// takeover's step 2 after following the last save). These tests pin down that it skips
// only then: the bytes it compares with must be those of the document in memory, also
// after this store's own saves, and the comparison must be of the whole file.

// TestRereadOfUnchangedFileKeepsTheDocument: a forced re-read of a file that did not
// change returns the document already in memory, not a new decode of it.
func TestRereadOfUnchangedFileKeepsTheDocument(t *testing.T) {
	dir := t.TempDir()
	checkFileValid(t, dir)
	s := writer(t, dir)
	if _, err := s.Update(addWF("a")); err != nil {
		t.Fatal(err)
	}
	r := New(dir, Options{})
	first, err := r.Reload()
	if err != nil {
		t.Fatal(err)
	}
	again, err := r.Reload()
	if err != nil {
		t.Fatal(err)
	}
	if again != first {
		t.Fatal("a re-read of an unchanged file decoded it again")
	}
}

// TestRereadAfterOwnSaveSeesOlderBytes: after a save, the bytes a re-read compares with
// are the saved file's. A file put back to the bytes this store loaded before its save
// (a restored copy) is a change, and the re-read sees it: as damage, since the log
// follows the newer file.
func TestRereadAfterOwnSaveSeesOlderBytes(t *testing.T) {
	dir := t.TempDir()
	checkFileValid(t, dir)
	path := filepath.Join(dir, FileName)
	if _, err := writer(t, dir).Update(addWF("a")); err != nil {
		t.Fatal(err)
	}
	old, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := writer(t, dir) // loaded the file with "a"
	if _, err := s.Update(addWF("b")); err != nil {
		t.Fatal(err)
	}
	if err := s.Checkpoint(); err != nil { // the save is in workflows.json, not only the log
		t.Fatal(err)
	}
	if err := os.WriteFile(path, old, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Reload(); !errors.Is(err, ErrDamaged) {
		t.Fatalf("re-read after a save and a restore of an older copy: %v", err)
	}
}

// TestRereadComparesTheWholeFile: a file of the same size that differs in one byte is
// decoded, even with the stamp of the file before.
func TestRereadComparesTheWholeFile(t *testing.T) {
	dir := t.TempDir()
	checkFileValid(t, dir)
	path := filepath.Join(dir, FileName)
	s := writer(t, dir)
	if _, err := s.Update(addWF("aa")); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	edited := bytes.Replace(data, []byte(`"aa"`), []byte(`"ab"`), 1)
	if bytes.Equal(edited, data) {
		t.Fatal("test setup: the name is not in the file")
	}
	if err := os.WriteFile(path, edited, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	d, err := s.Reload()
	if err != nil {
		t.Fatal(err)
	}
	if names(d) != "ab" {
		t.Fatalf("re-read of an edited file has workflows %q, want %q", names(d), "ab")
	}
}

// TestEncodeCacheForgetsArchivedRuns: the encoder's cache is kept from save to save, not
// rebuilt; a save whose document no longer has some runs (archived) drops them, so the
// cache holds the runs of the last document only, and the bytes stay MarshalIndent's.
func TestEncodeCacheForgetsArchivedRuns(t *testing.T) {
	var c codec
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	doc := emptyDoc()
	doc.Workflows = append(doc.Workflows, testWorkflow("a"))
	for seq := range uint64(5) {
		doc.Runs = append(doc.Runs, benchRun(seq+1, "a", now))
	}
	for _, keep := range []int{5, 3, 3, 1} {
		doc = doc.Clone()
		doc.Runs = doc.Runs[len(doc.Runs)-keep:]
		got, err := c.encode(doc)
		if err != nil {
			t.Fatal(err)
		}
		if want, _ := json.MarshalIndent(doc, "", "  "); string(got) != string(want)+"\n" {
			t.Fatalf("with %d runs the cached encoding differs from MarshalIndent", keep)
		}
		if len(c.enc) != keep {
			t.Fatalf("after a save of %d runs the encoder caches %d", keep, len(c.enc))
		}
	}
}

// TestReadFileTrustsNoStaleSize: the read is sized by the stat taken before it, but a file
// that grew since is read whole, and the size cap still holds.
func TestReadFileTrustsNoStaleSize(t *testing.T) {
	dir := t.TempDir()
	small, grown := filepath.Join(dir, "small"), filepath.Join(dir, "grown")
	want := bytes.Repeat([]byte("x"), 5000)
	if err := os.WriteFile(small, []byte("0123456789"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(grown, want, 0o600); err != nil {
		t.Fatal(err)
	}
	stale, err := os.Stat(small) // the stat of the file before it grew
	if err != nil {
		t.Fatal(err)
	}
	got, err := readFile(grown, stale, 1<<20)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("read %d bytes, %v; want all %d", len(got), err, len(want))
	}
	if _, err := readFile(grown, stale, 4999); !errors.Is(err, ErrTooLarge) || !errors.Is(err, ErrUnreadable) {
		t.Fatalf("a file grown past the cap read with %v, want ErrTooLarge", err)
	}
}
