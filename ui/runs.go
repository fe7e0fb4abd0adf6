package ui

import (
	"context"
	"os"
	"sync"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"baton/store"
	"baton/ui/view"
)

// buildRuns creates the virtualized runs list, its filter and the run view. Rows are
// bound to m.runIdx, which is rebuilt in place: a refresh allocates nothing per run and
// only the visible rows are redrawn.
func (m *Main) buildRuns() {
	m.RunsFilter = widget.NewEntry()
	m.RunsFilter.SetPlaceHolder("Filter runs by workflow, status, id or task")
	m.RunsFilter.ActionItem = widget.NewIcon(theme.SearchIcon())
	m.RunsFilter.OnChanged = func(string) { m.relistRuns() }
	m.RunsCount = widget.NewLabel("")
	m.RunsCount.SizeName = theme.SizeNameCaptionText
	m.Runs = widget.NewList(func() int { return len(m.runIdx) }, newRunRow, m.updateRunRow)
	m.Runs.OnSelected = func(i widget.ListItemID) {
		if m.syncing || i >= len(m.runIdx) {
			return
		}
		m.selRun = m.rowRun(i).ID
		m.renderRun()
	}
	m.RunView = newRunView(m)
	m.buildHistory()
}

// runRow is one row of the runs list: a small widget that keeps its parts typed.
type runRow struct {
	widget.BaseWidget
	icon            *widget.Icon
	title, dur, own *widget.Label
	bar             *widget.ProgressBar
	step            string
	content         fyne.CanvasObject
}

func newRunRow() fyne.CanvasObject {
	r := &runRow{icon: widget.NewIcon(statusIcon(view.StatusTone(store.StatusQueued))), title: widget.NewLabel("r12345 workflow name"),
		dur: widget.NewLabel("12 min 30 s"), own: widget.NewLabel("pid 12345 (this window)"), bar: widget.NewProgressBar()}
	r.title.Truncation = fyne.TextTruncateEllipsis
	r.bar.TextFormatter = func() string { return r.step }
	for _, l := range []*widget.Label{r.dur, r.own} {
		l.SizeName = theme.SizeNameCaptionText
	}
	right := container.NewHBox(container.NewGridWrap(fyne.NewSize(130, 30), r.bar),
		container.NewGridWrap(fyne.NewSize(90, 30), r.dur), container.NewGridWrap(fyne.NewSize(150, 30), r.own))
	r.content = container.NewBorder(nil, nil, r.icon, right, r.title)
	r.ExtendBaseWidget(r)
	return r
}

// CreateRenderer lays the row out.
func (r *runRow) CreateRenderer() fyne.WidgetRenderer { return widget.NewSimpleRenderer(r.content) }

func (m *Main) updateRunRow(i widget.ListItemID, o fyne.CanvasObject) {
	if i >= len(m.runIdx) {
		return
	}
	v := view.RowOf(m.rowRun(i), m.st.PID, m.opts.Now())
	row := o.(*runRow)
	row.icon.SetResource(statusIcon(v.Tone))
	row.title.SetText(v.Title)
	row.step = v.Step
	row.bar.SetValue(v.Progress)
	row.dur.SetText(v.Duration)
	row.own.SetText(v.Owner)
}

// reindexRuns fills m.runIdx with the rows of the runs list, reusing its backing array:
// the live runs of the doc merged with the archived runs loaded from History, newest
// first (view.History.List).
func (m *Main) reindexRuns() {
	m.runIdx = m.hist.List(m.runIdx, m.doc, m.historyQuery(), m.RunsFilter.Text)
	m.RunsCount.SetText(view.RunsCount(len(m.runIdx), len(m.doc.Runs), m.hist.Shown))
}

// runsPane is the Runs tab: list on the left, the selected run on the right.
func (m *Main) runsPane() fyne.CanvasObject {
	list := container.NewBorder(m.runFilters(), m.historyBar(), nil, nil, m.Runs)
	split := container.NewVSplit(list, m.RunView.obj)
	split.Offset = 0.4
	return split
}

func (m *Main) selectedRun() *store.Run { return m.hist.Find(m.doc, m.selRun) }

