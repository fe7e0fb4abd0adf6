package host

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"baton/host/proc"
	"baton/internal/forgetfs"
	"baton/store"
	"baton/workflow"
)

// Power cuts, not only kill -9: a killed process loses nothing the kernel already has, so
// these tests put the home on a file system that forgets, at a simulated power cut,
// whatever was not fsynced (internal/forgetfs), and check after the cut that every save
// acknowledged before it is there, that nothing unacknowledged is half there (the
// document reads whole), that the home opens, and that no run starts twice.

// powerHome mounts a forgetting file system for the test and returns it and a home path
// in it that does not exist yet: the first window makes it.
func powerHome(t *testing.T) (*forgetfs.FS, string) {
	t.Helper()
	f := forgetfs.Start(t)
	return f, filepath.Join(f.Dir(), "home")
}

// cutPower cuts the power under home: from this instant nothing more becomes durable;
// the windows cs, and every supervisor and step of the home, are killed (kill -9, all
// windows at once, then their reaping); the mount refuses everything after, and its
// backing folder is put back to what was durable.
func cutPower(t *testing.T, f *forgetfs.FS, home string, cs ...*child) {
	t.Helper()
	err := f.PowerCut(func() {
		for _, c := range cs {
			if c.cmd.ProcessState == nil {
				_ = c.cmd.Process.Signal(syscall.SIGKILL)
			}
		}
		for _, c := range cs {
			c.kill()
		}
		proc.KillAll(nil, [][]string{{workflow.EnvHome + "=" + home}}, 10*time.Second)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// durableHome is where home's durable state lies after a cut (the backing folder).
func durableHome(f *forgetfs.FS, home string) string {
	rel, _ := filepath.Rel(f.Dir(), home)
	return filepath.Join(f.Backing(), rel)
}

// lostAfterCut reads home's document as it survived a cut and says what is wrong with it:
// the home is gone, the document does not read whole, or a workflow in acked is missing.
func lostAfterCut(f *forgetfs.FS, home string, acked []string) []string {
	dir := durableHome(f, home)
	if _, err := os.Stat(dir); err != nil {
		return []string{fmt.Sprintf("the home is gone after the cut: %v", err)}
	}
	d, err := store.ReadHome(dir)
	if err != nil {
		return []string{fmt.Sprintf("the home's document does not read after the cut: %v", err)}
	}
	var out []string
	for _, n := range acked {
		if d.Workflow(n) == nil {
			out = append(out, fmt.Sprintf("acknowledged workflow %q is missing after the cut (generation %d)", n, d.Generation))
		}
	}
	return out
}

// reopenAfterCut mounts the durable state again, opens a window on home and waits for it
// to be the writer: the home opens. It returns the window.
func reopenAfterCut(t *testing.T, f *forgetfs.FS, home string) *child {
	t.Helper()
	f.Remount(t)
	c := startChild(t, home)
	c.waitWriter(30 * time.Second)
	return c
}

// addAcked adds workflows name-0 .. name-(n-1) through c, each acknowledged, and returns
// their names.
func addAcked(c *child, name string, n int) []string {
	var out []string
	for i := range n {
		w := fmt.Sprintf("%s-%d", name, i)
		c.ok(addWF(w, 1, "fail"))
		out = append(out, w)
	}
	return out
}

// TestPowerCutNewHome: a home made just now keeps its first acknowledged saves through a
// power cut. Its folder is made by the window (MkdirDurable syncs the parent); the first
// saves go to a new workflows.json and a new log, whose names are durable only with the
// home's fsync.
func TestPowerCutNewHome(t *testing.T) {
	f, home := powerHome(t)
	a := startChild(t, home)
	a.waitWriter(30 * time.Second)
	acked := addAcked(a, "acked", 3)
	cutPower(t, f, home, a)
	for _, p := range lostAfterCut(f, home, acked) {
		t.Error(p)
	}
	if t.Failed() {
		return
	}
	c := reopenAfterCut(t, f, home)
	names := c.snapshot().names()
	for _, n := range acked {
		if !contains(names, n) {
			t.Errorf("the reopened home lacks acknowledged %q: %v", n, names)
		}
	}
}

// errSkipUnused is what a scenario returns when its durability point was not reached.
var errSkipUnused = errors.New("the scenario did not reach its durability point")
