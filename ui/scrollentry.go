package ui

import (
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// ScrollEntry is an Entry over which the mouse wheel scrolls the form around it.
//
// Fyne 2.7's Entry keeps its own scroller for its text, and the driver gives a wheel
// event to the innermost scrollable under the pointer: over a form made of entries the
// wheel did nothing. While it does not have the focus a ScrollEntry has no scroller of
// its own (Wrapping off, Scroll none), clips its text itself and hands the wheel to
// outer. With the focus it is a plain Entry again only while its text does not fit, so
// long text scrolls under the caret; a focused field whose text fits hands the wheel on
// too (in Fyne 2.7 the Entry's own scroller took it and did nothing).
type ScrollEntry struct {
	widget.Entry
	outer **container.Scroll // the container the wheel scrolls, once it is made
	wrap  fyne.TextWrap      // a plain Entry's wrapping, restored with the focus
	rows  int                // rows shown by a multi-line entry; 0 for one line
	min   fyne.Size          // the size a plain Entry like this one needs
	focus bool               // the entry has the focus
}

// newScrollEntry returns a ScrollEntry whose wheel scrolls *outer (the form's scroll
// container, made after its fields): single-line for rows 0, else multi-line showing rows
// rows.
func newScrollEntry(rows int, outer **container.Scroll) *ScrollEntry {
	e := &ScrollEntry{outer: outer, rows: rows}
	e.MultiLine = rows > 0
	e.ExtendBaseWidget(e)
	if rows > 0 {
		e.SetMinRowsVisible(rows)
	}
	e.wrap = fyne.TextWrap(fyne.TextTruncateClip) // what widget.NewEntry sets
	e.unfocused()
	return e
}

// unfocused drops the Entry's own scroller: the wheel then reaches Scrolled.
func (e *ScrollEntry) unfocused() {
	e.Wrapping, e.Scroll = fyne.TextWrapOff, fyne.ScrollNone
}

// Scrolled passes the wheel to the form around the entry.
func (e *ScrollEntry) Scrolled(ev *fyne.ScrollEvent) {
	if s := *e.outer; s != nil {
		s.Scrolled(ev)
	}
}

// FocusGained gives the Entry its scroller back if its text needs one.
func (e *ScrollEntry) FocusGained() {
	e.focus = true
	e.place()
	e.Entry.FocusGained()
	reveal(*e.outer, e)
}

// reveal scrolls s, if need be, so that o (inside it) is in view: Tab and Ctrl+N must
// never leave the focus, and what is typed, in a field nobody sees.
func reveal(s *container.Scroll, o fyne.CanvasObject) {
	d := fyne.CurrentApp().Driver()
	if s == nil || s.Content == nil || d.CanvasForObject(o) == nil {
		return
	}
	top := d.AbsolutePositionForObject(o).Y - d.AbsolutePositionForObject(s.Content).Y // o's place in the content
	off := s.Offset
	switch h, view := o.Size().Height, s.Size().Height; {
	case top < off.Y:
		off.Y = top
	case top+h > off.Y+view:
		off.Y = top + h - view
	default:
		return
	}
	s.ScrollToOffset(off)
}

// FocusLost hands the wheel back to the form.
func (e *ScrollEntry) FocusLost() {
	e.focus = false
	e.unfocused()
	e.Entry.FocusLost()
}

// TypedRune types r, then gives the Entry its scroller once the text outgrows the field.
func (e *ScrollEntry) TypedRune(r rune) { e.Entry.TypedRune(r); e.place() }

// TypedKey handles key, then places the scroller as the text now needs.
func (e *ScrollEntry) TypedKey(key *fyne.KeyEvent) {
	if isMenuKey(key) {
		toggleMenu(e)
		return
	}
	e.Entry.TypedKey(key)
	e.place()
}

// TypedShortcut handles s (a paste may make the text long), then places the scroller.
func (e *ScrollEntry) TypedShortcut(s fyne.Shortcut) { e.Entry.TypedShortcut(s); e.place() }

// place gives a focused entry its own scroller while its text does not fit, and takes it
// away while it does.
func (e *ScrollEntry) place() {
	if !e.focus {
		return
	}
	wrap, scroll := e.Wrapping, e.Scroll
	if e.fits() {
		e.unfocused()
	} else {
		e.Wrapping, e.Scroll = e.wrap, fyne.ScrollBoth
	}
	if wrap != e.Wrapping || scroll != e.Scroll {
		e.Refresh()
	}
}

// fits reports whether the text shows whole in the field without scrolling.
func (e *ScrollEntry) fits() bool {
	th := e.Theme()
	room := e.Size().Width - 4*th.Size(theme.SizeNameInnerPadding) // the text's inset, and the caret
	lines := strings.Split(e.Text, "\n")
	if max(e.rows, 1) < len(lines) {
		return false
	}
	for _, l := range lines {
		if fyne.MeasureText(l, th.Size(theme.SizeNameText), e.TextStyle).Width > room {
			return false
		}
	}
	return true
}

// MinSize is what a plain Entry needs: without its scroller an Entry would ask for the
// width of its whole text and widen the window.
func (e *ScrollEntry) MinSize() fyne.Size {
	if e.min.IsZero() {
		plain := widget.NewEntry()
		if e.rows > 0 {
			plain = widget.NewMultiLineEntry()
			plain.SetMinRowsVisible(e.rows)
		}
		e.min = plain.MinSize()
	}
	return e.min
}
