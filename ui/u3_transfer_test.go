package ui

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"baton/store"
)

// TestExportAndImportFromTheWindow (issue 22, daily use 2): File ▸ Export writes the
// workflows with their schedules; File ▸ Import shows what the file adds before it
// imports, Enter imports it in one save, and a file that conflicts imports nothing.
func TestExportAndImportFromTheWindow(t *testing.T) {
	_, w, m, q := writerUI(t)
	addWorkflow(t, w, "backup", "true")
	if _, _, err := w.Intents().AddSchedule(context.Background(), store.Schedule{Workflow: "backup", Every: store.Duration(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	q.waitFor(t, "the workflow listed", func() bool { return m.Workflows.Length() == 1 && len(m.doc.Schedules) == 1 })
	var file bytes.Buffer
	m.exportTo(&file)
	if !strings.Contains(file.String(), `"backup"`) || !strings.Contains(m.Editor.Message.Text, "Exported 1 workflows and 1 schedules") {
		t.Fatalf("export wrote %q and said %q", file.String(), m.Editor.Message.Text)
	}

	_, w2, m2, q2 := writerUI(t)
	addWorkflow(t, w2, "BACKUP ", "true") // the same name, ignoring case and spaces
	q2.waitFor(t, "the workflow listed", func() bool { return m2.Workflows.Length() == 1 })
	c := m2.Win.Canvas()
	m2.importPreview("backup.json", file.Bytes())
	if top := c.Overlays().Top(); top == nil || hasButton(top, "Import") || !strings.Contains(labelsOf(top), "conflict") {
		t.Fatalf("a conflicting file's preview: %q", labelsOf(top))
	}
	typeKey(t, m2, fyne.KeyEscape)
	if _, err := w2.Intents().DeleteWorkflow(context.Background(), "BACKUP"); err != nil {
		t.Fatal(err)
	}
	q2.waitFor(t, "the workflow gone", func() bool { return m2.Workflows.Length() == 0 })
	gen := w2.Snapshot().Generation
	m2.importPreview("backup.json", file.Bytes())
	if top := c.Overlays().Top(); top == nil || !hasButton(top, "Import") || !strings.Contains(labelsOf(top), "adds 1 workflow: backup") {
		t.Fatalf("the preview says %q", labelsOf(c.Overlays().Top()))
	}
	if m2.doc.Workflow("backup") != nil {
		t.Fatal("the preview imported")
	}
	typeKey(t, m2, fyne.KeyReturn)
	q2.waitFor(t, "the import", func() bool { return m2.doc.Workflow("backup") != nil && len(m2.doc.Schedules) == 1 })
	if g := w2.Snapshot().Generation; g != gen+1 {
		t.Errorf("the import took %d saves, want 1", g-gen)
	}
}

// labelsOf joins the texts of the labels in o.
func labelsOf(o fyne.CanvasObject) string {
	var b strings.Builder
	var walk func(fyne.CanvasObject)
	walk = func(o fyne.CanvasObject) {
		switch x := o.(type) {
		case *widget.Label:
			b.WriteString(x.Text + "\n")
		case *fyne.Container:
			for _, ch := range x.Objects {
				walk(ch)
			}
		case fyne.Widget:
			for _, ch := range test.WidgetRenderer(x).Objects() {
				walk(ch)
			}
		}
	}
	if o != nil {
		walk(o)
	}
	return b.String()
}
