//go:build batontest

package ui

import (
	"sync"
	"time"
)

// Test hooks of the window (built only with -tags batontest; hooks_off.go is Baton's own
// build). Set them before Watch.
var promotingHooks struct {
	sync.Mutex
	delay   time.Duration // instead of PromotingShowAfter when > 0
	offered func()        // called after each offer of the watcher
}

func promotingDelay() time.Duration {
	promotingHooks.Lock()
	defer promotingHooks.Unlock()
	if promotingHooks.delay > 0 {
		return promotingHooks.delay
	}
	return PromotingShowAfter
}

func offered() {
	promotingHooks.Lock()
	f := promotingHooks.offered
	promotingHooks.Unlock()
	if f != nil {
		f()
	}
}
