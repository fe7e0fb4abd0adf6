package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// errLabel is the line where a field's problem shows. It always keeps its place, empty
// while the field has no problem: a problem that appears or goes never moves the controls
// below it, so a click lands where the person aimed. Place it with errLine.
func errLabel() *widget.Label {
	l := widget.NewLabel("")
	l.Importance = widget.DangerImportance
	l.Wrapping = fyne.TextWrapWord
	l.SizeName = theme.SizeNameCaptionText
	return l
}

// errLine places an error label so its empty line costs the height of small text, not
// of a whole label.
func errLine(l *widget.Label) fyne.CanvasObject { return compact(l) }

// compact draws o with its inner padding cut to 1 px: a line of small text takes little
// more than its own height.
func compact(o fyne.CanvasObject) *fyne.Container { return container.New(compactLayout{}, o) }

// compactLayout lays its one object out over the container and beyond it by all but 1 px
// of the inner padding on each side, so the object's padding overlaps its neighbours'.
type compactLayout struct{}

func compactCut() float32 { return max(theme.InnerPadding()-1, 0) }

func (compactLayout) MinSize(objs []fyne.CanvasObject) fyne.Size {
	c := compactCut()
	return objs[0].MinSize().SubtractWidthHeight(2*c, 2*c).Max(fyne.NewSize(0, 0))
}

func (compactLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	c := compactCut()
	objs[0].Move(fyne.NewPos(-c, -c))
	objs[0].Resize(size.AddWidthHeight(2*c, 2*c))
}

// setProblem shows msg in an error label ("" clears it, keeping its place).
func setProblem(l *widget.Label, msg string) {
	if l.Text != msg {
		l.SetText(msg)
	}
}
