package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
)

// flow lays its objects out left to right and wraps to a new row where the next one does
// not fit. Its min width is its widest object's, so a row of buttons never holds the
// window wide (Fyne's RowWrapLayout keeps the width of its last layout as its minimum,
// so a window once wide could not be made narrow again). Its min height is that of the
// rows of its last layout.
type flow struct{ rows int }

func visible(objs []fyne.CanvasObject) (n int, widest, tallest float32) {
	for _, o := range objs {
		if o.Visible() {
			s := o.MinSize()
			n, widest, tallest = n+1, max(widest, s.Width), max(tallest, s.Height)
		}
	}
	return n, widest, tallest
}

func (f *flow) MinSize(objs []fyne.CanvasObject) fyne.Size {
	n, widest, tallest := visible(objs)
	if n == 0 {
		return fyne.Size{}
	}
	rows := float32(max(f.rows, 1))
	return fyne.NewSize(widest, rows*tallest+(rows-1)*theme.Padding())
}

func (f *flow) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	_, _, tallest := visible(objs)
	pad := theme.Padding()
	x, y, rows := float32(0), float32(0), 1
	for _, o := range objs {
		if !o.Visible() {
			continue
		}
		s := o.MinSize()
		if x > 0 && x+s.Width > size.Width {
			x, y, rows = 0, y+tallest+pad, rows+1
		}
		o.Move(fyne.NewPos(x, y))
		o.Resize(fyne.NewSize(s.Width, tallest))
		x += s.Width + pad
	}
	f.rows = rows
}
