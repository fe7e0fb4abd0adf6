package view

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"baton/host"
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
func AboutText(version string, st host.Status) string {
	return fmt.Sprintf("Baton %s\n\nRuns your workflows on this computer. Each window on a home folder shows "+
		"the same state; one window writes and the others follow, taking over when it closes.\n\nHome: %s\nThis window: pid %d",
		version, st.Home, st.PID)
}
