package etcdhome

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"
	"testing"
	"time"

	"baton/store"
)

func ident(machine string, pid int) Identity {
	return Identity{Machine: machine, Owner: store.Owner{PID: pid, Instance: "inst-" + machine}}
}

// campaign wins the writer election or fails the test.
func campaign(t *testing.T, h *Home, id Identity) *Term {
	t.Helper()
	term, err := h.Campaign(testCtx(t), id)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { term.Resign(context.Background()) })
	return term
}

// TestCampaignOneWriterAndEpochs: a second campaigner blocks while the first holds the
// home, wins when it resigns, and its epoch is higher; Writer names the holder.
func TestCampaignOneWriterAndEpochs(t *testing.T) {
	ctx := testCtx(t)
	h := newHome(t, Options{Lease: 2 * time.Second})
	a := campaign(t, h, ident("laptop", 10))
	id, epoch, err := h.Writer(ctx)
	if err != nil || id.Machine != "laptop" || id.Owner.PID != 10 || epoch != a.Epoch() || id.Lease != a.Lease() {
		t.Fatalf("Writer = %+v, %d, %v; want laptop pid 10 epoch %d lease %x", id, epoch, err, a.Epoch(), a.Lease())
	}
	h2 := openHome(t, shared.client(t), h.Prefix(), Options{Lease: 2 * time.Second})
	won := make(chan *Term, 1)
	go func() {
		b, err := h2.Campaign(ctx, ident("server", 20))
		if err != nil {
			t.Error(err)
		}
		won <- b
	}()
	mustBlock(t, won)
	if err := a.Resign(ctx); err != nil {
		t.Fatal(err)
	}
	b := <-won
	defer b.Resign(context.Background())
	if b.Epoch() <= a.Epoch() {
		t.Fatalf("epoch of the second term %d is not above the first's %d", b.Epoch(), a.Epoch())
	}
	if id, _, _ := h.Writer(ctx); id.Machine != "server" {
		t.Fatalf("Writer after the handover = %+v, want server", id)
	}
}

// TestRevokeDeadWakesTheWaiter: a writer that stops renewing (its client closed, as a
// killed process's would be) keeps the home until its lease expires; RevokeDead by a
// window with the evidence hands it over at once, long before the lease would expire.
func TestRevokeDeadWakesTheWaiter(t *testing.T) {
	ctx := testCtx(t)
	const lease = 60 * time.Second // far longer than the test may wait: only the revoke can end it
	deadCli := shared.client(t)
	hDead := openHome(t, deadCli, "revoke-"+t.Name(), Options{Lease: lease})
	dead, err := hDead.Campaign(ctx, ident("laptop", 10))
	if err != nil {
		t.Fatal(err)
	}
	deadCli.Close() // the process is gone: nothing renews or revokes its lease
	h := openHome(t, shared.client(t), hDead.Prefix(), Options{Lease: lease})
	won := make(chan *Term, 1)
	go func() {
		b, err := h.Campaign(ctx, ident("laptop", 11))
		if err != nil {
			t.Error(err)
		}
		won <- b
	}()
	mustBlock(t, won)
	id, _, err := h.Writer(ctx)
	if err != nil || id.Owner.PID != 10 {
		t.Fatalf("Writer = %+v, %v; want the dead pid 10", id, err)
	}
	if err := h.RevokeDead(ctx, id.Lease); err != nil {
		t.Fatal(err)
	}
	select {
	case b := <-won:
		defer b.Resign(context.Background())
		if b.Epoch() <= dead.Epoch() {
			t.Fatalf("new epoch %d <= dead epoch %d", b.Epoch(), dead.Epoch())
		}
	case <-ctx.Done():
		t.Fatal("the waiter did not win after the dead writer's lease was revoked")
	}
	if err := h.RevokeDead(ctx, id.Lease); err != nil {
		t.Fatalf("revoking a lease already gone: %v", err)
	}
}

// TestDoneWhenLeaseLost: a term's Done closes when its lease is revoked.
func TestDoneWhenLeaseLost(t *testing.T) {
	ctx := testCtx(t)
	h := newHome(t, Options{})
	a := campaign(t, h, ident("laptop", 10))
	if err := h.RevokeDead(ctx, a.Lease()); err != nil {
		t.Fatal(err)
	}
	select {
	case <-a.Done():
	case <-ctx.Done():
		t.Fatal("Done did not close after the lease was revoked")
	}
	if _, _, err := h.Writer(ctx); !errors.Is(err, ErrNoWriter) {
		t.Fatalf("Writer after the revoke: %v, want ErrNoWriter", err)
	}
}

// mustBlock checks that nothing arrives on ch for a while: a negative check, which a
// loaded machine can only make pass more easily, never fail falsely.
func mustBlock[T any](t *testing.T, ch <-chan T) {
	t.Helper()
	select {
	case v := <-ch:
		t.Fatalf("got %v, want it to block", v)
	case <-time.After(300 * time.Millisecond):
	}
}

func TestOpenRefusesBadOptions(t *testing.T) {
	cli := shared.client(t)
	for _, p := range []string{"", "/", "a//b"} {
		if _, err := Open(cli, p, Options{}); err == nil {
			t.Errorf("Open(%q) succeeded", p)
		}
	}
	if _, err := Open(cli, "x", Options{Lease: time.Second}); err == nil {
		t.Error("Open with a 1 s lease succeeded")
	}
}

// TestSameMachineTakeoverAfterKill9: a writer process killed with SIGKILL keeps the home
// for its whole lease (ten minutes here, longer than the test waits); a window on the same machine that proved it dead
// (its pid gone: the child was reaped) revokes its lease and wins at once. Without the
// revoke the waiter would still be waiting: the first check shows that.
func TestSameMachineTakeoverAfterKill9(t *testing.T) {
	ctx := testCtx(t)
	prefix := fmt.Sprintf("kill9-%d", prefixes.Add(1))
	kill, pid := holdInChild(t, prefix, 10*time.Minute) // longer than the test waits
	h := openHome(t, shared.client(t), prefix, Options{})
	id, _, err := h.Writer(ctx)
	if err != nil || id.Owner.PID != pid || id.Machine != "child" {
		t.Fatalf("Writer = %+v, %v; want the child, pid %d", id, err, pid)
	}
	kill()
	won := make(chan *Term, 1)
	go func() {
		b, err := h.Campaign(ctx, ident("child", os.Getpid()))
		if err != nil {
			t.Error(err)
		}
		won <- b
	}()
	mustBlock(t, won) // the dead writer's lease lives on
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Fatalf("the writer's pid %d is not gone (%v): no evidence of its death", pid, err)
	}
	if err := h.RevokeDead(ctx, id.Lease); err != nil {
		t.Fatal(err)
	}
	select {
	case b := <-won:
		defer b.Resign(context.Background())
	case <-ctx.Done():
		t.Fatal("the survivor did not win after revoking the dead writer's lease")
	}
}
