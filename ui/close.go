package ui

import (
	"fmt"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"

	"baton/store"
)

// Closing the writer while its runs are going cancels them: the core's Close stops the
// executor, which records each run as cancelled, and another window takes over. The
// person is asked first. A reader, or a writer with nothing running, closes at once.

// RequestClose is what the window's close button does: it closes the window, after asking
// when this window is the writer and runs it owns are going. UI goroutine.
func (m *Main) RequestClose() {
	m.confirmClose(func() {
		m.SaveWindowSize()
		m.Win.Close()
	})
}

// RequestQuit is File ▸ Quit and Ctrl+Q: Quit, after asking as RequestClose does. UI
// goroutine.
func (m *Main) RequestQuit() { m.confirmClose(m.Quit) }

// RunsGoingHere counts the runs that are running in this window while it is the writer:
// the runs closing it would cancel. It asks the core, not the last snapshot shown.
func (m *Main) RunsGoingHere() int {
	st := m.core.Status()
	if st.Role != "writer" {
		return 0
	}
	n := 0
	for _, r := range m.core.Snapshot().Runs {
		if r.Status != store.StatusRunning {
			continue
		}
		if (r.Owner != nil && r.Owner.Instance == st.Instance) || (r.Owner == nil && r.OwnerPID == st.PID) {
			n++
		}
	}
	return n
}

// confirmClose runs proceed at once when closing cancels nothing, else after the person
// said Close in a dialog. While the dialog is up, another request does nothing.
func (m *Main) confirmClose(proceed func()) {
	n := m.RunsGoingHere()
	if n == 0 {
		proceed()
		return
	}
	if m.closeAsk != nil {
		return
	}
	msg := widget.NewLabel(fmt.Sprintf("%s going in this window. Closing cancels them (they are recorded as "+
		"cancelled) and another open window, if there is one, takes over. Close anyway?", plural(n, "run is", "runs are")))
	msg.Wrapping = fyne.TextWrapWord
	d := dialog.NewCustomConfirm("Close with runs going?", "Close", "Cancel", msg, func(ok bool) {
		m.closeAsk = nil
		if ok {
			proceed()
		}
	}, m.Win)
	d.Resize(fyne.NewSize(460, 220))
	m.closeAsk = d
	d.Show()
}
