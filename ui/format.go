package ui

import (
	"fmt"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"

	"baton/store"
)

// Status icons, themed so that they follow light and dark variants. They are made on
// first use: the theme needs a running app.
var (
	iconsOnce                                                         sync.Once
	iconSucceeded, iconFailed, iconRunning, iconQueued, iconCancelled fyne.Resource
)

// statusIcon returns the icon of a run status.
func statusIcon(status string) fyne.Resource {
	iconsOnce.Do(func() {
		iconSucceeded = theme.NewSuccessThemedResource(theme.ConfirmIcon())
		iconFailed = theme.NewErrorThemedResource(theme.ErrorIcon())
		iconRunning = theme.NewPrimaryThemedResource(theme.MediaPlayIcon())
		iconQueued = theme.NewDisabledResource(theme.HistoryIcon())
		iconCancelled = theme.NewWarningThemedResource(theme.CancelIcon())
	})
	switch status {
	case store.StatusSucceeded:
		return iconSucceeded
	case store.StatusFailed:
		return iconFailed
	case store.StatusRunning:
		return iconRunning
	case store.StatusCancelled:
		return iconCancelled
	}
	return iconQueued
}

// statusColorName is the theme colour of a run status in charts.
func statusColorName(status string) fyne.ThemeColorName {
	switch status {
	case store.StatusSucceeded:
		return theme.ColorNameSuccess
	case store.StatusFailed:
		return theme.ColorNameError
	case store.StatusRunning:
		return theme.ColorNamePrimary
	case store.StatusCancelled:
		return theme.ColorNameWarning
	}
	return theme.ColorNameDisabled
}

// runDuration is how long r ran (so far, if it still runs); zero if it never started.
func runDuration(r *store.Run, now time.Time) time.Duration {
	if r.Started.IsZero() {
		return 0
	}
	end := r.Ended
	if end.IsZero() {
		end = now
	}
	if d := end.Sub(r.Started); d > 0 {
		return d
	}
	return 0
}

// human formats a duration for people: "41 ms", "3.2 s", "4 min 05 s", "2 h 10 min".
func human(d time.Duration) string {
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

// stepText is "step 2 of 4" for a run.
func stepText(r *store.Run) string {
	if r.Steps == 0 {
		return ""
	}
	switch r.Status {
	case store.StatusQueued:
		return "waiting"
	case store.StatusSucceeded:
		return "done, " + plural(r.Steps, "step", "steps")
	case store.StatusFailed, store.StatusCancelled:
		return fmt.Sprintf("%s at step %d of %d", r.Status, r.Step+1, r.Steps)
	}
	return fmt.Sprintf("step %d of %d", r.Step+1, r.Steps)
}

// progress is the fraction of a run's steps done.
func progress(r *store.Run) float64 {
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

// ownerText names the window that runs r.
func ownerText(r *store.Run, self int) string {
	switch {
	case r.OwnerPID == 0:
		return ""
	case r.OwnerPID == self:
		return fmt.Sprintf("pid %d (this window)", r.OwnerPID)
	}
	return fmt.Sprintf("pid %d", r.OwnerPID)
}

// clock formats a time as local hours and minutes, with the date when not today.
func clock(t, now time.Time) string {
	t = t.Local()
	y1, m1, d1 := t.Date()
	y2, m2, d2 := now.Local().Date()
	if y1 == y2 && m1 == m2 && d1 == d2 {
		return t.Format("15:04")
	}
	return t.Format("2 Jan 15:04")
}

// containsFold reports whether sub is in s, ignoring case, without allocating.
func containsFold(s, sub string) bool {
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

// plural returns "1 run" or "2 runs".
func plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}
