package host

// knobs switch off one protection each, so a test can show that the test claiming that
// protection fails without it (a reverse control). Only _test.go files set them (see
// child_test.go: the child windows read them from BATON_TEST_* variables); production code
// only reads them, and their zero value is the safe one. Refresh-before-write has its own
// reverse control in package store.
var knobs struct {
	// skipTakeoverReread makes BecomeWriter use the document in memory instead of
	// re-reading workflows.json (step 2). Follow reloads and refresh-before-write stay on.
	skipTakeoverReread bool
	// holdReloads, while it returns true, keeps the window's watch from reading changes
	// (store.Options.HoldReloads), so that a reverse control's takeover has a stale copy
	// every time. Not a protection: a tool of the reverse controls.
	holdReloads func() bool
}
