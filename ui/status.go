package ui

import (
	"image/color"
	"math"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"baton/ui/view"
)

// statusColor is the colour of a run status in the current theme: failed red, cancelled
// orange, running blue, succeeded green, queued (and anything else) grey. It is read
// from the theme on every call so that light and dark variants both hold.
func statusColor(status string) color.Color {
	return theme.Color(toneColor(view.StatusTone(status)))
}

// toneColor is the theme colour of a tone.
func toneColor(t view.Tone) fyne.ThemeColorName {
	switch t {
	case view.ToneSuccess:
		return theme.ColorNameSuccess
	case view.ToneError:
		return theme.ColorNameError
	case view.TonePrimary:
		return theme.ColorNamePrimary
	case view.ToneWarning:
		return theme.ColorNameWarning
	}
	return theme.ColorNameDisabled
}

// StatusBar is a progress bar in the colour of its run's status (widget.ProgressBar is
// always the theme's primary colour) whose text is cut to fit: its minimum width does not
// depend on the text, so a long status can neither spill into the next column nor widen
// the window. Touch it only on the UI goroutine.
type StatusBar struct {
	widget.BaseWidget
	Value  float64 // 0 to 1
	Status string  // the run's status: the bar's colour
	Text   string  // drawn over the bar, cut with "…" when it does not fit
}

// NewStatusBar returns an empty bar.
func NewStatusBar() *StatusBar {
	b := &StatusBar{}
	b.ExtendBaseWidget(b)
	return b
}

// Set shows value of a run with status, and text.
func (b *StatusBar) Set(status string, value float64, text string) {
	b.Status, b.Value, b.Text = status, value, text
	b.Refresh()
}

// CreateRenderer draws the bar with canvas primitives.
func (b *StatusBar) CreateRenderer() fyne.WidgetRenderer {
	r := &statusBarRenderer{b: b, track: canvas.NewRectangle(color.Transparent), fill: canvas.NewRectangle(color.Transparent),
		text: canvas.NewText("", color.Transparent)}
	r.text.Alignment = fyne.TextAlignCenter
	r.Refresh()
	return r
}

type statusBarRenderer struct {
	b           *StatusBar
	track, fill *canvas.Rectangle
	text        *canvas.Text
}

func (r *statusBarRenderer) Destroy() {}

func (r *statusBarRenderer) Objects() []fyne.CanvasObject {
	return []fyne.CanvasObject{r.track, r.fill, r.text}
}

// MinSize is a fixed small width and the height of a line: never the text's width.
func (r *statusBarRenderer) MinSize() fyne.Size {
	return fyne.NewSize(4*theme.Padding(), fyne.MeasureText("0", r.text.TextSize, r.text.TextStyle).Height+2*theme.Padding())
}

func (r *statusBarRenderer) Refresh() {
	radius := theme.InputRadiusSize()
	r.track.FillColor, r.track.CornerRadius = theme.Color(theme.ColorNameInputBackground), radius
	r.fill.FillColor, r.fill.CornerRadius = statusColor(r.b.Status), radius
	under := r.track.FillColor // the text is centred: over the fill once the bar is half full
	if r.b.Value >= 0.5 {
		under = r.fill.FillColor
	}
	r.text.Color, r.text.TextSize = readableOn(under), theme.TextSize()
	r.Layout(r.b.Size())
	canvas.Refresh(r.b)
}

func (r *statusBarRenderer) Layout(size fyne.Size) {
	r.track.Resize(size)
	r.fill.Resize(fyne.NewSize(size.Width*float32(min(max(r.b.Value, 0), 1)), size.Height))
	r.text.Text = fitText(r.b.Text, size.Width-2*theme.Padding(), r.text.TextSize, r.text.TextStyle)
	r.text.Resize(size)
}

// fitText is s, cut with "…" so that it is at most width wide.
func fitText(s string, width, size float32, style fyne.TextStyle) string {
	if fyne.MeasureText(s, size, style).Width <= width {
		return s
	}
	rs := []rune(s)
	for n := len(rs) - 1; n > 0; n-- {
		if cut := string(rs[:n]) + "…"; fyne.MeasureText(cut, size, style).Width <= width {
			return cut
		}
	}
	return ""
}

// readableOn is black or white, whichever reads better on bg: the theme's foreground on
// the green "done" bar of the dark theme was white on light green.
func readableOn(bg color.Color) color.Color {
	if luminance(bg) > 0.179 { // where black and white contrast alike with bg
		return color.Black
	}
	return color.White
}

// luminance is the relative luminance of c (WCAG 2), 0 for black to 1 for white.
func luminance(c color.Color) float64 {
	r, g, b, _ := c.RGBA()
	lin := func(v uint32) float64 {
		s := float64(v) / 0xffff
		if s <= 0.03928 {
			return s / 12.92
		}
		return math.Pow((s+0.055)/1.055, 2.4)
	}
	return 0.2126*lin(r) + 0.7152*lin(g) + 0.0722*lin(b)
}
