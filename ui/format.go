package ui

import (
	"sync"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"

	"baton/ui/view"
)

// Status icons, themed so that they follow light and dark variants. They are made on
// first use: the theme needs a running app.
var (
	iconsOnce                                                         sync.Once
	iconSucceeded, iconFailed, iconRunning, iconQueued, iconCancelled fyne.Resource
)

// statusIcon returns the icon of a run status's tone (view.StatusTone).
func statusIcon(t view.Tone) fyne.Resource {
	iconsOnce.Do(func() {
		iconSucceeded = theme.NewSuccessThemedResource(theme.ConfirmIcon())
		iconFailed = theme.NewErrorThemedResource(theme.ErrorIcon())
		iconRunning = theme.NewPrimaryThemedResource(theme.MediaPlayIcon())
		iconQueued = theme.NewDisabledResource(theme.HistoryIcon())
		iconCancelled = theme.NewWarningThemedResource(theme.CancelIcon())
	})
	switch t {
	case view.ToneSuccess:
		return iconSucceeded
	case view.ToneError:
		return iconFailed
	case view.TonePrimary:
		return iconRunning
	case view.ToneWarning:
		return iconCancelled
	}
	return iconQueued
}
