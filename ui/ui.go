// Package ui is Baton's Fyne window. It renders snapshots of a host.Window and sends
// intents to it; it decides nothing itself. Core events reach widgets only inside fyne.Do.
package ui

import (
	"fmt"
	"path/filepath"
	"sync"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"baton/host"
	"baton/store"
)

// Core is what the UI needs of a window; *host.Window implements it.
type Core interface {
	Status() host.Status
	Snapshot() *store.Doc
	Subscribe() *host.Sub
	Unsubscribe(*host.Sub)
	LastTakeover() host.Takeover
	StartRun(name, task string) (store.Run, uint64, error)
	CancelRun(id string) (uint64, error)
}

// Main is the main window and the widgets tests look at.
type Main struct {
	Win       fyne.Window
	RoleLabel *widget.Label
	Workflows *widget.List
	Runs      *widget.List
	RunNow    *widget.Button

	core Core

	mu  sync.Mutex // guards doc and st (written from the event goroutine, read by lists)
	doc *store.Doc
	st  host.Status
	sel int
	sub *host.Sub
}

// New builds the main window of core in app a. Call Show, then Watch.
func New(a fyne.App, core Core) *Main {
	st := core.Status()
	m := &Main{core: core, doc: core.Snapshot(), st: st, sel: -1}
	m.Win = a.NewWindow(fmt.Sprintf("Baton — %s", filepath.Base(st.Home)))
	m.RoleLabel = widget.NewLabel("")
	m.RoleLabel.Importance = widget.HighImportance
	m.Workflows = widget.NewList(m.wfLen, func() fyne.CanvasObject { return widget.NewLabel("workflow") },
		func(i widget.ListItemID, o fyne.CanvasObject) { o.(*widget.Label).SetText(m.wfText(i)) })
	m.Workflows.OnSelected = func(i widget.ListItemID) { m.sel = i }
	m.Runs = widget.NewList(m.runLen, func() fyne.CanvasObject { return widget.NewLabel("run") },
		func(i widget.ListItemID, o fyne.CanvasObject) { o.(*widget.Label).SetText(m.runText(i)) })
	m.RunNow = widget.NewButton("Run now", m.runNow)
	left := container.NewBorder(widget.NewLabel("Workflows"), m.RunNow, nil, nil, m.Workflows)
	right := container.NewBorder(widget.NewLabel("Runs"), nil, nil, nil, m.Runs)
	split := container.NewHSplit(left, right)
	m.Win.SetContent(container.NewBorder(m.RoleLabel, nil, nil, nil, split))
	m.Win.Resize(fyne.NewSize(900, 600))
	m.render()
	return m
}

// Watch subscribes to the core and re-renders on every event until the window closes.
func (m *Main) Watch() {
	m.sub = m.core.Subscribe()
	go func() {
		for range m.sub.C {
			doc, st := m.core.Snapshot(), m.core.Status()
			m.mu.Lock()
			m.doc, m.st = doc, st
			m.mu.Unlock()
			fyne.Do(m.render)
		}
	}()
}

// Stop ends the subscription.
func (m *Main) Stop() {
	if m.sub != nil {
		m.core.Unsubscribe(m.sub)
	}
}

func (m *Main) render() {
	m.mu.Lock()
	st := m.st
	m.mu.Unlock()
	m.RoleLabel.SetText(RoleText(st, m.core.LastTakeover()))
	if st.Role == "writer" {
		m.RunNow.Enable()
	} else {
		m.RunNow.Disable()
	}
	m.Workflows.Refresh()
	m.Runs.Refresh()
}

// RoleText is the role bar's text.
func RoleText(st host.Status, tk host.Takeover) string {
	switch st.Role {
	case "writer":
		s := "Writer"
		if tk.Epoch > 0 && tk.OldOwner != nil {
			s += fmt.Sprintf(" — took over from pid %d, reaped %d run(s), %.1f ms", tk.OldOwner.PID, len(tk.Reaped), tk.TookMS)
		}
		return s
	case "promoting":
		return "Taking over…"
	}
	if st.Problem != "" {
		return "Read-only: " + st.Problem
	}
	if st.WriterPID > 0 {
		return fmt.Sprintf("Read-only: window pid %d on this computer is writing", st.WriterPID)
	}
	return "Read-only: waiting for the writer"
}

func (m *Main) wfLen() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.doc.Workflows)
}

func (m *Main) wfText(i int) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	if i >= len(m.doc.Workflows) {
		return ""
	}
	w := m.doc.Workflows[i]
	return fmt.Sprintf("%s  (%d step(s), lane %d)", w.Name, len(w.Steps), w.MaxConcurrent)
}

func (m *Main) runLen() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.doc.Runs)
}

// runText shows newest runs first.
func (m *Main) runText(i int) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := len(m.doc.Runs)
	if i >= n {
		return ""
	}
	r := m.doc.Runs[n-1-i]
	s := fmt.Sprintf("%s  %s  %s  step %d of %d", r.ID, r.Workflow, r.Status, r.Step+1, r.Steps)
	if r.OwnerPID > 0 {
		s += fmt.Sprintf("  pid %d", r.OwnerPID)
	}
	if r.Error != "" {
		s += "  — " + r.Error
	}
	return s
}

func (m *Main) runNow() {
	m.mu.Lock()
	var name string
	if m.sel >= 0 && m.sel < len(m.doc.Workflows) {
		name = m.doc.Workflows[m.sel].Name
	}
	m.mu.Unlock()
	if name == "" {
		return
	}
	go func() { _, _, _ = m.core.StartRun(name, "") }()
}
