//go:build batontest

package store

import (
	"os"
	"strings"
	"syscall"
)

// The test hooks of package store. Every test hook of Baton lives in a hooks_on.go,
// built only with the batontest tag: `go test -tags batontest` (.ci/run) compiles it into
// the test binaries and so into the child processes they re-run. Baton itself is built
// without the tag and gets hooks_off.go instead: the same names as constants and empty
// functions that the compiler removes, so a release binary holds no hook, no failpoint
// name and no switch; .ci/run checks that. Tests set the hooks variable in their own
// process, and arm a child process (the test binary again) through its environment:
//
//   - BATON_FAILPOINTS=a,b: Failpoint("a") kills the process with SIGKILL.
//   - BATON_SKIP_SYNC=a,b: durability points a and b (durable.go) do not sync: the
//     reverse controls of the power-cut tests.
//   - BATON_TEST_HOLD_RELOADS=FILE: while FILE exists a store's watch reads no change,
//     so a reverse control's takeover starts from a copy as stale as the test made it.
//
// A hook changes what the code does. Durations and sizes that a package's own tests
// shorten (auditHeldMax here, spareDelay in workflow, retentionFirst in host) are not
// hooks but parameters: they stay unexported variables beside the code they tune.
var (
	failpoints       = parseList(os.Getenv("BATON_FAILPOINTS"))
	skipSyncs        = parseList(os.Getenv("BATON_SKIP_SYNC"))
	holdReloadsWhile = os.Getenv("BATON_TEST_HOLD_RELOADS")
)

// hooks are set by this package's tests, in their own process.
var hooks struct {
	// wal runs between reading the log's header and its frames.
	wal func()
	// auditRotate runs when an Audit is about to rotate its log, holding its lock.
	auditRotate func()
	// syncErr, when set, is the error of the sync at durability point name (nil: sync).
	syncErr func(name string) error
}

// checkShared turns on the check that no update wrote through a pointer its copy shares
// with the document in memory (see cloneForUpdate).
const checkShared = true

// parseList reads a comma separated list of names.
func parseList(s string) map[string]bool {
	if s == "" {
		return nil
	}
	m := map[string]bool{}
	for _, n := range strings.Split(s, ",") {
		m[strings.TrimSpace(n)] = true
	}
	return m
}

// Failpoint kills this process with SIGKILL when name is armed in BATON_FAILPOINTS.
func Failpoint(name string) {
	if failpoints[name] {
		_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {} // never returns
	}
}

// skipSync reports whether a reverse control switched off durability point name.
func skipSync(name string) bool { return skipSyncs[name] }

// syncFault returns the error a test made durability point name fail with, or nil.
func syncFault(name string) error {
	if hooks.syncErr != nil {
		return hooks.syncErr(name)
	}
	return nil
}

// holdReloads reports whether the watch must leave the document in memory as it is.
func holdReloads() bool {
	if holdReloadsWhile == "" {
		return false
	}
	_, err := os.Stat(holdReloadsWhile)
	return err == nil
}

// auditRotateHook runs hooks.auditRotate, if set.
func auditRotateHook() {
	if hooks.auditRotate != nil {
		hooks.auditRotate()
	}
}

// walHook runs hooks.wal, if set.
func walHook() {
	if hooks.wal != nil {
		hooks.wal()
	}
}
