package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"baton/host"
	"baton/store"
	"baton/ui/view"
)

// damagedHome makes a home whose workflows.json is gone beside the rest of its files (a
// damaged home: acknowledged saves may be missing), with workflow "keep" saved in it.
func damagedHome(t *testing.T) string {
	t.Helper()
	home := newHome(t)
	w := startWriter(t, home)
	addWorkflow(t, w, "keep", "true")
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(home, store.FileName)); err != nil {
		t.Fatal(err)
	}
	return home
}

func damagedFolders(t *testing.T, home string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(home, store.DamagedPrefix+"*"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestRecoverFromTheProblemBar (issue 19): a window on a damaged home offers Recover… in
// its problem bar; it shows what will be restored, what is lost and where the damaged
// files go, and asks with a button naming the act; Escape changes nothing; Enter recovers,
// says so, and the window becomes the writer with what was saved. A window that does not
// hold state.lock shows the plan and says it may not recover, and a recovery it tries
// anyway is refused in words, changing nothing.
func TestRecoverFromTheProblemBar(t *testing.T) {
	isolate(t)
	home := damagedHome(t)
	w := openCore(t, home)
	m, q := newUI(t, w)
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	q.waitFor(t, "the damage said", func() bool { return strings.Contains(m.Role.Label.Text, "damaged") })
	if !m.Role.Recover.Visible() || m.Role.Recover.Text != view.RecoverButton {
		t.Fatalf("the problem bar %q offers no %s", m.Role.Label.Text, view.RecoverButton)
	}

	// Another window on the home: it does not hold state.lock.
	other, err := host.Open(home, host.Options{NoWait: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { other.Close() })
	m2, q2 := newUI(t, other)
	if err := other.Start(); err != nil {
		t.Fatal(err)
	}
	q2.waitFor(t, "the other window's damage said", func() bool { return m2.Role.Recover.Visible() })
	test.Tap(m2.Role.Recover)
	q2.waitFor(t, "the other window's plan", func() bool { return strings.Contains(overlayText(m2), "Restores:") })
	if txt := overlayText(m2); !strings.Contains(txt, view.RecoverNotHolder) || overlayButton(m2, view.RecoverAction) != nil {
		t.Errorf("the window without state.lock shows %q, with %s: %v", txt, view.RecoverAction, overlayButton(m2, view.RecoverAction) != nil)
	}
	typeKey(t, m2, fyne.KeyEscape)
	m2.recover() // as if it had asked before the other took the lock
	q2.waitFor(t, "the other window's refusal", func() bool { return strings.Contains(overlayText(m2), "Not recovered") })
	if txt := overlayText(m2); !strings.Contains(txt, "state.lock") {
		t.Errorf("the refusal says %q", txt)
	}
	if d := damagedFolders(t, home); len(d) != 0 {
		t.Fatalf("a refused recovery moved files: %v", d)
	}

	// The window that holds the lock: the plan, Escape, then Enter.
	tabTo(t, m, m.Role.Recover, view.RecoverButton) // reachable from the keyboard
	test.Tap(m.Role.Recover)
	q.waitFor(t, "the plan", func() bool { return overlayButton(m, view.RecoverAction) != nil })
	txt := overlayText(m)
	for _, want := range []string{"What is wrong:", "Restores: generation", "Lost", store.DamagedPrefix, "never deleted"} {
		if !strings.Contains(txt, want) {
			t.Errorf("the plan %q does not say %q", txt, want)
		}
	}
	if overlayButton(m, view.ConfirmBack) == nil {
		t.Errorf("the plan has no %q", view.ConfirmBack)
	}
	typeKey(t, m, fyne.KeyEscape)
	if m.Win.Canvas().Overlays().Top() != nil {
		t.Fatal("Escape left the plan open")
	}
	q.settle(100 * time.Millisecond)
	if _, err := os.Stat(filepath.Join(home, store.FileName)); err == nil || len(damagedFolders(t, home)) != 0 {
		t.Fatalf("Escape recovered the home (stat %v, %v)", err, damagedFolders(t, home))
	}
	test.Tap(m.Role.Recover)
	q.waitFor(t, "the plan again", func() bool { return overlayButton(m, view.RecoverAction) != nil })
	typeKey(t, m, fyne.KeyReturn)
	q.waitFor(t, "the result", func() bool { return strings.Contains(overlayText(m), "Recovered:") })
	q.waitFor(t, "the writer", roleIs(m, "Writer"))
	if txt := overlayText(m); !strings.Contains(txt, store.DamagedPrefix) {
		t.Errorf("the result %q does not say where the damaged files are", txt)
	}
	if m.doc.Workflow("keep") == nil {
		t.Errorf("the recovered home lacks the saved workflow: %v", m.doc.Workflows)
	}
	if d := damagedFolders(t, home); len(d) != 1 {
		t.Errorf("damaged files moved to %v, want one folder", d)
	}
	if m.Role.Recover.Visible() {
		t.Error("Recover… still offered on a recovered home")
	}
	typeKey(t, m, fyne.KeyReturn)
	if m.Win.Canvas().Overlays().Top() != nil {
		t.Error("Enter left the result open")
	}
}
