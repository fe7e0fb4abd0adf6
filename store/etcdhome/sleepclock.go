package etcdhome

import "time"

// sinceBoot is a clock that goes on while the machine is suspended (Linux: CLOCK_BOOTTIME;
// elsewhere the monotonic clock, which may not). A variable for tests.
var sinceBoot = bootClock

// processStart anchors the fallback clock.
var processStart = time.Now()
