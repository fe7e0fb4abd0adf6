package store

import "time"

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
