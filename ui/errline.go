package ui

import (
	"image/color"

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

// compact draws o with almost no inner padding: a line of small text takes little more
// than its own height.
func compact(o fyne.CanvasObject) *container.ThemeOverride {
	return container.NewThemeOverride(o, compactTheme{})
}

// setProblem shows msg in an error label ("" clears it, keeping its place).
func setProblem(l *widget.Label, msg string) {
	if l.Text != msg {
		l.SetText(msg)
	}
}

// compactTheme is the app's current theme with almost no inner padding.
type compactTheme struct{}

func (compactTheme) th() fyne.Theme { return fyne.CurrentApp().Settings().Theme() }

func (t compactTheme) Color(n fyne.ThemeColorName, v fyne.ThemeVariant) color.Color {
	return t.th().Color(n, v)
}
func (t compactTheme) Font(s fyne.TextStyle) fyne.Resource     { return t.th().Font(s) }
func (t compactTheme) Icon(n fyne.ThemeIconName) fyne.Resource { return t.th().Icon(n) }
func (t compactTheme) Size(n fyne.ThemeSizeName) float32 {
	if n == theme.SizeNameInnerPadding {
		return 1
	}
	return t.th().Size(n)
}
