package store

import (
	"os"
	"strings"
	"syscall"
	"testing"
)

// failpoints holds the armed crash points, read once from BATON_FAILPOINTS (a comma
// separated list of names) in test binaries only: testing.Testing() is false in Baton
// itself, so no environment can arm a crash point there. A test arms one to kill the
// process with SIGKILL exactly there.
var failpoints = parseFailpoints(os.Getenv("BATON_FAILPOINTS"), testing.Testing())

func parseFailpoints(s string, test bool) map[string]bool {
	if s == "" || !test {
		return nil
	}
	m := map[string]bool{}
	for _, n := range strings.Split(s, ",") {
		m[strings.TrimSpace(n)] = true
	}
	return m
}

// Failpoint kills this process with SIGKILL when name is armed in BATON_FAILPOINTS and
// this is a test binary (the child processes of the crash tests are). Anywhere else it
// costs one map lookup in a nil map.
func Failpoint(name string) {
	if failpoints[name] {
		_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {} // never returns
	}
}
