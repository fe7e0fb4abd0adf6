//go:build batontest

package workflow

import (
	"os"
	"os/exec"
	"time"
)

// The test hooks of package workflow, built only with the batontest tag (see store's
// hooks_on.go for the mechanism); Baton itself gets hooks_off.go.

// hooks are set by this package's tests, in their own process, and by SetSpares.
var hooks struct {
	// supervisorCommand replaces the command that starts a run's supervisor (the tests
	// re-run the test binary, or run a command that never becomes ready).
	supervisorCommand func(home, runID string) *exec.Cmd
	// noSpares turns spare supervisors off: every run starts a supervisor of its own.
	noSpares bool
	// cancelLooked runs in execute once the cancel was looked at and before the
	// supervisor starts.
	cancelLooked func(id string)
	// saveRetryPause replaces the pause between the saves of a run's end.
	saveRetryPause func(try int) time.Duration
}

// SetSpares turns spare supervisors on or off in this test binary and returns what
// restores the previous setting. It exists only in builds with -tags batontest: package
// ui's run-start benchmark compares runs with and without spares.
func SetSpares(on bool) (restore func()) {
	old := hooks.noSpares
	hooks.noSpares = !on
	return func() { hooks.noSpares = old }
}

func supervisorCommand(home, runID string) *exec.Cmd {
	if hooks.supervisorCommand != nil {
		return hooks.supervisorCommand(home, runID)
	}
	return defaultSupervisorCommand(home, runID)
}

func sparesOff() bool { return hooks.noSpares }

func retryPause(try int) time.Duration {
	if hooks.saveRetryPause != nil {
		return hooks.saveRetryPause(try)
	}
	return saveRetryPause(try)
}

func cancelLookedHook(id string) {
	if hooks.cancelLooked != nil {
		hooks.cancelLooked(id)
	}
}

// envLeaseKillOff, set to 1 in a supervisor's environment, keeps it from killing its steps
// when its lease in a shared home is lost: the reverse control of the kill before expiry.
const envLeaseKillOff = "BATON_TEST_LEASE_KILL_OFF"

func leaseKillOff() bool { return os.Getenv(envLeaseKillOff) == "1" }
