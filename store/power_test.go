package store

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"baton/store/storetest/forgetfs"
)

// Power cuts in one process, for the durability points the multi-process scenarios
// (host/power_proc_test.go) cannot reach alone, because another sync of the same folder
// follows soon after in a window: the audit log's name, and the log's new cycle after a
// checkpoint. Each test runs once as is and once with its point switched off, which must
// lose something.

// withSkipped switches durability point p off for the rest of the test ("" switches none).
func withSkipped(t *testing.T, p string) {
	if p == "" {
		return
	}
	old := skipSyncs
	skipSyncs = map[string]bool{p: true}
	t.Cleanup(func() { skipSyncs = old })
}

// eachControl runs check as is (it must find nothing lost) and with point switched off
// (it must find something lost).
func eachControl(t *testing.T, point string, check func(t *testing.T) []string) {
	for _, p := range []string{"", point} {
		name := "control"
		if p != "" {
			name = "skip-" + p
		}
		t.Run(name, func(t *testing.T) {
			withSkipped(t, p)
			lost := check(t)
			if p == "" {
				for _, l := range lost {
					t.Error(l)
				}
			} else if len(lost) == 0 {
				t.Errorf("with %s switched off nothing was lost at the cut: the test does not catch it", p)
			}
		})
	}
}

func cutNow(t *testing.T, f *forgetfs.FS) {
	t.Helper()
	if err := f.PowerCut(nil); err != nil {
		t.Fatal(err)
	}
}

// TestPowerCutAuditName: the first record of a new audit log survives a cut.
func TestPowerCutAuditName(t *testing.T) {
	eachControl(t, SyncAuditFolder, func(t *testing.T) []string {
		f := forgetfs.Start(t)
		if err := NewAudit(f.Dir()).Append(Clean{Removed: []string{"x"}}); err != nil {
			t.Fatal(err)
		}
		cutNow(t, f)
		es, err := NewAudit(f.Backing()).Read(0)
		if err != nil || len(es) != 1 {
			return []string{fmt.Sprintf("the audit record is lost at the cut: %d entries, %v", len(es), err)}
		}
		return nil
	})
}

// TestPowerCutAfterCheckpoint: a cut right after a checkpoint (workflows.json saved whole,
// the log's new cycle begun, no frame since) leaves a home that reads with everything. The
// new cycle's header needs no sync of its own for that (SyncWALCycle): the old cycle's
// frames are all in the file, and the next frame's fdatasync covers the header; this test
// says so, and would catch it if the log ever refused the older header.
func TestPowerCutAfterCheckpoint(t *testing.T) {
	withSkipped(t, SyncWALCycle)
	for _, l := range cutAfterCheckpoint(t) {
		t.Error(l)
	}
}

func cutAfterCheckpoint(t *testing.T) []string {
	f := forgetfs.Start(t)
	home := filepath.Join(f.Dir(), "home")
	if err := MkdirDurable(home); err != nil {
		t.Fatal(err)
	}
	s := writerStore(t, home, Options{CheckpointAfter: time.Hour}, "w0")
	for i := 1; i < 4; i++ {
		if _, err := s.Update(func(d *Doc) error {
			d.Workflows = append(d.Workflows, testWorkflow(fmt.Sprintf("w%d", i)))
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Checkpoint(); err != nil {
		t.Fatal(err)
	}
	s.EndEpoch()
	cutNow(t, f)
	d, err := ReadHome(filepath.Join(f.Backing(), "home"))
	if err != nil {
		return []string{fmt.Sprintf("the home does not read after the cut: %v", err)}
	}
	var lost []string
	for i := range 4 {
		if d.Workflow(fmt.Sprintf("w%d", i)) == nil {
			lost = append(lost, fmt.Sprintf("w%d is lost", i))
		}
	}
	return lost
}

// TestPowerCutCompaction: the archive's compaction rewrites a file without the runs it
// drops; a cut right after keeps every other run.
func TestPowerCutCompaction(t *testing.T) {
	eachControl(t, SyncReplaceFile, func(t *testing.T) []string {
		f := forgetfs.Start(t)
		home := filepath.Join(f.Dir(), "home")
		if err := MkdirDurable(home); err != nil {
			t.Fatal(err)
		}
		a := NewArchive(home, 0)
		var runs []Run
		for i := range 6 {
			runs = append(runs, Run{ID: fmt.Sprintf("r%d", i+1), Seq: uint64(i + 1), Workflow: "a",
				Status: StatusSucceeded, Steps: 1, Created: time.Now().UTC()})
		}
		if err := a.Append(runs); err != nil {
			t.Fatal(err)
		}
		drop := map[string]bool{"r1": true, "r2": true, "r3": true, "r4": true}
		if st, err := a.Compact(drop, 1<<30, func() error { return nil }); err != nil || st.Rewritten != 1 {
			t.Fatalf("compaction: %+v, %v; want the file rewritten", st, err)
		}
		cutNow(t, f)
		all, _, err := NewArchive(filepath.Join(f.Backing(), "home"), 0).Runs()
		if err != nil {
			return []string{fmt.Sprintf("the archive does not read after the cut: %v", err)}
		}
		kept := map[string]bool{}
		for r := range all {
			kept[r.ID] = true
		}
		var lost []string
		for _, r := range runs[4:] {
			if !kept[r.ID] {
				lost = append(lost, fmt.Sprintf("kept run %s is lost", r.ID))
			}
		}
		return lost
	})
}

// TestPowerCutMkdirDurable: folders MkdirDurable made, parents included, survive a cut;
// so does one that was there already but never synced (a process died between its mkdir
// and the sync), which MkdirDurable syncs too.
func TestPowerCutMkdirDurable(t *testing.T) {
	eachControl(t, SyncMkdir, func(t *testing.T) []string {
		var lost []string
		for _, c := range []struct {
			rel  string
			left bool // there already, never synced
		}{{"a/b/c", false}, {"left", true}} {
			f := forgetfs.Start(t)
			dir := filepath.Join(f.Dir(), c.rel)
			if c.left {
				if err := os.Mkdir(dir, 0o700); err != nil {
					t.Fatal(err)
				}
			}
			if err := MkdirDurable(dir); err != nil {
				t.Fatal(err)
			}
			cutNow(t, f)
			if _, err := os.Stat(filepath.Join(f.Backing(), c.rel)); err != nil {
				lost = append(lost, fmt.Sprintf("folder %s is gone after the cut: %v", c.rel, err))
			}
		}
		return lost
	})
}
