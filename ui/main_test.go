package ui

import (
	"os"
	"testing"

	_ "baton/ui/quietlocale" // as in main: a supervisor run from this binary says nothing of locales
	"baton/workflow"
)

// TestMain lets this test binary be a run's supervisor: the windows these tests open run
// their steps under supervisors started from os.Executable() (a spare started ahead of
// the run, `__supervise --spare`, or one per run), as the baton binary does.
//
// With BATON_TEST_PREFS_KEY set it is one of the app processes of
// TestPreferencesSharedByWindowsAreWrittenSafely instead.
func TestMain(m *testing.M) {
	if key := os.Getenv("BATON_TEST_PREFS_KEY"); key != "" {
		os.Exit(prefsWriter(key))
	}
	if len(os.Args) > 1 && os.Args[1] == workflow.SuperviseArg {
		os.Exit(workflow.SuperviseMain(os.Args[2:]))
	}
	os.Exit(m.Run())
}
