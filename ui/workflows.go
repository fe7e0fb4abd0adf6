package ui

import (
	"context"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"baton/store"
	"baton/ui/view"
)

// buildWorkflows creates the workflow list, its search field and the editor.
func (m *Main) buildWorkflows() {
	m.Search = NewKeyEntry()
	m.Search.OnDown = func() { m.focusList(m.Workflows) }
	m.Search.OnSubmitted = func(string) { m.focusList(m.Workflows) }
	m.Search.SetPlaceHolder("Search workflows")
	m.Search.ActionItem = widget.NewIcon(theme.SearchIcon())
	m.Search.OnChanged = func(string) { m.render(nil) }
	m.NewButton = widget.NewButtonWithIcon("New", theme.ContentAddIcon(), m.NewWorkflow)
	m.Workflows = NewKeyList(func() int { return len(m.wfIdx) }, newWorkflowRow, m.updateWorkflowRow)
	m.Workflows.OnPicked = m.onWorkflowSelected
	m.Workflows.OnEnter = func() { m.Editor.focusFirst() }
	m.Editor = newEditor(m)
	m.Chart = NewDurationChart()
}

// newWorkflowRow is a row of the sidebar: the status icon, then the name on a line of
// its own (a narrow sidebar still shows it whole) and the details below it, in small
// text.
func newWorkflowRow() fyne.CanvasObject {
	name := widget.NewLabel("workflow name")
	name.TextStyle.Bold = true
	name.Truncation = fyne.TextTruncateEllipsis
	detail := widget.NewLabel("3 steps · runs one at a time")
	detail.SizeName = theme.SizeNameCaptionText
	detail.Truncation = fyne.TextTruncateEllipsis
	text := container.NewVBox(name, compact(detail))
	return container.NewBorder(nil, nil, widget.NewIcon(statusIcon(view.StatusTone(store.StatusQueued))), nil, text)
}

func (m *Main) updateWorkflowRow(i widget.ListItemID, o fyne.CanvasObject) {
	if i >= len(m.wfIdx) {
		return
	}
	w := &m.doc.Workflows[m.wfIdx[i]]
	c := o.(*fyne.Container)
	text := c.Objects[0].(*fyne.Container)
	text.Objects[0].(*widget.Label).SetText(w.Name)
	text.Objects[1].(*fyne.Container).Objects[0].(*widget.Label).SetText(view.WorkflowDetail(w))
	icon := c.Objects[1].(*widget.Icon)
	if st, ok := m.lastOf[w.Name]; ok {
		icon.SetResource(statusIcon(view.StatusTone(st)))
	} else {
		icon.SetResource(theme.NewDisabledResource(theme.DocumentIcon()))
	}
}

// workflowsColumn is the left column: title, New, search, list.
func (m *Main) workflowsColumn() fyne.CanvasObject {
	title := widget.NewLabelWithStyle("Workflows", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	head := container.NewBorder(nil, nil, nil, m.NewButton, title)
	col := container.NewBorder(container.NewVBox(head, m.Search), nil, nil, nil, m.Workflows)
	return container.New(minWidth(SidebarMinWidth), col)
}

// SidebarMinWidth is the narrowest the sidebar gets: names of about 20 characters stay
// whole in a window 700 px wide.
const SidebarMinWidth = 210

// minWidth lays out one object over the whole container, at least w wide.
type minWidth float32

func (w minWidth) MinSize(objs []fyne.CanvasObject) fyne.Size {
	s := objs[0].MinSize()
	return fyne.NewSize(max(s.Width, float32(w)), s.Height)
}

func (minWidth) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	objs[0].Move(fyne.NewPos(0, 0))
	objs[0].Resize(size)
}

