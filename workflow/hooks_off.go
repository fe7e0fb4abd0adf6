//go:build !batontest

package workflow

import (
	"os/exec"
	"time"
)

// Baton's own build: no test hooks (see hooks_on.go).

func supervisorCommand(home, runID string) *exec.Cmd { return defaultSupervisorCommand(home, runID) }
func sparesOff() bool                                { return false }
func cancelLookedHook(string)                        {}
func retryPause(try int) time.Duration               { return saveRetryPause(try) }
func leaseKillOff() bool                             { return false }
