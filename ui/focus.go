package ui

import (
	"image/color"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
)

// focusTheme draws the keyboard's focus in amber: Fyne's default is a faint tint of the
// primary blue, invisible on a blue button (Save, Run now) and hard to see on a list.
type focusTheme struct{ fyne.Theme }

// FocusColor is the focus colour of every theme.
var FocusColor = color.NRGBA{R: 0xff, G: 0xa0, B: 0x00, A: 0xb0}

// Color is the theme's colour, with the focus in FocusColor.
func (t focusTheme) Color(n fyne.ThemeColorName, v fyne.ThemeVariant) color.Color {
	if n == theme.ColorNameFocus {
		return FocusColor
	}
	return t.Theme.Color(n, v)
}
