//go:build !batontest

package workflow

import (
	"fmt"
	"os"
	"os/exec"
	"time"
)

// The tests of this package need the test hooks (store's hooks_off_test.go says why).
// This stub of the hooks only lets them compile (go vet without the tag).
var hooks struct {
	supervisorCommand func(home, runID string) *exec.Cmd
	noSpares          bool
	cancelLooked      func(id string)
	saveRetryPause    func(try int) time.Duration
}

func init() {
	fmt.Fprintln(os.Stderr, "package workflow: its tests need the test hooks: go test -tags batontest (as .ci/run does)")
	os.Exit(2)
}
