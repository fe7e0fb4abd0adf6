package ui

import (
	"strings"
	"testing"
	"time"

	"baton/host"
	"baton/store"
	"baton/workflow"
)

// TestLogCutIsNeverSilent (issue 19 item 6): a run whose log a full disk cut says so where
// its outcome is shown, even when it succeeded, and its row in the runs list carries a
// marker, so that a green "succeeded" with a cut log is never silent.
func TestLogCutIsNeverSilent(t *testing.T) {
	isolate(t)
	home := newHome(t)
	abs, err := host.PrepareHome(home)
	if err != nil {
		t.Fatal(err)
	}
	st := store.New(abs, store.Options{MaxSize: 1 << 30})
	if _, err := st.Reload(); err != nil {
		t.Fatal(err)
	}
	st.BeginEpoch()
	start := time.Now().Add(-time.Hour).UTC()
	code := 0
	_, err = st.Update(func(d *store.Doc) error {
		d.Workflows = append(d.Workflows, store.Workflow{Name: "dump", MaxConcurrent: 1, OnOwnerLost: "fail", Steps: []store.Step{{Argv: []string{"true"}}}})
		for _, cut := range []*store.LogCut{nil, {Kept: 832 * 1024, Reason: "no space left on device"}} {
			d.Seq++
			d.Runs = append(d.Runs, store.Run{ID: workflow.NewRunID(d.Seq), Seq: d.Seq, Workflow: "dump", Status: store.StatusSucceeded,
				Steps: 1, Created: start, Started: start, Ended: start.Add(3 * time.Second), OwnerPID: 4242, ExitCode: &code, LogCut: cut})
		}
		return nil
	})
	st.EndEpoch()
	if err != nil {
		t.Fatal(err)
	}
	w := openCore(t, home)
	m, q := newUI(t, w)
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	q.waitFor(t, "writer", roleIs(m, "Writer"))
	doc := w.Snapshot()
	whole, cut := doc.Runs[0].ID, doc.Runs[1].ID

	m.ShowRun(cut)
	v := m.RunView
	if want := "Log cut at 832.0 KiB: no space left on device"; !v.Error.Visible() || !strings.Contains(v.Error.Text, want) {
		t.Errorf("the succeeded run with a cut log shows %q (shown: %v), want %q", v.Error.Text, v.Error.Visible(), want)
	}
	m.ShowRun(whole)
	if v.Error.Visible() {
		t.Errorf("the run with a whole log shows %q", v.Error.Text)
	}
	rows := map[string]string{}
	for i := range m.runIdx {
		row := newRunRow().(*runRow)
		m.updateRunRow(i, row)
		rows[m.rowRun(i).ID] = row.title.Text + " | " + row.dur.Text
	}
	if !strings.Contains(rows[cut], "log cut") {
		t.Errorf("the cut run's row says %q: no marker", rows[cut])
	}
	if strings.Contains(rows[whole], "log cut") {
		t.Errorf("the whole run's row says %q", rows[whole])
	}
}
