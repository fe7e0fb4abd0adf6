//go:build batontest

package host

import "os"

// The test hooks of package host, built only with the batontest tag (see store's
// hooks_on.go for the mechanism); Baton itself gets hooks_off.go. A child window (the test
// binary re-run, child_test.go) is armed through its environment:
//
//   - BATON_TEST_SKIP_TAKEOVER_REREAD=1 makes BecomeWriter use the document in memory
//     instead of re-reading workflows.json (step 2): the reverse control of the re-read.
//     Follow reloads and refresh-before-write stay on; store's BATON_TEST_HOLD_RELOADS
//     keeps the copy in memory stale.
var skipReread = os.Getenv("BATON_TEST_SKIP_TAKEOVER_REREAD") == "1"

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
