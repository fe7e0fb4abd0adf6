package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"

	"baton/ui/view"
)

// Closing the writer while its runs are going cancels them, except those whose workflow
// says to keep running (on_owner_lost "adopt"), which go on for the next writer; the
// person is asked first when something would be cancelled (view.RunsGoingHere,
// view.RunsKeptGoing and view.CloseQuestion decide). A reader, or a writer with nothing
// to cancel, closes at once.

// RequestClose is what the window's close button does: it closes the window, after asking
// when this window is the writer and closing would cancel runs it owns. UI goroutine.
func (m *Main) RequestClose() {
	m.confirmClose(func() {
		m.SaveWindowSize()
		m.Win.Close()
	})
}

// RequestQuit is File ▸ Quit and Ctrl+Q: Quit, after asking as RequestClose does. UI
// goroutine.
func (m *Main) RequestQuit() { m.confirmClose(m.Quit) }

// RunsGoingHere counts the runs that closing this window would cancel. It asks the core,
// not the last snapshot shown.
func (m *Main) RunsGoingHere() int {
	return view.RunsGoingHere(m.core.Status(), m.core.Snapshot())
}

// RunsKeptGoing counts the runs of this window that closing it leaves going (their
// workflows keep running when the window closes). It asks the core.
func (m *Main) RunsKeptGoing() int {
	return view.RunsKeptGoing(m.core.Status(), m.core.Snapshot())
}

// confirmClose runs proceed at once when closing cancels nothing, else after the person
// said Close in a dialog. While the dialog is up, another request does nothing.
func (m *Main) confirmClose(proceed func()) {
	st, doc := m.core.Status(), m.core.Snapshot()
	ask, title, question := view.CloseQuestion(view.RunsGoingHere(st, doc), view.RunsKeptGoing(st, doc))
	if !ask {
		proceed()
		return
	}
	if m.closeAsk != nil {
		return
	}
	msg := widget.NewLabel(question)
	msg.Wrapping = fyne.TextWrapWord
	m.closeAsk = m.showConfirm(title, "Close", "Cancel", msg, func(ok bool) {
		m.closeAsk = nil
		if ok {
			proceed()
		}
	})
}
