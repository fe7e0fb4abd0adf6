//go:build !batontest

package ui

import "time"

// Baton's own build: no test hooks (see hooks_on.go).

func promotingDelay() time.Duration { return PromotingShowAfter }
func offered()                      {}
