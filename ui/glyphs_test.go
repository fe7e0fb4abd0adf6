package ui

import (
	"bytes"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
	"github.com/go-text/typesetting/font"

	"baton/store"
	"baton/ui/view"
)

// TestWindowTextIsInTheThemeFont: every character Baton itself writes in the window (its
// tabs, menus, guide, About and shortcut list) is in the theme's own font. A character it
// lacks is drawn from a font the system may not have, and, in every window, makes Fyne
// load its emoji font and scan the system's fonts for it (about 9 MB, for a "▸").
func TestWindowTextIsInTheThemeFont(t *testing.T) {
	_, w, m, q := writerUI(t)
	addWorkflow(t, w, "nightly", "sh", "-c", "echo done")
	q.waitFor(t, "the workflow listed", func() bool { return m.Workflows.Length() == 1 })
	m.OpenWorkflow("nightly")
	test.Tap(m.Editor.RunNow)
	q.waitFor(t, "the run ended", func() bool { return m.RunView.Status.Text == store.StatusSucceeded })

	var texts []string
	for _, it := range m.Tabs.Items {
		m.ShowTab(it.Text)
		texts = append(texts, it.Text)
	}
	collect := func(o fyne.CanvasObject) {
		switch x := o.(type) { // hidden widgets have no text drawn yet: their own fields
		case *canvas.Text:
			texts = append(texts, x.Text)
		case *widget.Label:
			texts = append(texts, x.Text)
		case *widget.Button:
			texts = append(texts, x.Text)
		case *widget.Entry:
			texts = append(texts, x.PlaceHolder)
		case *widget.Check:
			texts = append(texts, x.Text)
		case *widget.Select:
			texts = append(texts, x.PlaceHolder)
			texts = append(texts, x.Options...)
		case *widget.RadioGroup:
			texts = append(texts, x.Options...)
		}
	}
	walkObjects(m.Win.Content(), collect) // the shown tab only: each tab's content too
	for _, it := range m.Tabs.Items {
		walkObjects(it.Content, collect)
	}
	for _, mn := range m.Win.MainMenu().Items {
		texts = append(texts, mn.Label)
		for _, it := range mn.Items {
			texts = append(texts, it.Label)
		}
	}
	texts = append(texts, view.GuideText, view.AboutText("1.0", m.st, m.doc))
	texts = append(texts, shortcutLines(m.Win.MainMenu())...)

	face, err := font.ParseTTF(bytes.NewReader(theme.DefaultTextFont().Content()))
	if err != nil {
		t.Fatal(err)
	}
	if len(texts) < 50 {
		t.Fatalf("only %d texts found in the window: %q", len(texts), texts)
	}
	missing := map[rune]string{}
	for _, s := range texts {
		for _, r := range s {
			if _, ok := face.NominalGlyph(r); !ok && r != '\n' && r != '\t' {
				missing[r] = s
			}
		}
	}
	for r, s := range missing {
		t.Errorf("%q (U+%04X) is not in the theme font; in %q", r, r, strings.TrimSpace(s))
	}
}

// TestEmojiInANameIsDrawn: the emoji font, which joins a text style's fonts only when a
// character needs it (.third_party/fyne), still draws an emoji in a workflow's name: in
// colour, where the theme's font would draw a grey box or nothing.
func TestEmojiInANameIsDrawn(t *testing.T) {
	isolate(t)
	test.NewTempApp(t)
	colours := func(text string) int {
		w := test.NewWindow(widget.NewLabel(text))
		defer w.Close()
		img := w.Canvas().Capture()
		n := 0
		b := img.Bounds()
		for y := b.Min.Y; y < b.Max.Y; y++ {
			for x := b.Min.X; x < b.Max.X; x++ {
				r, g, bl, _ := img.At(x, y).RGBA()
				if max(r, g, bl)-min(r, g, bl) > 0x3000 { // not a grey: a colour
					n++
				}
			}
		}
		return n
	}
	if n := colours("nightly backup"); n != 0 {
		t.Fatalf("plain text drew %d coloured pixels; the check needs none", n)
	}
	if n := colours("nightly backup 🚀"); n < 20 {
		t.Errorf("the emoji drew %d coloured pixels, want it drawn in colour", n)
	}
}
