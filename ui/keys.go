package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"
)

// The keyboard reaches every list and completes every action.
//
// Why: Fyne 2.7's List takes the focus on Tab, but its arrows move a faint focus row
// and only Space selects; Enter does nothing, and a search field's Down or Enter leaves
// the list alone. A person without the mouse could not open a workflow or a run.

// KeyList is a List whose selection follows the arrow keys (Up, Down, Page Up, Page
// Down, Home, End), so the row the keys reach is opened and plainly marked; Enter runs
// OnEnter (to the editor, to the log). Set OnPicked, not OnSelected: the list keeps
// OnSelected to know where the keys start from.
type KeyList struct {
	widget.List
	OnPicked func(id widget.ListItemID) // a row was selected, by the keys, the mouse or code
	OnEnter  func()                     // Enter or Return while the list has the focus
	cur      widget.ListItemID          // the row selected last
}

// NewKeyList returns a KeyList of length rows, made by create and filled by update.
func NewKeyList(length func() int, create func() fyne.CanvasObject, update func(widget.ListItemID, fyne.CanvasObject)) *KeyList {
	l := &KeyList{cur: -1}
	l.Length, l.CreateItem, l.UpdateItem = length, create, update
	l.List.OnSelected = func(id widget.ListItemID) {
		l.cur = id
		if l.OnPicked != nil {
			l.OnPicked(id)
		}
	}
	l.ExtendBaseWidget(l)
	return l
}

// TypedKey moves the selection with the arrows and runs OnEnter on Enter.
func (l *KeyList) TypedKey(ev *fyne.KeyEvent) {
	n := l.Length()
	page := 10
	next := -1
	switch ev.Name {
	case fyne.KeyDown:
		next = min(l.cur+1, n-1)
	case fyne.KeyUp:
		next = max(l.cur-1, 0)
	case fyne.KeyPageDown:
		next = min(l.cur+page, n-1)
	case fyne.KeyPageUp:
		next = max(l.cur-page, 0)
	case fyne.KeyHome:
		next = 0
	case fyne.KeyEnd:
		next = n - 1
	case fyne.KeyF10:
		toggleMenu(l)
		return
	case fyne.KeyReturn, fyne.KeyEnter:
		if l.OnEnter != nil {
			l.OnEnter()
		}
		return
	default:
		l.List.TypedKey(ev)
		return
	}
	if n == 0 || next < 0 {
		return
	}
	if next == l.cur { // selected already (an arrow at the end): show it
		l.ScrollTo(next)
		return
	}
	l.Select(next)
}

// KeyEntry is an Entry that hands Down (and Enter, with OnSubmitted) on: from a search
// field to the list it filters. Escape runs OnEscape (a dialog's Cancel).
type KeyEntry struct {
	widget.Entry
	OnDown   func()
	OnEscape func()
}

// NewKeyEntry returns a single-line KeyEntry.
func NewKeyEntry() *KeyEntry {
	e := &KeyEntry{}
	e.ExtendBaseWidget(e)
	return e
}

// TypedKey runs OnDown on Down and OnEscape on Escape; other keys edit the text.
func (e *KeyEntry) TypedKey(ev *fyne.KeyEvent) {
	switch {
	case isMenuKey(ev):
		toggleMenu(e)
	case ev.Name == fyne.KeyDown && e.OnDown != nil:
		e.OnDown()
	case ev.Name == fyne.KeyEscape && e.OnEscape != nil:
		e.OnEscape()
	default:
		e.Entry.TypedKey(ev)
	}
}

// focusList gives l the focus and selects its first row if none is: from a search
// field, Down or Enter lands on the first match.
func (m *Main) focusList(l *KeyList) {
	m.Win.Canvas().Focus(l)
	if l.Length() > 0 && (l.cur < 0 || l.cur >= l.Length()) {
		l.Select(0)
	}
}

// UnselectAll drops the selection; the keys start again from the top.
func (l *KeyList) UnselectAll() {
	l.cur = -1
	l.List.UnselectAll()
}

// toggleMenu opens (or closes) the window's menu bar on its first menu, as Alt alone
// does in Fyne's desktop driver: F10 does it too. It reports whether o's canvas has a menu bar to open
// (the test driver's has none; tests replace menuToggled to see the call).
func toggleMenu(o fyne.CanvasObject) bool {
	c := fyne.CurrentApp().Driver().CanvasForObject(o)
	if c == nil {
		return false
	}
	menuToggled(c)
	t, ok := c.(interface{ ToggleMenu() })
	if ok {
		t.ToggleMenu()
	}
	return ok
}

// openMenu opens menu number i (0: File) of the menu bar of o's canvas, whether or not
// the bar was open: the bar is opened on its first menu, as F10 does, and the focus moved
// i menus right, as the Right key does (Fyne's menu bar opens the menu its focus reaches).
// It reports whether o's canvas has a menu bar (the test driver's has none; tests replace
// menuOpened to see the call).
func openMenu(o fyne.CanvasObject, i int) bool {
	c := fyne.CurrentApp().Driver().CanvasForObject(o)
	if c == nil {
		return false
	}
	menuOpened(c, i)
	bar, ok := c.(interface {
		ToggleMenu()
		DismissMenu() bool
	})
	if !ok {
		return false
	}
	bar.DismissMenu() // an open bar would be closed by the toggle
	bar.ToggleMenu()
	for range i {
		c.FocusNext()
	}
	return true
}

// menuToggled is called with the canvas whose menu bar F10 opens; tests set it.
var menuToggled = func(fyne.Canvas) {}

// menuOpened is called with the canvas and the menu that Alt and a menu's letter open;
// tests set it.
var menuOpened = func(fyne.Canvas, int) {}

// isMenuKey reports whether ev opens the menu bar (F10).
func isMenuKey(ev *fyne.KeyEvent) bool { return ev.Name == fyne.KeyF10 }
