package etcdtest

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// orphanEnv makes TestOrphanParent start a cluster, write its members' pids to the file the
// variable names, and wait to be killed.
const orphanEnv = "BATON_ETCDTEST_ORPHAN_PIDS"

// TestOrphanParent is the parent process of TestMembersDieWithTheTest; it does nothing in a
// normal run.
func TestOrphanParent(t *testing.T) {
	out := os.Getenv(orphanEnv)
	if out == "" {
		t.Skip("only the parent process of TestMembersDieWithTheTest")
	}
	c := StartCluster(t, 3)
	var pids []string
	for i := range c.Size() {
		pids = append(pids, strconv.Itoa(c.Member(i).Pid()))
	}
	tmp := out + ".tmp"
	if err := os.WriteFile(tmp, []byte(strings.Join(pids, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, out); err != nil {
		t.Fatal(err)
	}
	select {} // until killed
}

// A test binary killed with SIGKILL (no cleanup runs) leaves no member behind: each dies
// with it (Pdeathsig).
func TestMembersDieWithTheTest(t *testing.T) {
	out := filepath.Join(t.TempDir(), "pids")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	parent := exec.Command(exe, "-test.run=^TestOrphanParent$", "-test.timeout=5m")
	parent.Env = append(os.Environ(), orphanEnv+"="+out)
	parent.Stderr = os.Stderr
	if err := parent.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	var waitErr error
	go func() { waitErr = parent.Wait(); close(exited) }()
	t.Cleanup(func() { parent.Process.Kill(); <-exited })
	pids := waitPids(t, out, exited, &waitErr)
	if err := parent.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-exited
	deadline := time.Now().Add(generous)
	for _, pid := range pids {
		for alive(pid) {
			if time.Now().After(deadline) {
				for _, p := range pids {
					syscall.Kill(p, syscall.SIGKILL)
				}
				t.Fatalf("member pid %d outlived its test process by %v", pid, generous)
			}
			time.Sleep(10 * time.Millisecond) // polling: a non-child's death sends no event
		}
	}
}

// waitPids waits for the parent to write its members' pids.
func waitPids(t *testing.T, path string, exited <-chan struct{}, waitErr *error) []int {
	t.Helper()
	deadline := time.Now().Add(2 * startTimeout)
	for {
		f, err := os.Open(path)
		if err == nil {
			defer f.Close()
			var pids []int
			sc := bufio.NewScanner(f)
			for sc.Scan() {
				pid, err := strconv.Atoi(sc.Text())
				if err != nil || pid <= 0 {
					t.Fatalf("%s: bad pid %q", path, sc.Text())
				}
				pids = append(pids, pid)
			}
			return pids
		}
		select {
		case <-exited:
			t.Fatalf("the parent process ended before its cluster started: %v", *waitErr)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("no pids in %s after %v", path, 2*startTimeout)
		}
		time.Sleep(10 * time.Millisecond) // polling for the parent's file
	}
}

// alive says whether pid is a live process (a zombie is dead).
func alive(pid int) bool {
	st, err := procState(pid)
	return err == nil && st != 'Z' && st != 'X'
}
