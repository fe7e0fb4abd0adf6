package etcdhome

import (
	"testing"
)

// TestPresenceGoneOnlyWithLease: a window is present while its lease lives and absent
// once it is gone (revoked here, as by a survivor with the evidence, or expired).
func TestPresenceGoneOnlyWithLease(t *testing.T) {
	ctx := testCtx(t)
	h := newHome(t, Options{})
	p, err := h.Announce(ctx, ident("laptop", 10))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	other := openHome(t, shared.client(t), h.Prefix(), Options{})
	if alive, ev, err := other.WindowAlive(ctx, "inst-laptop"); err != nil || !alive {
		t.Fatalf("announced window: alive %v (%s), %v", alive, ev, err)
	}
	if err := other.RevokeDead(ctx, p.Lease()); err != nil {
		t.Fatal(err)
	}
	if alive, ev, err := other.WindowAlive(ctx, "inst-laptop"); err != nil || alive {
		t.Fatalf("window whose lease is gone: alive %v (%s), %v", alive, ev, err)
	}
	select {
	case <-p.Done():
	case <-ctx.Done():
		t.Fatal("Done not closed after the lease went")
	}
}
