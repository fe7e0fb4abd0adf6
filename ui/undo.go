package ui

import (
	"context"
	"fmt"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"baton/host"
	"baton/store"
)

// Undo of a delete: deleting a workflow (with its schedules) or a schedule can be undone
// with Ctrl+Z or the Undo button of the bar that says it was deleted, until the person's
// next change in this window. The undo puts the definitions back in one save (a workflow
// through Intents.Import, secrets and all; a schedule through AddSchedule); runs of a
// deleted workflow were never deleted.

// UndoBar says what was deleted and offers Undo; hidden while there is nothing to undo.
type UndoBar struct {
	Label *widget.Label
	Undo  *widget.Button
	obj   fyne.CanvasObject
	do    func(done func(error)) // puts back what was deleted; nil when there is nothing
}

func newUndoBar(m *Main) *UndoBar {
	u := &UndoBar{Label: widget.NewLabel("")}
	u.Label.Truncation = fyne.TextTruncateEllipsis
	u.Undo = widget.NewButtonWithIcon("Undo", theme.ContentUndoIcon(), m.UndoDelete)
	u.obj = container.NewBorder(nil, nil, nil, u.Undo, u.Label)
	u.obj.Hide()
	return u
}

// offer shows msg with Undo, which runs do.
func (u *UndoBar) offer(msg string, do func(done func(error))) {
	u.do = do
	u.Label.SetText(msg)
	u.obj.Show()
}

// drop forgets what could be undone: the person changed something since.
func (u *UndoBar) drop() {
	u.do = nil
	u.obj.Hide()
}

// UndoDelete puts back what the last delete of this window removed. Ctrl+Z calls it
// (undoKey) unless a text field has the focus.
func (m *Main) UndoDelete() {
	do := m.Undo.do
	if do == nil || !m.writeable {
		return
	}
	m.Undo.drop()
	do(func(err error) {
		if err != nil {
			m.Undo.Label.SetText("Not undone: " + err.Error())
			m.Undo.obj.Show()
			return
		}
		m.freshDoc()
		m.render(nil)
	})
}

// undoKey is Ctrl+Z: a text field's own undo while one has the focus, else UndoDelete.
func (m *Main) undoKey() {
	if f, ok := m.Win.Canvas().Focused().(fyne.Shortcutable); ok {
		if _, entry := f.(interface{ SelectedText() string }); entry {
			f.TypedShortcut(&fyne.ShortcutUndo{})
			return
		}
	}
	m.UndoDelete()
}

// offerWorkflowUndo keeps doc's workflow name, with its schedules and secrets, to put
// back if the person asks. Call it with the document from before the delete.
func (m *Main) offerWorkflowUndo(doc *store.Doc, name string) {
	f, err := host.Export(doc, []string{name}, true)
	if err != nil {
		return
	}
	m.Undo.offer(fmt.Sprintf("Deleted workflow %q.", name), func(done func(error)) {
		m.runAsync(func() error { _, err := m.core.Intents().Import(context.Background(), f); return err }, done)
	})
}

// offerScheduleUndo keeps schedule sc to put back if the person asks.
func (m *Main) offerScheduleUndo(sc store.Schedule) {
	def := store.Schedule{Workflow: sc.Workflow, Every: sc.Every, Cron: sc.Cron, TZ: sc.TZ, Paused: sc.Paused, Overlap: sc.Overlap,
		MaxRuntime: sc.MaxRuntime, OnOverrun: sc.OnOverrun, CatchUp: sc.CatchUp, CatchUpWindow: sc.CatchUpWindow}
	m.Undo.offer(fmt.Sprintf("Deleted the schedule of %q.", sc.Workflow), func(done func(error)) {
		m.runAsync(func() error { _, _, err := m.core.Intents().AddSchedule(context.Background(), def); return err }, done)
	})
}