// ShowRun selects run id (live, or archived and listed) and shows it in the Runs tab.
func (m *Main) ShowRun(id string) {
	m.selRun = id
	m.ShowTab("Runs")
	m.render(nil)
}

// CancelSelected cancels the run shown in the run view.
func (m *Main) CancelSelected() {
	r := m.selectedRun()
	if !view.MayCancel(m.writeable, r) {
		return
	}
	id := r.ID
	m.RunView.Cancel.Disable()
	m.RunView.setNote("Cancelling…")
	m.runAsync(func() error { _, err := m.core.Intents().CancelRun(context.Background(), id); return err }, func(err error) {
		m.RunView.setNote(view.CancelResult(err))
		m.doc = m.core.Snapshot()
		m.render(nil)
	})
}

func (m *Main) renderRun() {
	m.RunView.render(m.selectedRun(), m.st.PID, m.opts.Now())
	m.RunView.setWritable(m.writeable, view.ReadOnlyReason(m.st), m.selectedRun())
}

// RunView shows one run: what it is doing, how it ended, and its log as it grows.
type RunView struct {
	Title      *widget.Label
	StatusIcon *widget.Icon
	Status     *widget.Label
	Step       *widget.Label
	Progress   *widget.ProgressBar
	Exit       *widget.Label
	Error      *widget.Label
	Owner      *widget.Label
	Supervisor *widget.Label // "supervisor pid 812", hidden when the run has none
	Times      *widget.Label
	Note       *widget.Label
	Cancel     *widget.Button
	Log        *widget.TextGrid

	m       *Main
	obj     fyne.CanvasObject
	body    fyne.CanvasObject
	empty   *widget.Label
	id      string
	logPath string
	logGen  uint64
	logLen  int
	// roleNote is set while Note shows why Cancel is disabled (not a cancel result).
	roleNote bool
}

// MaxLogShown caps the log text kept in the run view; older text scrolls away.
const MaxLogShown = 256 << 10

func newRunView(m *Main) *RunView {
	v := &RunView{m: m, Title: widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}),
		StatusIcon: widget.NewIcon(statusIcon(view.StatusTone(store.StatusQueued))), Status: widget.NewLabel(""), Step: widget.NewLabel(""),
		Progress: widget.NewProgressBar(), Exit: widget.NewLabel(""), Error: widget.NewLabel(""),
		Owner: widget.NewLabel(""), Supervisor: widget.NewLabel(""), Times: widget.NewLabel(""), Note: widget.NewLabel(""), Log: widget.NewTextGrid()}
	v.Title.SizeName = theme.SizeNameSubHeadingText
	v.Error.Wrapping = fyne.TextWrapWord
	v.Error.Importance = widget.DangerImportance
	v.Note.Importance = widget.WarningImportance
	v.Note.Wrapping = fyne.TextWrapWord
	v.Note.Hide()
	v.Log.Scroll = fyne.ScrollBoth
	v.Progress.TextFormatter = func() string { return v.Step.Text }
	v.Cancel = widget.NewButtonWithIcon("Cancel run", theme.MediaStopIcon(), m.CancelSelected)
	v.Cancel.Importance = widget.DangerImportance
	v.empty = widget.NewLabel("Choose a run to see its log.")
	head := container.NewBorder(nil, nil, v.StatusIcon, v.Cancel, v.Title)
	facts := container.New(layout.NewFormLayout(),
		widget.NewLabel("Status"), v.Status,
		widget.NewLabel("Progress"), v.Progress,
		widget.NewLabel("Exit code"), v.Exit,
		widget.NewLabel("Window"), container.NewHBox(v.Owner, v.Supervisor),
		widget.NewLabel("Time"), v.Times,
	)
	top := container.NewVBox(head, v.Note, facts, v.Error, widget.NewLabelWithStyle("Log", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}))
	v.body = container.NewBorder(top, nil, nil, nil, v.Log)
	v.obj = container.NewStack(v.empty, v.body)
	v.body.Hide()
	return v
}

func (v *RunView) setNote(s string) {
	v.Note.SetText(s)
	if s == "" {
		v.Note.Hide()
	} else {
		v.Note.Show()
	}
}

