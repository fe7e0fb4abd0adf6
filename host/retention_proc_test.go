package host

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"baton/store"
)

// writeArchiveMonth writes archive/runs-<month>.jsonl directly, as years of history would
// have left it: n runs from seq on, every third one of workflow "keep" (ended an hour ago),
// the others of workflow "old" (ended a month ago), each with a log in runs/. It returns
// the ids of each workflow.
func writeArchiveMonth(t *testing.T, home, month string, seq, n int) (keep, old []string) {
	t.Helper()
	for _, dir := range []string{"runs", store.ArchiveDir} {
		if err := os.MkdirAll(filepath.Join(home, dir), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	var b strings.Builder
	now := time.Now().UTC()
	for i := range n {
		s := seq + i
		r := store.Run{Seq: uint64(s), Status: store.StatusSucceeded, Steps: 1}
		if s%3 == 0 {
			r.Workflow, r.Created = "keep", now.Add(-time.Hour)
		} else {
			r.Workflow, r.Created = "old", now.Add(-30*24*time.Hour)
		}
		r.ID = fmt.Sprintf("r%d-%s", s, r.Workflow)
		r.Ended = r.Created.Add(time.Second)
		r.Log = filepath.Join(home, "runs", r.ID+".log")
		line, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(append(line, '\n'))
		if err := os.WriteFile(r.Log, []byte("== step 1 of 1 (s): [\"true\"]\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		if r.Workflow == "keep" {
			keep = append(keep, r.ID)
		} else {
			old = append(old, r.ID)
		}
	}
	path := filepath.Join(home, store.ArchiveDir, "runs-"+month+".jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	written := now.Add(-2 * store.CompactAge) // a past month's file was last written long ago
	if err := os.Chtimes(path, written, written); err != nil {
		t.Fatal(err)
	}
	return keep, old
}

// scanHistory pages through the whole history in reader c and returns the ids listed; it
// fails on any error reply or a run read in the wrong place.
func scanHistory(t *testing.T, c *child) map[string]bool {
	t.Helper()
	seen := map[string]bool{}
	req := map[string]any{"op": "history", "limit": 300}
	for {
		r := c.do(req)
		if r["ok"] != true {
			t.Fatalf("reader's history failed during retention: %v", r)
		}
		var page store.HistoryPage
		b, _ := json.Marshal(r)
		if err := json.Unmarshal(b, &page); err != nil {
			t.Fatal(err)
		}
		for _, run := range page.Runs {
			if run.ID != fmt.Sprintf("r%d-%s", run.Seq, run.Workflow) {
				t.Fatalf("reader read run %s as seq %d of %s", run.ID, run.Seq, run.Workflow)
			}
			seen[run.ID] = true
		}
		if page.Next == 0 {
			return seen
		}
		req = map[string]any{"op": "history", "limit": 300, "before": page.Next}
	}
}

// TestRetentionPassWhileAReaderReadsHistory: the writer's retention passes remove the old
// workflow's logs and archived runs, month after month of history, while another window
// (a real process) pages through the history the whole time: every page it asks for is
// answered, every run in its right place, and every kept run is in every full scan. At
// the end every dropped run's log is gone and so is its record, but for the newest old run
// of each earlier month: it was kept when its file was compacted, and its record waits in
// that file, rewritten less than a day ago, for the next day's compaction.
func TestRetentionPassWhileAReaderReadsHistory(t *testing.T) {
	t.Parallel()
	w, tm := retentionHome(t)
	home := w.Home()
	ctx := context.Background()
	for _, name := range []string{"old", "keep"} {
		if _, err := w.Intents().AddWorkflow(ctx, store.Workflow{Name: name, Steps: []store.Step{{Argv: []string{"true"}}}}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := w.Intents().SetRetention(ctx, "old", &store.Retention{KeepRuns: 1, KeepFor: store.Duration(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	reader := startChild(t, home)
	if role := reader.initialRole(); role != "reader" {
		t.Fatalf("the child is %s, want reader", role)
	}
	var keep, old, waiting []string
	seq := 1
	scans, overlapped := 0, 0
	for month := 1; month <= 4; month++ {
		if len(old) > 0 {
			waiting = append(waiting, old[len(old)-1])
		}
		k, o := writeArchiveMonth(t, home, fmt.Sprintf("2025-%02d", month), seq, 1500)
		keep, old = append(keep, k...), append(old, o...)
		seq += 1500
		done := make(chan error, 1)
		go func() {
			rep, err := w.retain(tm, time.Now())
			if err == nil && rep.LogsRemoved == 0 {
				err = fmt.Errorf("pass removed nothing: %+v", rep)
			}
			done <- err
		}()
		for finished := false; !finished; {
			select {
			case err := <-done:
				if err != nil {
					t.Fatal(err)
				}
				finished = true
			default:
				overlapped++
			}
			seen := scanHistory(t, reader)
			scans++
			for _, id := range keep {
				if !seen[id] {
					t.Fatalf("scan %d (month %d) lacks kept run %s", scans, month, id)
				}
			}
		}
	}
	newestOld := old[len(old)-1]
	seen := scanHistory(t, reader)
	for _, id := range old[:len(old)-1] {
		if seen[id] && !slices.Contains(waiting, id) {
			t.Fatalf("old run %s still listed after the passes", id)
		}
	}
	if len(seen) != len(keep)+1+len(waiting) || !seen[newestOld] {
		t.Errorf("history lists %d runs, want the %d kept, %s and the %d waiting", len(seen), len(keep), newestOld, len(waiting))
	}
	logs := logsIn(t, home)
	if want := slices.Sorted(slices.Values(append(slices.Clone(keep), newestOld))); !slices.Equal(logs, want) {
		t.Errorf("%d logs left, want %d", len(logs), len(want))
	}
	t.Logf("%d full scans, %d of them while a pass ran", scans, overlapped)
	if overlapped == 0 {
		t.Error("no scan overlapped a pass: the test proved nothing")
	}
}
