package view

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"baton/host"
	"baton/store"
)

// PrefKey is the preference key of name for the window of home folder home: windows on
// different homes remember their own sizes.
func PrefKey(home, name string) string {
	h := sha256.Sum256([]byte(home))
	return "home." + hex.EncodeToString(h[:8]) + "." + name
}

// Smallest window size restored, and the smallest size worth remembering.
const (
	MinWidth, MinHeight = 480, 360
	minSaved            = 100
)

// RestoredSize is the window size to open with from a remembered one, at least
// MinWidth × MinHeight.
func RestoredSize(w, h float64) (float32, float32) {
	return float32(max(w, MinWidth)), float32(max(h, MinHeight))
}

// WorthSaving reports whether a window size is worth remembering (a window not yet laid
// out is tiny).
func WorthSaving(w, h float32) bool { return w >= minSaved && h >= minSaved }

// AboutText is Help ▸ About.
func AboutText(version string, st host.Status, doc *store.Doc) string {
	s := fmt.Sprintf("Baton %s\n\nRuns your workflows on this computer. Each window on a home folder shows "+
		"the same state; one window writes and the others follow, taking over when it closes.\n\nHome: %s\nThis window: pid %d",
		version, st.Home, st.PID)
	if doc != nil { // details: how many saves the home has had, and writer terms
		s += fmt.Sprintf("\nDocument: generation %d, writer epoch %d", doc.Generation, doc.Epoch)
	}
	return s
}

// GuideText is Help ▸ Guide: what a person needs to know to use Baton.
const GuideText = `A workflow is a list of steps; each step runs one program with its arguments, as typed, without a shell. Make one with File › New workflow (Ctrl+N), add steps, and save (Ctrl+S). Run it with Run now (Ctrl+R).

Windows. You may open several windows on the same home folder (File › Open another window). Exactly one of them writes: the bar at the top says "Writer". The others are read-only: they follow every change within a second, and their write controls are disabled. When the writing window closes or crashes, another takes over by itself; "Make this window the writer" asks for it at once.

Runs. The Runs tab lists every run, newest first, with its log; Ctrl+L filters them. A run that is going shows its live log; Cancel (Ctrl+.) stops it. The Timeline shows when runs ran and how long they took. A workflow's "If its window dies" choice says what happens to its runs when the window running them closes or crashes: fail, run again, or keep running.

Schedules. The Schedules tab starts a workflow every interval (every 1h) or on a cron expression (0 3 * * * is 03:00 every day), in local time or a time zone you name. The preview shows the next five times. Pause stops a schedule without losing it. Overlap says what happens when the last run is still going; catch-up what happens to times missed while no window was open.

The Activity tab lists what windows did: takeovers, runs failed because their window died, schedules skipped.`
