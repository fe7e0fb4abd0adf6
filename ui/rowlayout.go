package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
)

// Rows that give way in a small window.
//
// Why: at 640 by 480 a run row's fixed columns (progress, duration, window: 370 px)
// took all its width and were drawn over the run's id and name, and the runs filters'
// two fixed choices (170 and 125) left the filter box 69 px. Now a row drops its
// columns, the window's first, before the name has less than MinRunTitleWidth, and the
// filter row narrows its choices before the box has less than MinFilterWidth.

// runColumns are the widths of a run row's columns after its title: progress, duration,
// window.
var runColumns = [3]float32{130, 120, 150}

// runRowLayout lays out a run row: icon, title, then the columns that fit (runColumns),
// each its own width; a column that does not fit is hidden.
type runRowLayout struct{}

// MinSize is the icon and a title of MinRunTitleWidth, as tall as the tallest part.
func (runRowLayout) MinSize(objs []fyne.CanvasObject) fyne.Size {
	h := float32(0)
	for _, o := range objs {
		h = max(h, o.MinSize().Height)
	}
	return fyne.NewSize(objs[0].MinSize().Width+theme.Padding()+MinRunTitleWidth, h)
}

// Layout places the parts left to right and hides the columns there is no room for.
func (runRowLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	pad := theme.Padding()
	icon := objs[0].MinSize()
	objs[0].Resize(icon)
	objs[0].Move(fyne.NewPos(0, (size.Height-icon.Height)/2))
	left := icon.Width + pad
	room := size.Width - left - MinRunTitleWidth
	shown := 0
	for i, w := range runColumns { // progress, then duration, then window
		if room < w+pad {
			break
		}
		room -= w + pad
		shown = i + 1
	}
	right := size.Width
	for i := len(runColumns) - 1; i >= 0; i-- {
		o := objs[2+i]
		if i >= shown {
			o.Hide()
			continue
		}
		o.Show()
		right -= runColumns[i]
		o.Move(fyne.NewPos(right, 0))
		o.Resize(fyne.NewSize(runColumns[i], size.Height))
		right -= pad
	}
	objs[1].Move(fyne.NewPos(left, 0))
	objs[1].Resize(fyne.NewSize(max(right-left, 0), size.Height))
}

// runChoices are the widths the runs filters' workflow and status choices get when
// there is room.
var runChoices = [2]float32{170, 125}

// minChoice is the least a runs filter choice gets: its text ends in an ellipsis.
const minChoice = 80

// filterRowLayout lays out the runs filters: workflow choice, status choice, filter box,
// count. The choices narrow (to minChoice) before the box has less than MinFilterWidth.
type filterRowLayout struct{}

// MinSize is the choices at minChoice, the box at MinFilterWidth and the count.
func (filterRowLayout) MinSize(objs []fyne.CanvasObject) fyne.Size {
	h := float32(0)
	for _, o := range objs {
		h = max(h, o.MinSize().Height)
	}
	return fyne.NewSize(3*theme.Padding()+2*minChoice+MinFilterWidth+objs[3].MinSize().Width, h)
}

// Layout gives the count its width, the box what the choices leave (at least
// MinFilterWidth), and the choices the rest, up to runChoices.
func (filterRowLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	pad := theme.Padding()
	count := objs[3].MinSize().Width
	avail := size.Width - count - 3*pad
	choices := min(runChoices[0]+runChoices[1], max(avail-MinFilterWidth, 2*minChoice))
	wf := choices * runChoices[0] / (runChoices[0] + runChoices[1])
	widths := [4]float32{wf, choices - wf, max(avail-choices, 0), count}
	x := float32(0)
	for i, o := range objs {
		o.Move(fyne.NewPos(x, 0))
		o.Resize(fyne.NewSize(widths[i], size.Height))
		x += widths[i] + pad
	}
}

// clearOfScrollBar lays its one object out over the container but for the width of a
// scroll bar on the right: Fyne draws a scroll bar over the content's right edge, where
// it hid the right end of the buttons (a step's Remove, a schedule's Delete).
type clearOfScrollBar struct{}

func (clearOfScrollBar) MinSize(objs []fyne.CanvasObject) fyne.Size {
	return objs[0].MinSize().AddWidthHeight(theme.ScrollBarSize(), 0)
}

func (clearOfScrollBar) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	objs[0].Move(fyne.NewPos(0, 0))
	objs[0].Resize(fyne.NewSize(size.Width-theme.ScrollBarSize(), size.Height))
}
