package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"

	"baton/ui/view"
)

// showGuide is Help ▸ Guide: a few paragraphs on windows, runs and schedules.
func (m *Main) showGuide() {
	txt := widget.NewLabel(view.GuideText)
	txt.Wrapping = fyne.TextWrapWord
	d := dialog.NewCustom("Guide", "Close", container.NewVScroll(txt), m.Win)
	d.Resize(fyne.NewSize(560, 480))
	d.Show()
}
