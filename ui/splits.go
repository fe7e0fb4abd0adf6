package ui

import "fyne.io/fyne/v2/container"

// The window remembers where the person put its split handles (the sidebar's, the runs
// list's, the run's facts above its log), per home folder, with the window's size.

// splits names the window's split containers for the preferences.
func (m *Main) splits() map[string]*container.Split {
	return map[string]*container.Split{"sidebar": m.mainSplit, "runs": m.runsSplit, "run": m.RunView.split}
}

// restoreSplits puts each split where it was when the window last closed on this home.
func (m *Main) restoreSplits() {
	p := m.App.Preferences()
	for name, s := range m.splits() {
		if v := p.FloatWithFallback(m.prefKey("split."+name), -1); s != nil && v > 0 && v < 1 {
			s.Offset = v
		}
	}
}

// saveSplits remembers where each split is. UI goroutine.
func (m *Main) saveSplits() {
	p := m.App.Preferences()
	for name, s := range m.splits() {
		if s != nil {
			p.SetFloat(m.prefKey("split."+name), s.Offset)
		}
	}
}
