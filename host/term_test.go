package host

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"baton/store"
)

// TestEndedTermWritesNoSideFile: the files only the writer may write beside the document
// (the previous document, the run archive) are written through the term, which refuses
// once it ended, like bbolt's ErrTxNotWritable: a goroutine of an old term, however late
// it is scheduled, changes none of them in the next term.
func TestEndedTermWritesNoSideFile(t *testing.T) {
	home := t.TempDir()
	w := openStarted(t, home)
	waitRole(t, w, RoleWriter)
	old := w.currentTerm()
	w.endTerm(old, ErrLockLost) // lets the lock go; the window wins it again: a new term
	var next *Term
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(time.Millisecond) {
		if next = w.currentTerm(); next != nil && next != old {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the window did not become the writer again")
		}
	}
	readPrev := func() (uint64, error) {
		b, err := os.ReadFile(filepath.Join(home, store.PrevName))
		if err != nil {
			return 0, err
		}
		var d struct{ Generation uint64 }
		err = json.Unmarshal(b, &d)
		return d.Generation, err
	}
	prevGen := func() uint64 {
		g, err := readPrev()
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	// The new term keeps the previous document itself once it reported writer (takeover
	// housekeeping, in the background): wait for that write, or it could land below and
	// be taken for the ended term's.
	waitRole(t, w, RoleWriter) // the new term's takeover saved
	d, err := next.st.View()
	if err != nil {
		t.Fatal(err)
	}
	took := d.Generation
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(time.Millisecond) { // polls a file
		if g, err := readPrev(); err == nil && g >= took {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the new term did not keep the previous document (generation %d) within 30s", took)
		}
	}
	// The new term saves: its document is newer than workflows.prev.json.
	if _, err := next.Update(context.Background(), func(d *store.Doc) error {
		d.Workflows = append(d.Workflows, oneStep("late", "fail", "true"))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	before := prevGen()
	if err := old.keepPrevious(); !errors.Is(err, ErrReadOnly) {
		t.Fatalf("an ended term kept the previous document: %v", err)
	}
	if g := prevGen(); g != before {
		t.Fatalf("%s rewritten by an ended term: generation %d, was %d", store.PrevName, g, before)
	}
	run := store.Run{ID: "r-late", Seq: 1, Workflow: "late", Status: store.StatusSucceeded, Created: time.Now().UTC()}
	if err := old.appendArchive([]store.Run{run}); !errors.Is(err, ErrReadOnly) {
		t.Fatalf("an ended term appended to the archive: %v", err)
	}
	page, err := w.st.History(store.HistoryQuery{Workflow: "late", Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Runs) != 0 {
		t.Fatalf("the archive holds %d run(s) an ended term appended", len(page.Runs))
	}
	// The live term may.
	if err := next.keepPrevious(); err != nil {
		t.Fatal(err)
	}
	if g := prevGen(); g == before {
		t.Fatalf("the writer's term did not keep the previous document (generation %d)", g)
	}
}
