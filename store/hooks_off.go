//go:build !batontest

package store

// Baton's own build: no test hooks (see hooks_on.go). Each is a constant or an empty
// function, so the compiler removes the calls and the branches they guard.

const checkShared = false

// Failpoint does nothing: crash points exist only in test binaries (hooks_on.go).
func Failpoint(string) {}

func skipSync(string) bool { return false }

func syncFault(string) error { return nil }
func holdReloads() bool      { return false }
func auditRotateHook()       {}
func walHook()               {}
