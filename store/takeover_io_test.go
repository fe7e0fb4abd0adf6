package store

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
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
// (a restored copy) is a change, and the re-read takes it.
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
	if err := os.WriteFile(path, old, 0o600); err != nil {
		t.Fatal(err)
	}
	d, err := s.Reload()
	if err != nil {
		t.Fatal(err)
	}
	if names(d) != "a" {
		t.Fatalf("re-read after a save and a restore has workflows %q, want %q", names(d), "a")
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
