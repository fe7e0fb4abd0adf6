package ui

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/widget"

	"baton/host"
	"baton/ui/view"
)

// File ▸ Export and Import: workflows as files (host.Export, host.PlanImport,
// Intents.Import), as `baton export` and `baton import` do.

// ExportFile asks where to save, then writes every workflow with its schedules there
// (secret values left out).
func (m *Main) ExportFile() {
	d := dialog.NewFileSave(func(w fyne.URIWriteCloser, err error) {
		if err != nil || w == nil {
			return
		}
		defer w.Close()
		m.exportTo(w)
	}, m.Win)
	d.SetFileName("baton-workflows.json")
	d.SetFilter(storage.NewExtensionFileFilter([]string{".json"}))
	d.Show()
}

// exportTo writes the export of every workflow to w and says so in the footer's place:
// the editor's message.
func (m *Main) exportTo(w io.Writer) {
	f, err := host.Export(m.doc, nil, false)
	if err == nil {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		err = enc.Encode(f)
	}
	if err != nil {
		m.Editor.setMessage("Not exported: "+err.Error(), widget.DangerImportance)
		return
	}
	m.Editor.setMessage(fmt.Sprintf("Exported %d workflows and %d schedules (secret values left out).", len(f.Workflows), len(f.Schedules)),
		widget.SuccessImportance)
}

// ImportFile asks for an export file, then shows what importing it would do
// (importPreview).
func (m *Main) ImportFile() {
	d := dialog.NewFileOpen(func(r fyne.URIReadCloser, err error) {
		if err != nil || r == nil {
			return
		}
		defer r.Close()
		b, err := io.ReadAll(r)
		if err != nil {
			m.showError(fmt.Errorf("read %s: %w", r.URI().Path(), err))
			return
		}
		m.importPreview(r.URI().Name(), b)
	}, m.Win)
	d.SetFilter(storage.NewExtensionFileFilter([]string{".json"}))
	d.Show()
}

// ImportPath is ImportFile for a file path (tests, and a person who typed one).
func (m *Main) ImportPath(path string) {
	b, err := os.ReadFile(path)
	if err != nil {
		m.showError(fmt.Errorf("read %s: %w", path, err))
		return
	}
	m.importPreview(path, b)
}

// importPreview shows what importing file (its bytes b) adds, changes or conflicts with,
// and imports it, in one save, when the person says Import. A file with conflicts shows
// them and imports nothing.
func (m *Main) importPreview(name string, b []byte) {
	f, err := host.ParseExport(b)
	if err != nil {
		m.showError(fmt.Errorf("%s: %w", name, err))
		return
	}
	plan := host.PlanImport(m.doc, f, m.opts.Now())
	text := widget.NewLabel(host.ImportText(plan, true))
	text.Wrapping = fyne.TextWrapWord
	content := container.NewVScroll(text)
	content.SetMinSize(fyne.NewSize(420, 160))
	if len(plan.Conflicts) > 0 || !m.writeable {
		if !m.writeable {
			text.SetText(text.Text + "\n" + view.ReadOnlyReason(m.st))
		}
		m.showConfirm("Import "+name, "Close", "Go back", content, func(bool) {})
		return
	}
	m.showConfirm("Import "+name, "Import", "Go back", content, func(ok bool) {
		if !ok {
			return
		}
		m.runAsync(func() error { var err error; plan, err = m.core.Intents().Import(context.Background(), f); return err }, func(err error) {
			if err != nil {
				m.Editor.setMessage("Not imported: "+err.Error(), widget.DangerImportance)
				return
			}
			m.freshDoc()
			m.render(nil)
			m.Editor.setMessage("Imported: "+host.ImportText(plan, false), widget.SuccessImportance)
		})
	})
}
