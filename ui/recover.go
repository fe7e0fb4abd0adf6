package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"baton/store"
	"baton/ui/view"
)

// recoverSize is the recovery dialogs' size: the plan names files and generations.
var recoverSize = fyne.NewSize(560, 380)

// ShowRecover is the role bar's "Recover…": it reads what recovery would restore
// (Intents.PlanRecovery, off the UI goroutine), shows it, and asks before recovering
// with a button naming the act ("Recover home"); Enter recovers, Escape cancels. A window
// that does not hold state.lock shows the plan and why it may not recover.
func (m *Main) ShowRecover() {
	m.Role.Recover.Disable()
	in := m.core.Intents()
	var plan *store.Recovery
	var holds bool
	m.runAsync(func() (err error) {
		plan, err = in.PlanRecovery()
		holds = in.HoldsLock()
		return err
	}, func(err error) {
		m.Role.Recover.Enable()
		if err != nil {
			m.showInfo(view.RecoverAction, recoverText(view.RecoverResultText(nil, err)), recoverSize)
			return
		}
		text := recoverText(view.RecoverPlanText(plan, holds))
		if !holds {
			m.showInfo(view.RecoverAction, text, recoverSize)
			return
		}
		m.showConfirm(view.RecoverAction, view.RecoverAction, view.ConfirmBack, text, func(ok bool) {
			if ok {
				m.recover()
			}
		}).Resize(recoverSize)
	})
}

// recover recovers the home (Intents.Recover, off the UI goroutine) and says how it went
// in a dialog and in the role bar.
func (m *Main) recover() {
	m.Role.Recover.Disable()
	m.Role.Note.SetText("Recovering the home…")
	m.Role.Note.Show()
	var rec *store.Recovery
	m.runAsync(func() (err error) {
		rec, err = m.core.Intents().Recover()
		return err
	}, func(err error) {
		m.Role.Recover.Enable()
		if err != nil {
			m.Role.Note.SetText("Not recovered.")
		} else {
			m.Role.Note.SetText("Recovered.")
		}
		m.showInfo(view.RecoverAction, recoverText(view.RecoverResultText(rec, err)), recoverSize)
	})
}

// recoverText is s in a wrapping label that scrolls when the plan is long.
func recoverText(s string) fyne.CanvasObject {
	l := widget.NewLabel(s)
	l.Wrapping = fyne.TextWrapWord
	return container.NewVScroll(l)
}
