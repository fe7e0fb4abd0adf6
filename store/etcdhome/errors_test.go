package etcdhome

import (
	"errors"
	"strings"
	"testing"

	"baton/store"
)

// A save whose answer was lost is refused as fenced (the writer drops to read-only, a
// supervisor stops: errors.Is ErrFenced and store.ErrFenced), but its error never says
// "nothing was written": the save may have been (KillLeaderDuringSaves found such a
// refused write in etcd, its error saying nothing was).
func TestFencedAfterAnUnknownOutcome(t *testing.T) {
	if !errors.Is(errFencedUnsure, ErrFenced) || !errors.Is(errFencedUnsure, store.ErrFenced) {
		t.Fatalf("%v is not ErrFenced", errFencedUnsure)
	}
	if msg := errFencedUnsure.Error(); strings.Contains(msg, "nothing was written") || !strings.Contains(msg, "may or may not") {
		t.Fatalf("the refusal of a save whose outcome is unknown says: %s", msg)
	}
}
