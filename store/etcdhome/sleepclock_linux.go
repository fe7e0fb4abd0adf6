package etcdhome

import (
	"time"

	"golang.org/x/sys/unix"
)

// bootClock is CLOCK_BOOTTIME: time since boot, suspends included.
func bootClock() time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_BOOTTIME, &ts); err != nil {
		return time.Since(processStart)
	}
	return time.Duration(ts.Nano())
}
