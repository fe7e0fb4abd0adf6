package ui

import (
	"image/color"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"baton/store"
)

// contrast is the WCAG contrast ratio of a and b, 1 to 21.
func contrast(a, b color.Color) float64 {
	la, lb := luminance(a), luminance(b)
	return (max(la, lb) + 0.05) / (min(la, lb) + 0.05)
}

// TestStatusBarTextReadable (issue 22, daily use 9): the text on a full bar of every
// status reads at a contrast of at least 4.5 (WCAG AA) in the light and the dark theme.
func TestStatusBarTextReadable(t *testing.T) {
	isolate(t)
	a := test.NewTempApp(t)
	for _, th := range []string{ThemeLight, ThemeDark} {
		a.Settings().SetTheme(themeOf(th))
		for _, st := range []string{store.StatusSucceeded, store.StatusFailed, store.StatusRunning, store.StatusCancelled} {
			b := NewStatusBar()
			w := test.NewWindow(b)
			w.Resize(fyne.NewSize(130, 30))
			b.Set(st, 1, "step 2 of 2")
			r := test.WidgetRenderer(b).(*statusBarRenderer)
			if c := contrast(r.text.Color, r.fill.FillColor); c < 4.5 {
				t.Errorf("%s theme, %s bar: text contrast %.1f, want at least 4.5", th, st, c)
			}
			w.Close()
		}
	}
}

// TestTabIconsDistinct (issue 22, daily use 9): Timeline and Schedules have their own icons.
func TestTabIconsDistinct(t *testing.T) {
	_, _, m, _ := writerUI(t)
	seen := map[string]string{}
	for _, it := range m.Tabs.Items {
		if other, ok := seen[it.Icon.Name()]; ok {
			t.Errorf("%s and %s share the icon %s", other, it.Text, it.Icon.Name())
		}
		seen[it.Icon.Name()] = it.Text
	}
}
