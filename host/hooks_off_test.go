//go:build !batontest

package host

import (
	"fmt"
	"os"
)

// The tests of this package need the test hooks (store's hooks_off_test.go says why).
// This stub of the hooks only lets them compile (go vet without the tag).
var hooks struct {
	statfs   func(path string) (int64, error)
	handOver func(*Core)
}

func init() {
	fmt.Fprintln(os.Stderr, "package host: its tests need the test hooks: go test -tags batontest (as .ci/run does)")
	os.Exit(2)
}
