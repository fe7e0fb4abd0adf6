package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"baton/ui/view"
)

// showGuide is Help ▸ Guide: a few paragraphs on windows, runs and schedules.
func (m *Main) showGuide() {
	txt := widget.NewLabel(view.GuideText)
	txt.Wrapping = fyne.TextWrapWord
	m.showInfo("Guide", container.NewVScroll(txt), fyne.NewSize(560, 480))
}
