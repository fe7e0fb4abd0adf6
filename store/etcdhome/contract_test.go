package etcdhome

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"baton/store"
	"baton/store/storetest/contract"
)

// The seams' contract suite, run against an etcd home.
func TestContract(t *testing.T) {
	contract.Run(t, func(t *testing.T) contract.Home {
		prefix := fmt.Sprintf("contract%d", prefixes.Add(1))
		return contract.Home{
			Open: func(t *testing.T, beforeSave func() error) *store.Store {
				h := openHome(t, shared.client(t), prefix, Options{Lease: 2 * time.Second})
				return store.NewOn(t.TempDir(), h.DocHome(), store.Options{BeforeSave: beforeSave})
			},
			Lock: func(t *testing.T) store.WriterLock {
				h := openHome(t, shared.client(t), prefix, Options{Lease: 2 * time.Second})
				return h.WriterLock(ident("laptop", os.Getpid()))
			},
			Gap: func(t *testing.T, _ *store.Store) {
				cli := shared.client(t)
				resp, err := cli.Get(testCtx(t), "/"+prefix+"/doc/meta")
				if err != nil {
					t.Fatal(err)
				}
				if _, err := cli.Compact(testCtx(t), resp.Header.Revision); err != nil {
					t.Fatal(err)
				}
			},
			Steal: func(t *testing.T, hold store.LockHold) {
				h := openHome(t, shared.client(t), prefix, Options{})
				if err := h.RevokeDead(testCtx(t), hold.(*Hold).Term().Lease()); err != nil {
					t.Fatal(err)
				}
			},
			HoldInChild: func(t *testing.T) func() {
				kill, _ := holdInChild(t, prefix, 2*time.Second)
				return kill
			},
		}
	})
}

// Child processes: the test binary run again with these set holds the writer lock of
// the prefix on the endpoint until it is killed (see runChild, called from TestMain).
const (
	envChildEndpoint = "ETCDHOME_TEST_CHILD_ENDPOINT"
	envChildPrefix   = "ETCDHOME_TEST_CHILD_PREFIX"
	envChildLease    = "ETCDHOME_TEST_CHILD_LEASE"
	envChildMode     = "ETCDHOME_TEST_CHILD_MODE"
)

// holdInChild starts a child that holds the writer lock of prefix over a lease of lease
// and returns once it holds it, with a function that kills it (SIGKILL) and waits for
// it, and its pid.
func holdInChild(t *testing.T, prefix string, lease time.Duration) (func(), int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), envChildEndpoint+"="+shared.endpoint, envChildPrefix+"="+prefix, envChildLease+"="+lease.String())
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || strings.TrimSpace(line) != "held" {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("child: %q %v", line, err)
	}
	return func() {
		cmd.Process.Kill() // SIGKILL: nothing of the child revokes its lease
		cmd.Wait()
	}, cmd.Process.Pid
}

// runChild wins the writer lock and says "held", then waits to be killed.
func runChild(endpoint, prefix, lease string) {
	cli, err := clientv3.New(clientv3.Config{Endpoints: []string{endpoint}, DialTimeout: 10 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	d, err := time.ParseDuration(lease)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	h, err := Open(cli, prefix, Options{Lease: d})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if _, err := h.WriterLock(ident("child", os.Getpid())).Lock(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println("held")
	select {}
}

// TestDocHomeFencedByHold: a Store on an etcd home whose process holds the writer lock
// is fenced by the hold's election key in the commit itself: once its lease is gone, a
// commit is refused (store.ErrFenced) and nothing changes, with no lock check of the
// Store's (BeforeSave) in the way and no other writer having written.
func TestDocHomeFencedByHold(t *testing.T) {
	ctx := testCtx(t)
	h := newHome(t, Options{})
	hold, ok, err := h.WriterLock(ident("laptop", 10)).TryLock()
	if err != nil || !ok {
		t.Fatalf("TryLock: %v %v", ok, err)
	}
	defer hold.Close()
	st := store.NewOn(t.TempDir(), h.DocHome(), store.Options{})
	if _, err := st.Reload(); err != nil {
		t.Fatal(err)
	}
	st.BeginEpoch()
	defer st.EndEpoch()
	if _, err := st.Update(addRuns(1, "a")); err != nil {
		t.Fatal(err)
	}
	if err := h.RevokeDead(ctx, hold.(*Hold).Term().Lease()); err != nil {
		t.Fatal(err)
	}
	before := revision(t, h)
	if _, err := st.Update(addRuns(1, "late")); !errors.Is(err, store.ErrFenced) {
		t.Fatalf("commit after the lease went: %v, want store.ErrFenced", err)
	}
	if after := revision(t, h); after != before {
		t.Fatalf("the refused commit changed the store: revision %d -> %d", before, after)
	}
}
