//go:build !batontest

package store

import (
	"fmt"
	"os"
)

// The tests of this package need the test hooks: without them a crash test would wait for
// a kill that never comes and a reverse control would prove nothing. This stub of the
// hooks only lets the tests compile (go vet without the tag); the binary refuses to run.
var (
	hooks struct {
		wal         func()
		syncErr     func(string) error
		auditRotate func()
	}
	skipSyncs map[string]bool
)

func init() {
	fmt.Fprintln(os.Stderr, "package store: its tests need the test hooks: go test -tags batontest (as .ci/run does)")
	os.Exit(2)
}