// render shows r (nil: nothing chosen) and points the log tail at its log file.
func (v *RunView) render(r *store.Run, self int, now time.Time) {
	if r == nil {
		v.id = ""
		v.body.Hide()
		v.empty.Show()
		v.m.tail.follow("")
		return
	}
	v.empty.Hide()
	v.body.Show()
	if r.ID != v.id || r.Log != v.logPath {
		v.id, v.logPath, v.logLen = r.ID, r.Log, 0
		v.Log.SetText("")
		v.logGen = v.m.tail.follow(r.Log)
		v.setNote("")
		v.roleNote = false
	}
	f := view.FactsOf(r, self, now)
	v.Title.SetText(f.Title)
	v.StatusIcon.SetResource(statusIcon(f.Tone))
	v.Status.SetText(f.Status)
	v.Step.SetText(f.Step)
	v.Progress.SetValue(f.Progress)
	v.Progress.Refresh()
	v.Exit.SetText(f.Exit)
	if f.Error != "" {
		v.Error.SetText(f.Error)
		v.Error.Show()
	} else {
		v.Error.Hide()
	}
	v.Owner.SetText(f.Owner)
	v.Supervisor.SetText(f.Supervisor)
	if f.Supervisor != "" {
		v.Supervisor.Show()
	} else {
		v.Supervisor.Hide()
	}
	v.Times.SetText(f.Times)
}

// setWritable enables Cancel for a writer and an active run; a reader sees why not.
func (v *RunView) setWritable(ok bool, reason string, r *store.Run) {
	enable(v.Cancel, view.CancelEnabled(ok, r))
	switch view.RoleNote(ok, r, v.roleNote, v.Note.Visible()) {
	case view.NoteReason:
		v.setNote(reason)
		v.roleNote = true
	case view.NoteClear:
		v.setNote("")
		v.roleNote = false
	}
}

// appendLog adds what the tail read to the log view.
func (v *RunView) appendLog(c logChunk) {
	if c.gen != v.logGen || len(c.data) == 0 {
		return
	}
	if c.reset {
		v.Log.SetText("")
		v.logLen = 0
	}
	text := string(c.data)
	if v.logLen+len(text) > MaxLogShown {
		all := v.Log.Text() + text
		all = all[len(all)-MaxLogShown/2:]
		v.Log.SetText(all)
		v.logLen = len(all)
	} else {
		v.Log.Append(text)
		v.logLen += len(text)
	}
	v.Log.ScrollToBottom()
}

// tail reads a run's log file as it grows. follow is called on the UI goroutine; read
// on the ticker goroutine.
type tail struct {
	mu   sync.Mutex // guards the fields below
	path string
	off  int64
	gen  uint64
}

// logChunk is what one read of the tail found.
type logChunk struct {
	gen   uint64
	data  []byte
	reset bool // the text before data was skipped
}

// MaxLogRead caps one read of the log; a large log starts at its last MaxLogRead bytes.
const MaxLogRead = 64 << 10

// follow points the tail at path ("" for none) and returns its generation.
func (t *tail) follow(path string) uint64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	if path != t.path {
		t.path, t.off = path, 0
		t.gen++
	}
	return t.gen
}

// read returns the bytes appended since the last read.
func (t *tail) read() logChunk {
	t.mu.Lock()
	path, off, gen := t.path, t.off, t.gen
	t.mu.Unlock()
	if path == "" {
		return logChunk{}
	}
	f, err := os.Open(path)
	if err != nil {
		return logChunk{}
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || fi.Size() <= off {
		return logChunk{}
	}
	c := logChunk{gen: gen}
	if fi.Size()-off > MaxLogRead {
		off, c.reset = fi.Size()-MaxLogRead, true
	}
	buf := make([]byte, fi.Size()-off)
	n, _ := f.ReadAt(buf, off)
	if n == 0 {
		return logChunk{}
	}
	c.data = buf[:n]
	t.mu.Lock()
	if t.gen == gen {
		t.off = off + int64(n)
	}
	t.mu.Unlock()
	return c
}
