package ui

import (
	"image/color"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// LogSelect lies over the log's grid and lets the person select text in it: drag with the
// mouse, Shift+click to extend, Ctrl+A for all; Ctrl+C (or Copy) copies the selection.
// With the focus (a click, or Tab) the keys scroll the log: Up, Down, Page Up, Page Down,
// Home, End. The wheel it hands on to the grid, paging in earlier text at the top.
//
// Why an overlay: Fyne 2.7's TextGrid selects nothing, and the scroller inside it takes
// the events of the widget around it; a widget drawn over it gets the drags and taps
// first, since the driver gives an event to the last object under the pointer.
type LogSelect struct {
	widget.BaseWidget
	p        *LogPane
	from, to gridCell // the selection's ends as the person made them (to may be before from)
	has      bool     // there is a selection
	dragging bool
	focused  bool
	frame    *canvas.Rectangle // shows the focus
}

// gridCell is a row and column of the grid.
type gridCell struct{ row, col int }

func (a gridCell) before(b gridCell) bool { return a.row < b.row || (a.row == b.row && a.col < b.col) }

func newLogSelect(p *LogPane) *LogSelect {
	s := &LogSelect{p: p, frame: canvas.NewRectangle(color.Transparent)}
	s.frame.StrokeWidth = 2
	s.ExtendBaseWidget(s)
	return s
}

// CreateRenderer draws only the focus frame: the grid below shows the text.
func (s *LogSelect) CreateRenderer() fyne.WidgetRenderer { return widget.NewSimpleRenderer(s.frame) }

// cellAt is the grid cell under pos (relative to the grid, which the overlay covers).
func (s *LogSelect) cellAt(pos fyne.Position) gridCell {
	r, c := s.p.Grid.CursorLocationForPosition(pos)
	n := len(s.p.Grid.Rows)
	if n == 0 {
		return gridCell{}
	}
	r = min(max(r, 0), n-1)
	return gridCell{r, max(c, 0)}
}

// Dragged selects from where the drag began to where the pointer is.
func (s *LogSelect) Dragged(ev *fyne.DragEvent) {
	if !s.dragging {
		s.dragging = true
		s.focus()
		s.paint(false)
		s.from, s.has = s.cellAt(ev.Position.Subtract(ev.Dragged)), true
	}
	s.paint(false)
	s.to = s.cellAt(ev.Position)
	s.paint(true)
}

// DragEnd ends a selection by the mouse.
func (s *LogSelect) DragEnd() { s.dragging = false }

// Tapped takes the focus and drops the selection; with Shift it extends it to the tap.
func (s *LogSelect) Tapped(ev *fyne.PointEvent) {
	s.focus()
	s.paint(false)
	at := s.cellAt(ev.Position)
	if s.has && s.shift() {
		s.to = at
		s.paint(true)
		return
	}
	s.has = false
	s.from, s.to = at, at
}

// shift reports whether Shift is held (desktop drivers only).
func (s *LogSelect) shift() bool {
	d, ok := fyne.CurrentApp().Driver().(desktop.Driver)
	return ok && d.CurrentKeyModifiers()&fyne.KeyModifierShift != 0
}

func (s *LogSelect) focus() {
	if c := fyne.CurrentApp().Driver().CanvasForObject(s); c != nil {
		c.Focus(s)
	}
}

// Scrolled hands the wheel to the grid; at the top it pages in earlier text.
func (s *LogSelect) Scrolled(ev *fyne.ScrollEvent) { s.scrollBy(ev.Scrolled.DX, ev.Scrolled.DY) }

func (s *LogSelect) scrollBy(dx, dy float32) {
	g := s.p.Grid
	off := g.ScrollOffset()
	if dy > 0 && off.Y <= 0 && s.p.earlier() {
		off = g.ScrollOffset()
	}
	g.ScrollToOffset(fyne.NewPos(max(off.X-dx, 0), max(off.Y-dy, 0)))
	if dy < 0 && s.p.cut && s.p.atBottom() {
		s.p.toEnd()
	}
}

// FocusGained shows the focus.
func (s *LogSelect) FocusGained() {
	s.focused = true
	s.frame.StrokeColor = theme.Color(theme.ColorNameFocus)
	s.frame.Refresh()
}

// FocusLost hides the focus.
func (s *LogSelect) FocusLost() {
	s.focused = false
	s.frame.StrokeColor = color.Transparent
	s.frame.Refresh()
}

// TypedRune does nothing: the log is read-only.
func (s *LogSelect) TypedRune(rune) {}

// TypedKey scrolls the log from the keyboard.
func (s *LogSelect) TypedKey(ev *fyne.KeyEvent) {
	row := s.p.rowHeight()
	page := max(s.p.Grid.Size().Height-row, row)
	switch ev.Name {
	case fyne.KeyUp:
		s.scrollBy(0, row)
	case fyne.KeyDown:
		s.scrollBy(0, -row)
	case fyne.KeyPageUp:
		s.scrollBy(0, page)
	case fyne.KeyPageDown:
		s.scrollBy(0, -page)
	case fyne.KeyHome:
		for s.p.earlier() {
		}
		s.p.Grid.ScrollToTop()
	case fyne.KeyEnd:
		s.p.toEnd()
	case fyne.KeyF10:
		toggleMenu(s)
	}
}

// TypedShortcut copies the selection (Ctrl+C) and selects all (Ctrl+A).
func (s *LogSelect) TypedShortcut(sc fyne.Shortcut) {
	switch sc.(type) {
	case *fyne.ShortcutCopy:
		s.p.copy()
	case *fyne.ShortcutSelectAll:
		if n := len(s.p.Grid.Rows); n > 0 {
			s.paint(false)
			s.from, s.to, s.has = gridCell{0, 0}, gridCell{n - 1, len(s.p.Grid.Rows[n-1].Cells)}, true
			s.paint(true)
		}
	}
}

// ends returns the selection's ends in order.
func (s *LogSelect) ends() (a, b gridCell) {
	if s.to.before(s.from) {
		return s.to, s.from
	}
	return s.from, s.to
}

// paint marks the selection (on) or unmarks it, giving back Find's marks.
func (s *LogSelect) paint(on bool) {
	g := s.p.Grid
	if !s.has || len(g.Rows) == 0 {
		return
	}
	a, b := s.ends()
	a.row, b.row = min(a.row, len(g.Rows)-1), min(b.row, len(g.Rows)-1)
	var style widget.TextGridStyle
	if on {
		style = &widget.CustomTextGridStyle{BGColor: theme.Color(theme.ColorNameSelection)}
	}
	for r := a.row; r <= b.row; r++ {
		cells := g.Rows[r].Cells
		from, to := 0, len(cells)-1
		if r == a.row {
			from = a.col
		}
		if r == b.row {
			to = min(b.col, len(cells)-1)
		}
		for c := from; c <= to && c < len(cells); c++ {
			cells[c].Style = style
		}
	}
	if !on {
		s.p.markRows(a.row, b.row)
	}
	g.Refresh()
}

// clear drops the selection; the grid's text is about to be replaced.
func (s *LogSelect) clear() { s.has, s.dragging = false, false }

// text is the selected text ("" for none), lines ended by newlines except the last.
func (s *LogSelect) text() string {
	g := s.p.Grid
	if !s.has || len(g.Rows) == 0 || s.from == s.to {
		return ""
	}
	a, b := s.ends()
	var out strings.Builder
	for r := a.row; r <= b.row && r < len(g.Rows); r++ {
		line := []rune(g.RowText(r))
		from, to := 0, len(line)
		if r == a.row {
			from = min(a.col, len(line))
		}
		if r == b.row {
			to = min(b.col+1, len(line))
		}
		if from < to {
			out.WriteString(string(line[from:to]))
		}
		if r < b.row {
			out.WriteByte('\n')
		}
	}
	return out.String()
}
