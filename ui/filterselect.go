package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"

	"baton/ui/view"
)

// FilterSelect is a Select that filters its choices as the person types: with 300
// workflows, typing "back" keeps the ones whose name holds it (any case), selects the
// first, and the list (Space or Down) shows only those. Backspace takes a letter off,
// Escape clears; the filter is dropped when the focus leaves.
type FilterSelect struct {
	widget.Select
	all   []string // every choice
	query string   // what was typed since the focus came
}

// NewFilterSelect returns a FilterSelect without choices; changed is called with each
// choice made.
func NewFilterSelect(changed func(string)) *FilterSelect {
	s := &FilterSelect{}
	s.OnChanged = changed
	s.ExtendBaseWidget(s)
	return s
}

// SetAll sets every choice; the filter typed applies to them.
func (s *FilterSelect) SetAll(options []string) {
	s.all = options
	s.apply()
}

// apply shows the choices that hold the query.
func (s *FilterSelect) apply() {
	if s.query == "" {
		s.Options = s.all
	} else {
		s.Options = nil
		for _, o := range s.all {
			if view.ContainsFold(o, s.query) {
				s.Options = append(s.Options, o)
			}
		}
	}
	s.Refresh()
}

// TypedRune narrows the choices and selects the first that is left.
func (s *FilterSelect) TypedRune(r rune) {
	s.query += string(r)
	s.apply()
	if len(s.Options) > 0 && s.Selected != s.Options[0] {
		s.SetSelected(s.Options[0])
	}
}

// TypedKey takes a letter off the filter (Backspace), clears it (Escape), or does what a
// Select does (Space, Down and Up open the list of what is left).
func (s *FilterSelect) TypedKey(ev *fyne.KeyEvent) {
	switch {
	case isMenuKey(ev):
		toggleMenu(s)
	case ev.Name == fyne.KeyBackspace && s.query != "":
		r := []rune(s.query)
		s.query = string(r[:len(r)-1])
		s.apply()
	case ev.Name == fyne.KeyEscape && s.query != "":
		s.query = ""
		s.apply()
	default:
		s.Select.TypedKey(ev)
	}
}

// FocusLost drops the filter.
func (s *FilterSelect) FocusLost() {
	s.query = ""
	s.apply()
	s.Select.FocusLost()
}
