package host

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"baton/store"
)

// A window on an etcd home decides about a window of this machine and folder by its
// local evidence, as the folder does (a free instance lock: dead). Windows of other
// machines are judged by their election keys: TestEtcdRunCutOffNoOverlap and
// TestEtcdAdoptAcrossMachines (etcd_runs_proc_test.go).
func TestEtcdEvidenceLocalProof(t *testing.T) {
	local := t.TempDir()
	self, err := newIdentity()
	if err != nil {
		t.Fatal(err)
	}
	ev := etcdEvidence{folderEvidence{home: local}, nil}
	// A window of this machine and folder that is gone: its instance file, lock free.
	dead := store.Owner{PID: 1, Start: 1, Boot: self.Boot, Instance: "gone-here"}
	if err := os.MkdirAll(filepath.Join(local, InstancesDir), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(instancePath(local, dead.Instance), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if alive, why := ev.OwnerAlive(self, dead); alive {
		t.Fatalf("a window of this machine whose instance lock is free was taken for alive: %s", why)
	}
}

// The options of an etcd home are checked before anything is dialled: a lease under 2 s
// and --local on a folder home are refused, saying why.
func TestEtcdOptionsRefused(t *testing.T) {
	t.Parallel()
	_, err := Open("etcd://127.0.0.1:1/p", Options{Etcd: EtcdOptions{Lease: time.Second, Local: t.TempDir()}})
	if err == nil || !strings.Contains(err.Error(), "--lease 1s is too short") {
		t.Fatalf("lease 1s: %v", err)
	}
	_, err = Open(t.TempDir(), Options{Etcd: EtcdOptions{Local: t.TempDir()}})
	if err == nil || !strings.Contains(err.Error(), "is for an etcd home") {
		t.Fatalf("--local on a folder home: %v", err)
	}
	if _, err := Open("etcd://127.0.0.1:1/", Options{}); err == nil || !strings.Contains(err.Error(), "prefix is missing") {
		t.Fatalf("no prefix: %v", err)
	}
	t0 := time.Now()
	if _, err := Open("etcd://127.0.0.1:1/p", Options{Etcd: EtcdOptions{Local: t.TempDir()}}); err == nil || !strings.Contains(err.Error(), "cannot be reached") {
		t.Fatalf("an etcd nobody serves: %v", err)
	}
	t.Logf("refused an unreachable etcd in %s", time.Since(t0).Round(time.Millisecond))
	m, _, err := machineID(func(k string) string {
		if k == EnvMachine {
			return "laptop"
		}
		return ""
	})
	if err != nil || m != "laptop" {
		t.Fatalf("BATON_MACHINE: %q %v", m, err)
	}
}
