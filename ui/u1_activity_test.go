package ui

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"baton/host"
	"baton/store"
)

// TestActivityLineOpensInFull: a line longer than the list is cut, and selecting it shows
// every word of it, wrapped inside the list's width; the line below moves down to make
// room. New entries arriving keep it open.
func TestActivityLineOpensInFull(t *testing.T) {
	isolate(t)
	a := test.NewTempApp(t)
	now := time.Date(2026, 5, 4, 12, 0, 0, 0, time.Local)
	m := &Main{App: a, opts: Options{Now: func() time.Time { return now }}}
	m.buildActivity()
	long := "Run r3 of backup finished while no window followed it; recorded from its journal (failed: step 2 could not start: " +
		`program "/home/someone/projects/a-very-long-folder-name/and-another-one/build.sh" not found)`
	es := []store.Entry{
		{Time: now.Add(-time.Minute), Kind: "shutdown", PID: 7},
		{Time: now, Kind: "reap", PID: 9, Data: map[string]any{"run": "r3", "workflow": "backup", "owner_pid": float64(41),
			"action": "recorded", "status": "failed", "error": `step 2 (build): cannot start "/home/someone/projects/a-very-long-folder-name/and-another-one/build.sh": fork/exec: no such file or directory`}},
	}
	m.setActivity(es)
	w := test.NewWindow(m.Activity)
	defer w.Close()
	w.Resize(fyne.NewSize(500, 300))
	if m.entries[0].What != strings.Replace(long, "step 2 could", "step 2 (build) could", 1) {
		t.Fatalf("the line reads %q", m.entries[0].What)
	}
	full := m.entries[0].What
	// words returns the words drawn, checking that no text is drawn past the list's
	// width or over another.
	words := func() string {
		var b []string
		ds := drawnTexts(m.Activity, fyne.Position{}, [2]float32{0, 500})
		for k, d := range ds {
			if d.right > 500 {
				t.Errorf("%q is drawn out to %.0f, past the list's width", d.text, d.right)
			}
			for _, e := range ds[k+1:] {
				if d.left < e.right && e.left < d.right && d.top < e.bottom-1 && e.top < d.bottom-1 {
					t.Errorf("%q is drawn over %q", d.text, e.text)
				}
			}
			b = append(b, d.text)
		}
		return strings.Join(b, " ")
	}
	if strings.Contains(words(), "build.sh\" not found)") {
		t.Fatal("the long line is not cut before it is opened: the test proves nothing")
	}
	m.Activity.Select(0)
	if got := words(); !strings.Contains(got, "build.sh\" not found)") || !strings.Contains(got, "Window pid 7 closed") {
		t.Errorf("the opened line and the next do not both show in full: %q (want %q)", got, full)
	}
	m.setActivity(append(es, store.Entry{Time: now.Add(time.Second), Kind: "shutdown", PID: 8}))
	if !m.entries[1].Open || m.entries[0].Open || !strings.Contains(words(), "build.sh\" not found)") {
		t.Error("a new entry closed the line shown in full, or opened another")
	}
}

// TestPersonsChangesAreInTheActivity: a person's changes to workflows and schedules are
// appended to the audit log after they are saved, and the Activity tab lists them in
// words; a change whose audit record cannot be written is still made.
func TestPersonsChangesAreInTheActivity(t *testing.T) {
	home, w, m, q := writerUI(t)
	in, ctx := w.Intents(), context.Background()
	addWorkflow(t, w, "backup", "true")
	if _, err := in.UpdateWorkflow(ctx, store.Workflow{Name: "backup", MaxConcurrent: 2, Steps: []store.Step{{Argv: []string{"true"}}}}); err != nil {
		t.Fatal(err)
	}
	sc, _, err := in.AddSchedule(ctx, store.Schedule{Workflow: "backup", Every: store.Duration(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	for _, paused := range []bool{true, false} {
		if _, err := in.PauseSchedule(ctx, sc.ID, paused); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := in.DeleteSchedule(ctx, sc.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := in.DeleteWorkflow(ctx, "backup"); err != nil {
		t.Fatal(err)
	}
	want := []string{`Workflow "backup" was created`, `Workflow "backup" was changed`,
		"Schedule " + sc.ID + ` of "backup" was added: every 1h`, "Schedule " + sc.ID + ` of "backup" was paused`,
		"Schedule " + sc.ID + ` of "backup" was resumed`, "Schedule " + sc.ID + ` of "backup" was deleted`,
		`Workflow "backup" was deleted`}
	listed := func() []string {
		var out []string
		for i := len(m.entries) - 1; i >= 0; i-- {
			if !strings.HasPrefix(m.entries[i].What, "Window pid") {
				out = append(out, m.entries[i].What)
			}
		}
		return out
	}
	q.waitFor(t, "the changes in the Activity tab", func() bool { return len(listed()) >= len(want) })
	if got := listed(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("the Activity tab lists\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	// A folder stands where the audit log should be: the home is unsafe (something not
	// Baton's is in it), so the window stops writing and says which entry and why. (A
	// change is never refused because the audit log alone could not take its record:
	// store's TestAuditOnAFullDiskLosesNothing and host's TestFullDiskIsSaidOutLoud.)
	log := filepath.Join(w.Status().Home, store.AuditName)
	if err := os.Remove(log); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(log, 0o700); err != nil {
		t.Fatal(err)
	}
	q.waitFor(t, "the window to stop writing, naming the audit log", func() bool {
		st := w.Status()
		return st.Role != host.RoleWriter && strings.Contains(st.Problem, log)
	})
	if _, err := in.AddWorkflow(ctx, store.Workflow{Name: "after", MaxConcurrent: 1, Steps: []store.Step{{Argv: []string{"true"}}}}); err == nil {
		t.Error("a change was made in a home whose audit log is a folder")
	}
	_ = home
}
