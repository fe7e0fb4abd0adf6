package store

import (
	"fmt"
	"time"
)

// Duration is how long r ran: until it ended, or until now while it runs; zero if it
// never started (or the clock went back).
func (r *Run) Duration(now time.Time) time.Duration {
	if r.Started.IsZero() {
		return 0
	}
	end := r.Ended
	if end.IsZero() {
		end = now
	}
	return max(end.Sub(r.Started), 0)
}

// LogCut says that a run's log could not be written whole: the first Kept bytes are in
// the log, the rest of the output was dropped, and Reason says why ("no space left on
// device"). The run's steps went on; only their output was lost.
type LogCut struct {
	Kept   int64  `json:"kept"`   // bytes of output the log holds
	Reason string `json:"reason"` // why the rest could not be written
}

// String says it in words: "log cut at 12.3 KiB: no space left on device".
func (c *LogCut) String() string {
	if c == nil {
		return ""
	}
	return fmt.Sprintf("log cut at %s: %s", HumanBytes(c.Kept), c.Reason)
}

// HumanBytes writes n bytes for people: "512 B", "12.3 KiB", "4.0 MiB".
func HumanBytes(n int64) string {
	if n < 1024 {
		return fmt.Sprintf("%d B", n)
	}
	v, unit := float64(n)/1024, "KiB"
	for _, u := range []string{"MiB", "GiB", "TiB"} {
		if v < 1024 {
			break
		}
		v, unit = v/1024, u
	}
	return fmt.Sprintf("%.1f %s", v, unit)
}
