package host

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"baton/store"
)

// exitRecorder is the steps of leave as a recorder: a fake lock, engine and store.
type exitRecorder struct {
	steps  []string
	held   bool // the fake state.lock is held
	refuse bool // vacate finds the term already ended
}

func (r *exitRecorder) add(s string) { r.steps = append(r.steps, s) }

func (r *exitRecorder) vacate(t *Term, e exit) (ok, release bool) {
	if r.refuse {
		return false, false
	}
	r.add("vacate:" + e.to.String())
	return true, r.held && e.then != thenKeep
}
func (r *exitRecorder) drain()                       { r.add("drain") }
func (r *exitRecorder) endEpoch()                    { r.add("endEpoch") }
func (r *exitRecorder) keepLastGood()                { r.add("keepLastGood") }
func (r *exitRecorder) stopRuns(t *Term, why string) { r.add("stopRuns") }
func (r *exitRecorder) detachRuns(t *Term)           { r.add("detachRuns") }
func (r *exitRecorder) retire()                      { r.add("retire") }
func (r *exitRecorder) closeIdentity()               { r.add("closeIdentity") }
func (r *exitRecorder) release(closing bool)         { r.add(fmt.Sprintf("release(close=%v)", closing)) }
func (r *exitRecorder) emit(to Role)                 { r.add("emit:" + to.String()) }
func (r *exitRecorder) waitForLock(after time.Duration) {
	r.add(fmt.Sprintf("waitForLock(%v)", after))
}
func (r *exitRecorder) giveWay(heir store.Owner) { r.add("giveWay:" + heir.Instance) }
func (r *exitRecorder) closeAll()                { r.add("closeAll") }

// TestLeaveOrder drives every way out of a term through leave with a recorder and checks
// the steps and their order: the epoch ends before the runs are touched, the identity
// retires (or closes) before state.lock goes, and the role event goes out only once the
// lock is gone, before the window waits, gives way or closes.
func TestLeaveOrder(t *testing.T) {
	heir := store.Owner{Instance: "heir"}
	cases := []struct {
		name string
		e    exit
		held bool
		want string
	}{
		{"lock lost", exitLost(ErrLockLost), true,
			"vacate:reader endEpoch stopRuns retire release(close=false) emit:reader waitForLock(0s)"},
		{"unreadable", exitLost(fmt.Errorf("%w: bad json", store.ErrUnreadable)), true,
			"vacate:reader endEpoch keepLastGood stopRuns retire release(close=false) emit:reader waitForLock(0s)"},
		{"fenced", exitLost(store.ErrFenced), true,
			"vacate:reader endEpoch stopRuns retire release(close=false) emit:reader waitForLock(0s)"},
		{"hand-over", exitHandOver(heir), true,
			"vacate:reader endEpoch detachRuns retire release(close=false) emit:reader giveWay:heir"},
		{"failed takeover", exitFailedTakeover(errors.New("no space left on device")), true,
			"vacate:reader endEpoch release(close=false) emit:reader waitForLock(1s)"},
		{"failed takeover, unreadable", exitFailedTakeover(store.ErrUnreadable), true,
			"vacate:reader endEpoch emit:reader"},
		{"yield", exitYield(heir), true,
			"vacate:reader endEpoch release(close=false) emit:reader giveWay:heir"},
		{"close, holding", exitClose(), true,
			"vacate:closed drain endEpoch closeIdentity release(close=true) emit:closed closeAll"},
		{"close, not holding", exitClose(), false,
			"vacate:closed drain endEpoch closeIdentity emit:closed closeAll"},
	}
	for _, c := range cases {
		r := &exitRecorder{held: c.held}
		if !leave(r, nil, c.e) {
			t.Fatalf("%s: leave refused", c.name)
		}
		if got := strings.Join(r.steps, " "); got != c.want {
			t.Errorf("%s:\n got  %s\n want %s", c.name, got, c.want)
		}
		// The invariants, said once more independently of the spelling above.
		at := func(s string) int {
			return slices.IndexFunc(r.steps, func(x string) bool { return strings.HasPrefix(x, s) })
		}
		if rel := at("release"); rel >= 0 {
			for _, before := range []string{"endEpoch", "stopRuns", "detachRuns", "retire", "closeIdentity"} {
				if i := at(before); i > rel {
					t.Errorf("%s: %s after state.lock went", c.name, before)
				}
			}
			if at("emit") < rel {
				t.Errorf("%s: the role event before state.lock went", c.name)
			}
		}
	}
	r := &exitRecorder{held: true, refuse: true}
	if leave(r, nil, exitLost(ErrLockLost)) || len(r.steps) != 0 {
		t.Fatalf("a term another exit ended was left again: %v", r.steps)
	}
}
