package ui

import (
	"image/color"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
)

// Theme choices of View ▸ Theme, as remembered in the app's preferences.
const (
	ThemeSystem = "system"
	ThemeLight  = "light"
	ThemeDark   = "dark"
)

// themePref is the preference key of the theme choice: one for every home, as it is the
// person's taste, not the home's.
const themePref = "theme"

// variantTheme is Fyne's theme with its variant forced: light or dark whatever the
// desktop prefers.
type variantTheme struct {
	fyne.Theme
	variant fyne.ThemeVariant
}

func (t variantTheme) Color(n fyne.ThemeColorName, _ fyne.ThemeVariant) color.Color {
	return t.Theme.Color(n, t.variant)
}

// themeOf is the app theme of a choice; an unknown choice follows the system.
func themeOf(choice string) fyne.Theme {
	switch choice {
	case ThemeLight:
		return focusTheme{variantTheme{theme.DefaultTheme(), theme.VariantLight}}
	case ThemeDark:
		return focusTheme{variantTheme{theme.DefaultTheme(), theme.VariantDark}}
	}
	return focusTheme{theme.DefaultTheme()}
}

// themeChoices are View's theme items: the choice and its label.
var themeChoices = []struct{ choice, label string }{
	{ThemeSystem, "System theme"}, {ThemeLight, "Light theme"}, {ThemeDark, "Dark theme"},
}

// SetTheme applies a theme choice (ThemeSystem, ThemeLight, ThemeDark), remembers it in
// the app's preferences and checks its item in View.
func (m *Main) SetTheme(choice string) {
	m.App.Preferences().SetString(themePref, choice)
	m.App.Settings().SetTheme(themeOf(choice))
	mm := m.Win.MainMenu()
	for _, mn := range mm.Items {
		for _, it := range mn.Items {
			for _, c := range themeChoices {
				if it.Label == c.label {
					it.Checked = c.choice == choice
				}
			}
		}
	}
	mm.Refresh()
}

// themeItems are View's theme items, the remembered choice checked and applied.
func (m *Main) themeItems() []*fyne.MenuItem {
	choice := m.App.Preferences().StringWithFallback(themePref, ThemeSystem)
	m.App.Settings().SetTheme(themeOf(choice)) // the system theme too: its focus is drawn in amber (focusTheme)
	items := make([]*fyne.MenuItem, len(themeChoices))
	for i, c := range themeChoices {
		items[i] = fyne.NewMenuItem(c.label, func() { m.SetTheme(c.choice) })
		items[i].Checked = c.choice == choice
	}
	return items
}
