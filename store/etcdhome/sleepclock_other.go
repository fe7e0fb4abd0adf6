//go:build !linux

package etcdhome

import "time"

// bootClock is the monotonic clock since the process started: on this system a suspend
// may not count (a lease slept past is then found lost at the next renewal).
func bootClock() time.Duration { return time.Since(processStart) }
