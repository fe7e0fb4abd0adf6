package ui

import (
	"image/color"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"

	"baton/ui/view"
)

// Dialogs answer the keyboard: Enter says yes (or submits), Escape says no (or cancels).
// Fyne 2.7's dialogs take neither. A confirmation's button names its action ("Delete
// workflow"), not "Yes".

// dialogKeys is an invisible widget in a dialog that takes the focus when the dialog
// shows and turns Enter and Escape into the dialog's answers.
type dialogKeys struct {
	widget.BaseWidget
	yes, no func()
}

func newDialogKeys(yes, no func()) *dialogKeys {
	k := &dialogKeys{yes: yes, no: no}
	k.ExtendBaseWidget(k)
	return k
}

// CreateRenderer draws nothing.
func (k *dialogKeys) CreateRenderer() fyne.WidgetRenderer {
	return widget.NewSimpleRenderer(canvas.NewRectangle(color.Transparent))
}

// FocusGained does nothing: the dialog's default button shows what Enter does.
func (k *dialogKeys) FocusGained() {}

// FocusLost does nothing.
func (k *dialogKeys) FocusLost() {}

// TypedRune does nothing.
func (k *dialogKeys) TypedRune(rune) {}

// TypedKey answers Enter and Escape.
func (k *dialogKeys) TypedKey(ev *fyne.KeyEvent) {
	switch ev.Name {
	case fyne.KeyReturn, fyne.KeyEnter:
		k.yes()
	case fyne.KeyEscape:
		k.no()
	}
}

// confirm asks the person a yes/no question in a dialog whose confirm button names the
// action (view.ConfirmAction), with Enter and Escape as its answers. It is
// Options.Confirm unless a test sets another.
func (m *Main) confirm(title, question string, fn func(bool)) {
	msg := widget.NewLabel(question)
	msg.Wrapping = fyne.TextWrapWord
	m.showConfirm(title, view.ConfirmAction(title), view.ConfirmBack, msg, fn)
}

// showConfirm shows a confirmation of content with buttons yes and no, answered by the
// keys too, and returns it.
func (m *Main) showConfirm(title, yes, no string, content fyne.CanvasObject, fn func(bool)) *dialog.ConfirmDialog {
	var d *dialog.ConfirmDialog
	keys := newDialogKeys(func() { d.Confirm() }, func() { d.Hide() })
	d = dialog.NewCustomConfirm(title, yes, no, container.NewStack(keys, content), fn, m.Win)
	d.Resize(fyne.NewSize(460, 220))
	d.Show()
	m.Win.Canvas().Focus(keys)
	return d
}

// showInfo shows content in a dialog with a Close button, closed by Enter or Escape too,
// at size (zero: its own), and returns it.
func (m *Main) showInfo(title string, content fyne.CanvasObject, size fyne.Size) *dialog.CustomDialog {
	var d *dialog.CustomDialog
	keys := newDialogKeys(func() { d.Hide() }, func() { d.Hide() })
	d = dialog.NewCustom(title, "Close", container.NewStack(keys, content), m.Win)
	if !size.IsZero() {
		d.Resize(size)
	}
	d.Show()
	m.Win.Canvas().Focus(keys)
	return d
}

// showError says err in a dialog that Enter or Escape closes.
func (m *Main) showError(err error) {
	l := widget.NewLabel(err.Error())
	l.Wrapping = fyne.TextWrapWord
	m.showInfo("Error", l, fyne.NewSize(460, 200))
}
