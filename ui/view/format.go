package view

import (
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"baton/host"
	"baton/store"
)

// Tone is how a status or a role looks: package ui maps each tone to a theme colour and
// an icon.
type Tone int

// Tones.
const (
	ToneDisabled Tone = iota // queued, unknown
	ToneSuccess
	ToneError
	TonePrimary
	ToneWarning
)

// StatusTone is the tone of a run status: succeeded, failed, running, cancelled; anything
// else (queued) is disabled.
func StatusTone(status string) Tone {
	switch status {
	case store.StatusSucceeded:
		return ToneSuccess
	case store.StatusFailed:
		return ToneError
	case store.StatusRunning:
		return TonePrimary
	case store.StatusCancelled:
		return ToneWarning
	}
	return ToneDisabled
}

// RunDuration is how long r ran (so far, if it still runs); zero if it never started.
func RunDuration(r *store.Run, now time.Time) time.Duration { return r.Duration(now) }

// Human formats a duration for people: "41 ms", "3.2 s", "4 min 05 s", "2 h 10 min".
func Human(d time.Duration) string {
	switch {
	case d < time.Second:
		return fmt.Sprintf("%d ms", d.Milliseconds())
	case d < 10*time.Second:
		return fmt.Sprintf("%.1f s", d.Seconds())
	case d < time.Minute:
		return fmt.Sprintf("%d s", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%d min %02d s", int(d.Minutes()), int(d.Seconds())%60)
	}
	return fmt.Sprintf("%d h %02d min", int(d.Hours()), int(d.Minutes())%60)
}

// StepText is "step 2 of 4" for a run.
func StepText(r *store.Run) string {
	if r.Steps == 0 {
		return ""
	}
	switch r.Status {
	case store.StatusQueued:
		return "waiting"
	case store.StatusSucceeded:
		return "done, " + Plural(r.Steps, "step", "steps")
	case store.StatusFailed, store.StatusCancelled:
		return fmt.Sprintf("%s at step %d of %d", r.Status, r.Step+1, r.Steps)
	}
	return fmt.Sprintf("step %d of %d", r.Step+1, r.Steps)
}

// Progress is the fraction of a run's steps done.
func Progress(r *store.Run) float64 {
	if r.Steps == 0 {
		return 0
	}
	switch r.Status {
	case store.StatusSucceeded:
		return 1
	case store.StatusQueued:
		return 0
	}
	return float64(r.Step) / float64(r.Steps)
}

// OwnerText names the window that runs r; "" when no window has it yet.
func OwnerText(r *store.Run, self int) string {
	switch {
	case r.OwnerPID == 0:
		return ""
	case r.OwnerPID == self:
		return fmt.Sprintf("pid %d (this window)", r.OwnerPID)
	}
	return fmt.Sprintf("pid %d", r.OwnerPID)
}

// Clock formats a time as local hours and minutes, with the date when not today.
func Clock(t, now time.Time) string {
	t = t.Local()
	y1, m1, d1 := t.Date()
	y2, m2, d2 := now.Local().Date()
	if y1 == y2 && m1 == m2 && d1 == d2 {
		return t.Format("15:04")
	}
	return t.Format("2 Jan 15:04")
}

// Stamp formats a time to the second, with the date when not today (the Activity tab).
func Stamp(t, now time.Time) string {
	t = t.Local()
	if y, d := t.YearDay(), now.Local().YearDay(); y == d && t.Year() == now.Year() {
		return t.Format("15:04:05")
	}
	return t.Format("2 Jan 15:04:05")
}

// ContainsFold reports whether sub is in s, ignoring case, without allocating.
func ContainsFold(s, sub string) bool {
	if sub == "" {
		return true
	}
	n := len(sub)
	for i := 0; i+n <= len(s); {
		if strings.EqualFold(s[i:i+n], sub) {
			return true
		}
		_, w := utf8.DecodeRuneInString(s[i:])
		i += w
	}
	return false
}

// Plural returns "1 run" or "2 runs".
func Plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}

// ErrText is an error for people: the read-only error already says who writes.
func ErrText(err error) string {
	var ro *host.ReadOnlyError
	if errors.As(err, &ro) {
		return ro.Error()
	}
	return err.Error()
}
