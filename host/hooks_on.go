//go:build batontest

package host

import (
	"errors"
	"fmt"
	"os"

	"baton/store"
	"baton/store/etcdhome"
)

// The test hooks of package host, built only with the batontest tag (see store's
// hooks_on.go for the mechanism); Baton itself gets hooks_off.go. A child window (the test
// binary re-run, child_test.go) is armed through its environment:
//
//   - BATON_TEST_SKIP_TAKEOVER_REREAD=1 makes BecomeWriter use the document in memory
//     instead of re-reading workflows.json (step 2): the reverse control of the re-read.
//     Follow reloads and refresh-before-write stay on; store's BATON_TEST_HOLD_RELOADS
//     keeps the copy in memory stale.
var skipReread = os.Getenv("BATON_TEST_SKIP_TAKEOVER_REREAD") == "1"

// BATON_TEST_ACK_UNSAVED=1 makes a writer on an etcd home acknowledge an update whose save
// failed without an answer from the cluster (a machine cut off, a timeout) as if it had
// been saved, without its guarded transaction: the reverse control of TestChaosEtcd's
// checks (TestChaosEtcdCatchesUnsavedAck). A value other than "1" is a file to which each
// such acknowledgement of a save known not to be written appends a line: the test's
// evidence that the control armed.
var ackUnsavedOn = os.Getenv("BATON_TEST_ACK_UNSAVED") != ""

// hooks are set by this package's tests, in their own process.
var hooks struct {
	// statfs replaces the statfs magic number of a home's filesystem.
	statfs func(path string) (int64, error)
	// handOver runs in handOver just before the identity retires.
	handOver func(*Core)
}

func skipTakeoverReread() bool { return skipReread }

func statfsType(path string) (int64, error) {
	if hooks.statfs != nil {
		return hooks.statfs(path)
	}
	return statfs(path)
}

func handOverHook(w *Core) {
	if hooks.handOver != nil {
		hooks.handOver(w)
	}
}

// ackUnsaved returns the document t would have saved with fn, as if saved, when the
// BATON_TEST_ACK_UNSAVED hook is armed and the save of a writer's term failed with err,
// whatever the reason (an outcome etcd did not tell, a read that timed out, or the guard
// refusing it once the lease was gone: which one a probe meets depends on timing); else
// false. A writer that trusted itself instead of the store's fencing would acknowledge
// all of them.
func ackUnsaved(t *Term, fn func(*store.Doc) error, err error) (*store.Doc, bool) {
	if !ackUnsavedOn || errors.Is(err, ErrReadOnly) && !errors.Is(err, etcdhome.ErrOutcomeUnknown) && !errors.Is(err, store.ErrFenced) {
		return nil, false
	}
	d, verr := t.st.View()
	if verr != nil || d == nil {
		return nil, false
	}
	c := d.Clone()
	c.Generation++
	if fn(c) != nil {
		return nil, false
	}
	// The evidence counts only saves known not to be written: one whose outcome is unknown
	// may have been (then nothing is lost, and nothing can be caught).
	if mark := os.Getenv("BATON_TEST_ACK_UNSAVED"); mark != "1" && !errors.Is(err, etcdhome.ErrOutcomeUnknown) {
		if f, err := os.OpenFile(mark, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600); err == nil {
			fmt.Fprintf(f, "pid %d acknowledged generation %d unsaved: %v\n", os.Getpid(), c.Generation, err)
			f.Close()
		}
	}
	return c, true
}
