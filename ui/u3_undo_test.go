package ui

import (
	"context"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"baton/store"
)

// pressUndo does what the desktop driver does with Ctrl+Z: the menu item whose shortcut
// is Undo runs.
func pressUndo(t *testing.T, m *Main) {
	t.Helper()
	for _, mn := range m.Win.MainMenu().Items {
		for _, it := range mn.Items {
			if _, ok := it.Shortcut.(*fyne.ShortcutUndo); ok {
				it.Action()
				return
			}
		}
	}
	t.Fatal("no menu item takes Ctrl+Z")
}

// TestDeleteCanBeUndone (issue 22, daily use 3): a deleted workflow comes back with its
// schedule and its secret through Ctrl+Z, a deleted schedule through the Undo button; a
// text field with the focus keeps Ctrl+Z for its own undo; after another change there is
// nothing to undo.
func TestDeleteCanBeUndone(t *testing.T) {
	_, w, m, q := writerUI(t)
	m.opts.Confirm = func(_, _ string, fn func(bool)) { fn(true) }
	ctx := context.Background()
	def := store.Workflow{Name: "backup", Steps: []store.Step{{Argv: []string{"true"}, Env: map[string]string{"API_TOKEN": "s3cret-value"}}}}
	if _, err := w.Intents().AddWorkflow(ctx, def); err != nil {
		t.Fatal(err)
	}
	if _, _, err := w.Intents().AddSchedule(ctx, store.Schedule{Workflow: "backup", Every: store.Duration(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	q.waitFor(t, "the workflow listed", func() bool { return m.Workflows.Length() == 1 && len(m.doc.Schedules) == 1 })
	m.OpenWorkflow("backup")
	m.DeleteWorkflow()
	q.waitFor(t, "the delete", func() bool { return m.doc.Workflow("backup") == nil && m.Undo.obj.Visible() })
	m.Win.Canvas().Focus(m.Search)
	pressUndo(t, m) // the search field's own undo, not the delete's
	if m.Undo.do == nil {
		t.Fatal("Ctrl+Z in a text field undid the delete")
	}
	m.Win.Canvas().Unfocus()
	pressUndo(t, m)
	q.waitFor(t, "the workflow back", func() bool { return m.doc.Workflow("backup") != nil && len(m.doc.Schedules) == 1 })
	if v := m.doc.Workflow("backup").Steps[0].Env["API_TOKEN"]; v != "s3cret-value" {
		t.Errorf("the secret came back as %q", v)
	}
	if m.Undo.obj.Visible() {
		t.Error("Undo is still offered after undoing")
	}

	m.ShowTab("Schedules")
	m.Schedules.List.Select(0)
	m.Schedules.delete()
	q.waitFor(t, "the schedule deleted", func() bool { return len(m.doc.Schedules) == 0 && m.Undo.obj.Visible() })
	test.Tap(m.Undo.Undo)
	q.waitFor(t, "the schedule back", func() bool { return len(m.doc.Schedules) == 1 })

	m.Schedules.List.Select(0)
	m.Schedules.delete()
	q.waitFor(t, "the schedule deleted again", func() bool { return len(m.doc.Schedules) == 0 && m.Undo.obj.Visible() })
	m.OpenWorkflow("backup")
	m.Editor.MaxConcurrent.SetText("2")
	m.SaveWorkflow()
	if m.Undo.do != nil || m.Undo.obj.Visible() {
		t.Error("Undo is still offered after another change")
	}
}