// workflowPane is the Workflow tab: the editor and the chart of recent runs.
func (m *Main) workflowPane() fyne.CanvasObject {
	chartTitle := widget.NewLabelWithStyle("Recent runs", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	m.chartBox = container.NewVBox(widget.NewSeparator(), container.NewBorder(chartTitle, nil, nil, nil, m.Chart))
	m.Editor.scroll = container.NewVScroll(container.New(clearOfScrollBar{}, container.NewVBox(m.Editor.obj, m.chartBox, layout.NewSpacer())))
	return m.Editor.scroll
}

// reindexWorkflows filters the workflows by the search text, reusing its slice.
func (m *Main) reindexWorkflows() {
	m.wfIdx = view.FilterWorkflows(m.wfIdx, m.doc, m.Search.Text)
	view.SortWorkflows(m.wfIdx, m.doc, m.sortBy())
	view.LastStatuses(m.lastOf, m.doc)
}

// syncSelections shows the selected workflow and run in their lists after the indices moved.
func (m *Main) syncSelections() {
	m.syncing = true
	defer func() { m.syncing = false }()
	wi := -1
	for i, k := range m.wfIdx {
		if m.doc.Workflows[k].Name == m.selWF {
			wi = i
		}
	}
	if wi >= 0 {
		m.Workflows.Select(wi)
	} else {
		m.Workflows.UnselectAll()
	}
	ri := -1
	for i := range m.runIdx {
		if m.rowRun(i).ID == m.selRun {
			ri = i
			break
		}
	}
	if ri >= 0 {
		m.Runs.Select(ri)
	} else {
		m.Runs.UnselectAll()
	}
}

func (m *Main) onWorkflowSelected(i widget.ListItemID) {
	if m.syncing || i >= len(m.wfIdx) {
		return
	}
	w := m.doc.Workflows[m.wfIdx[i]]
	if w.Name == m.Editor.existing && m.selWF == w.Name {
		return
	}
	m.askDiscard(func() { m.OpenWorkflow(w.Name) }, func() { m.syncSelections() })
}

// askDiscard runs then when the editor has no unsaved changes or the person agrees to
// drop them; otherwise it runs keep.
func (m *Main) askDiscard(then, keep func()) {
	if !m.Editor.dirty {
		then()
		return
	}
	title, question := view.DiscardQuestion(m.Editor.Name.Text)
	m.opts.Confirm(title, question, func(ok bool) {
		if ok {
			then()
		} else if keep != nil {
			keep()
		}
	})
}

// OpenWorkflow shows workflow name in the editor. UI goroutine.
func (m *Main) OpenWorkflow(name string) {
	w := m.doc.Workflow(name)
	if w == nil {
		return
	}
	m.selWF = name
	m.Editor.load(w)
	m.ShowTab("Workflow")
	m.render(nil)
}

// NewWorkflow opens an empty draft in the editor.
func (m *Main) NewWorkflow() {
	m.askDiscard(func() {
		m.selWF = ""
		draft := view.NewWorkflow()
		m.Editor.draftFrom(&draft, "", true)
		m.ShowTab("Workflow")
		m.render(nil)
		m.Win.Canvas().Focus(m.Editor.Name)
	}, nil)
}

// DuplicateWorkflow opens a copy of the workflow in the editor as a new, unsaved draft.
func (m *Main) DuplicateWorkflow() {
	w := m.doc.Workflow(m.Editor.existing)
	if w == nil {
		return
	}
	m.selWF = ""
	m.Editor.draftFrom(w, view.CopyName(m.doc, w.Name), false)
	m.render(nil)
}

// SaveWorkflow saves the editor's draft: a new workflow is added, an open one updated.
func (m *Main) SaveWorkflow() {
	def, ok := m.Editor.validate()
	if !ok || !m.writeable {
		return
	}
	isNew, rev := m.Editor.existing == "", m.Editor.rev
	m.Undo.drop() // the person's next change: the delete before it stays
	m.Editor.setMessage("Saving…", widget.MediumImportance)
	m.runAsync(func() error {
		var err error
		if isNew {
			_, err = m.core.Intents().AddWorkflow(context.Background(), def)
		} else {
			_, err = m.core.Intents().UpdateWorkflow(context.Background(), def)
		}
		return err
	}, func(err error) {
		if err != nil {
			m.Editor.showError(err)
			return
		}
		m.freshDoc()
		m.selWF = def.Name
		m.Editor.saved(m.doc.Workflow(def.Name), rev)
		if rev == m.Editor.rev {
			m.Editor.warnPrograms()
		}
		m.render(nil)
	})
}

// RenameWorkflow asks for a new name for the workflow open in the editor, then renames
// it (renameTo). It needs the edits saved first: a rename saves only the name.
func (m *Main) RenameWorkflow() {
	from := m.Editor.existing
	if from == "" || m.Editor.dirty || !m.writeable {
		return
	}
	name := NewKeyEntry()
	name.SetText(from)
	items := []*widget.FormItem{widget.NewFormItem("New name", name)}
	d := dialog.NewForm("Rename workflow", "Rename", "Cancel", items, func(ok bool) {
		if ok {
			m.renameTo(from, name.Text)
		}
	}, m.Win)
	name.OnSubmitted = func(string) { d.Submit() } // Enter renames
	name.OnEscape = d.Hide
	d.Resize(fyne.NewSize(420, 160))
	d.Show()
	m.Win.Canvas().Focus(name)
	m.rename = d
}

// renameTo renames workflow from to to through the core; its runs, history and
// schedules follow. The editor then shows it under its new name.
func (m *Main) renameTo(from, to string) {
	if !m.writeable {
		return
	}
	m.Undo.drop()
	m.runAsync(func() error { _, err := m.core.Intents().RenameWorkflow(context.Background(), from, to); return err }, func(err error) {
		m.freshDoc()
		w := m.doc.Workflow(strings.TrimSpace(to))
		switch {
		case err != nil && (w == nil || m.doc.Workflow(from) != nil):
			m.Editor.setMessage(view.NotRenamedText(err), widget.DangerImportance)
		case w == nil: // renamed, and changed again since by another window
		case err != nil: // renamed, but its archived runs were not relabelled
			m.OpenWorkflow(w.Name)
			m.Editor.setMessage(view.ErrText(err), widget.WarningImportance)
		default:
			m.OpenWorkflow(w.Name)
			m.Editor.setMessage(view.RenamedText(from), widget.SuccessImportance)
		}
	})
}

// RunSelected starts a run of the workflow open in the editor.
func (m *Main) RunSelected() {
	name := m.Editor.existing
	if name == "" {
		return
	}
	var id string
	var to int
	m.runAsync(func() error { // a read-only window's run is forwarded to the writer
		var err error
		id, to, err = m.core.Intents().RunNow(context.Background(), name, "")
		return err
	}, func(err error) {
		if err != nil {
			m.Editor.setMessage(view.ErrText(err), widget.DangerImportance)
			return
		}
		m.selRun = id
		m.revealRun = true
		m.freshDoc()
		m.Editor.setMessage(view.StartedText(id, to), widget.SuccessImportance)
		m.render(nil)
	})
}

// DeleteWorkflow asks, then deletes the workflow open in the editor.
func (m *Main) DeleteWorkflow() {
	name := m.Editor.existing
	if name == "" || !m.writeable {
		return
	}
	title, question := view.DeleteQuestion(name)
	m.opts.Confirm(title, question, func(ok bool) {
		if !ok {
			return
		}
		before := m.doc
		m.runAsync(func() error { _, err := m.core.Intents().DeleteWorkflow(context.Background(), name); return err }, func(err error) {
			if err != nil {
				m.Editor.setMessage(view.ErrText(err), widget.DangerImportance)
				return
			}
			m.offerWorkflowUndo(before, name)
			m.freshDoc()
			m.selWF = ""
			m.Editor.clear(view.DeletedText(name))
			m.render(nil)
		})
	})
}
