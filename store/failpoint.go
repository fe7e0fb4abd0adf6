package store

import (
	"os"
	"strings"
	"syscall"
)

// failpoints holds the armed crash points, read once from BATON_FAILPOINTS (a comma
// separated list of names). A test arms one to kill the process with SIGKILL exactly there.
var failpoints = parseFailpoints(os.Getenv("BATON_FAILPOINTS"))

func parseFailpoints(s string) map[string]bool {
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
// It costs one map lookup otherwise. Crash tests use it to stop the process at a named
// point of a save or a takeover.
func Failpoint(name string) {
	if failpoints[name] {
		_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {} // never returns
	}
}
