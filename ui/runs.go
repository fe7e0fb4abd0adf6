package ui

import (
	"context"
	"errors"
	"io/fs"
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
	m.RunsFilter = NewKeyEntry()
	m.RunsFilter.OnDown = func() { m.focusList(m.Runs) }
	m.RunsFilter.OnSubmitted = func(string) { m.focusList(m.Runs) }
	m.RunsFilter.SetPlaceHolder("Filter runs by workflow, status, id or task")
	m.RunsFilter.ActionItem = widget.NewIcon(theme.SearchIcon())
	m.RunsFilter.OnChanged = func(string) { m.relistRuns() }
	m.RunsCount = widget.NewLabel("")
	m.RunsCount.SizeName = theme.SizeNameCaptionText
	m.Runs = NewKeyList(func() int { return len(m.runIdx) }, newRunRow, m.updateRunRow)
	m.Runs.OnPicked = func(i widget.ListItemID) {
		if m.syncing || i >= len(m.runIdx) {
			return
		}
		m.selRun = m.rowRun(i).ID
		m.renderRun()
	}
	m.RunView = newRunView(m)
	m.tail.remoteTail = m.core.RemoteLogTail
	m.Runs.OnEnter = func() { m.Win.Canvas().Focus(m.RunView.LogPane.Select) }
	m.buildHistory()
}

// runRow is one row of the runs list: a small widget that keeps its parts typed.
type runRow struct {
	widget.BaseWidget
	icon            *widget.Icon
	title, dur, own *widget.Label
	bar             *StatusBar
	content         fyne.CanvasObject
}

func newRunRow() fyne.CanvasObject {
	r := &runRow{icon: widget.NewIcon(statusIcon(view.StatusTone(store.StatusQueued))), title: widget.NewLabel("r12345 workflow name"),
		dur: widget.NewLabel("12 min 30 s"), own: widget.NewLabel("pid 12345 (this window)"), bar: NewStatusBar()}
	for _, l := range []*widget.Label{r.title, r.dur, r.own} {
		l.Truncation = fyne.TextTruncateEllipsis
	}
	r.dur.SizeName, r.own.SizeName = theme.SizeNameCaptionText, theme.SizeNameCaptionText
	r.content = container.New(runRowLayout{}, r.icon, r.title, r.bar, r.dur, r.own)
	r.ExtendBaseWidget(r)
	return r
}

// CreateRenderer lays the row out.
func (r *runRow) CreateRenderer() fyne.WidgetRenderer { return widget.NewSimpleRenderer(r.content) }

func (m *Main) updateRunRow(i widget.ListItemID, o fyne.CanvasObject) {
	if i >= len(m.runIdx) {
		return
	}
	r := m.rowRun(i)
	v := view.RowOf(r, m.st.PID, m.opts.Now())
	row := o.(*runRow)
	row.icon.SetResource(statusIcon(v.Tone))
	row.title.SetText(v.Title)
	row.bar.Set(r.Status, v.Progress, v.Step)
	row.dur.SetText(v.Duration)
	row.own.SetText(v.Owner)
}

// reindexRuns fills m.runIdx with the rows of the runs list, reusing its backing array:
// the live runs of the doc merged with the archived runs loaded from History, newest
// first (view.History.List).
func (m *Main) reindexRuns() {
	m.runsTop, m.runsIn = m.runsAnchor()
	m.runIdx = m.hist.List(m.runIdx, m.doc, m.historyQuery(), m.RunsFilter.Text)
	m.runsDoc = m.doc
	m.RunsCount.SetText(view.RunsCount(len(m.runIdx), len(m.doc.Runs), m.hist.Shown))
}

// RunsSplit is the share of the Runs tab's height the runs list gets above the run view.
const RunsSplit = 0.33

// runsPane is the Runs tab: the runs list above, the selected run below.
func (m *Main) runsPane() fyne.CanvasObject {
	list := container.NewBorder(m.runFilters(), m.historyBar(), nil, nil, m.Runs)
	split := container.NewVSplit(list, m.RunView.obj)
	split.Offset = RunsSplit
	m.runsSplit = split
	return split
}

func (m *Main) selectedRun() *store.Run { return m.hist.Find(m.doc, m.selRun) }

// ShowRun selects run id (live, or archived and listed) and shows it in the Runs tab.
func (m *Main) ShowRun(id string) {
	m.selRun = id
	m.revealRun = true
	m.ShowTab("Runs")
	m.render(nil)
}

// CancelSelected cancels the run shown in the run view.
func (m *Main) CancelSelected() {
	r := m.selectedRun()
	if !view.MayCancel(r) {
		return
	}
	id := r.ID
	m.RunView.Cancel.Disable()
	m.RunView.setNote("Cancelling…")
	var to int
	m.runAsync(func() error { // a read-only window's cancel is forwarded to the writer
		var err error
		to, err = m.core.Intents().CancelNow(context.Background(), id)
		return err
	}, func(err error) {
		m.RunView.roleNote = false // the result stays until the next change of run or role note
		m.RunView.setNote(view.CancelResult(err, to))
		m.freshDoc()
		m.render(nil)
	})
}

func (m *Main) renderRun() {
	m.RunView.render(m.selectedRun(), m.st.PID, m.opts.Now())
	m.RunView.setWritable(m.writeable, view.ForwardNote(m.st), m.selectedRun())
}

// RunView shows one run: what it is doing, how it ended, and its log as it grows.
type RunView struct {
	Title      *widget.Label
	StatusIcon *widget.Icon
	Status     *widget.Label
	Progress   *StatusBar
	Exit       *widget.Label
	Error      *widget.Label
	Owner      *widget.Label
	Supervisor *widget.Label // "supervisor pid 812", hidden when the run has none
	// Machine is the whole name of the machine the run runs on, shown when the Window line
	// shortens it (view.RunFacts.Machine).
	Machine *widget.Label
	Times   *widget.Label
	Note    *widget.Label
	Cancel  *widget.Button
	Log     *widget.TextGrid // the run's log text (LogPane.Grid)
	LogPane *LogPane

	m       *Main
	obj     fyne.CanvasObject
	body    fyne.CanvasObject
	empty   *widget.Label
	split   *container.Split // the run's facts above, its log below
	id      string
	logPath string
	machine string // the machine of the run shown (etcd homes)
	logGen  uint64
	// roleNote is set while Note shows why Cancel is disabled (not a cancel result).
	roleNote bool
	// machineLabel is the Machine line's label, shown with it.
	machineLabel *widget.Label
}

func newRunView(m *Main) *RunView {
	v := &RunView{m: m, Title: widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}),
		StatusIcon: widget.NewIcon(statusIcon(view.StatusTone(store.StatusQueued))), Status: widget.NewLabel(""),
		Progress: NewStatusBar(), Exit: widget.NewLabel(""), Error: widget.NewLabel(""),
		Owner: widget.NewLabel(""), Supervisor: widget.NewLabel(""), Machine: widget.NewLabel(""), Times: widget.NewLabel(""), Note: widget.NewLabel(""),
		LogPane: newLogPane(m.App.Clipboard)}
	v.Log = v.LogPane.Grid
	v.Title.SizeName = theme.SizeNameSubHeadingText
	// Long names and errors wrap: they must never widen the window.
	v.Title.Wrapping = fyne.TextWrapWord
	v.Error.Wrapping = fyne.TextWrapWord
	v.Error.Importance = widget.DangerImportance
	v.Error.TextStyle.Bold = true // how the run ended, where the eye lands first
	v.Note.Importance = widget.WarningImportance
	v.Note.Wrapping = fyne.TextWrapWord
	v.Note.Hide()
	v.Machine.Wrapping = fyne.TextWrapBreak // a name without spaces wraps too: never the window
	machine := widget.NewLabel("Machine")
	v.Machine.Hide()
	machine.Hide()
	v.machineLabel = machine
	v.Cancel = widget.NewButtonWithIcon("Cancel run", theme.MediaStopIcon(), m.CancelSelected)
	v.Cancel.Importance = widget.DangerImportance
	v.empty = widget.NewLabel("Choose a run to see its log.")
	head := container.NewBorder(nil, nil, v.StatusIcon, v.Cancel, v.Title)
	facts := container.New(layout.NewFormLayout(),
		widget.NewLabel("Status"), v.Status,
		widget.NewLabel("Progress"), v.Progress,
		widget.NewLabel("Exit code"), v.Exit,
		widget.NewLabel("Window"), container.NewHBox(v.Owner, v.Supervisor),
		machine, v.Machine,
		widget.NewLabel("Time"), v.Times,
	)
	// The facts scroll in their own pane so that the log, below a handle the person can
	// drag, gets most of the height.
	// How the run ended (Error: view.Outcome) comes first, under the title: the pane is
	// small at the window's first size, and the error used to be at its bottom.
	split := container.NewVSplit(container.NewVScroll(container.NewVBox(head, v.Error, v.Note, facts)), v.LogPane.obj)
	split.Offset = LogSplit
	v.split = split
	v.body = split
	v.obj = container.NewStack(v.empty, v.body)
	v.body.Hide()
	return v
}

// LogSplit is the share of the run view's height the run's facts get above the log.
const LogSplit = 0.25

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
		v.m.tail.follow(nil)
		return
	}
	v.empty.Hide()
	v.body.Show()
	if r.ID != v.id || r.Log != v.logPath || r.Machine != v.machine {
		v.id, v.logPath, v.machine = r.ID, r.Log, r.Machine
		v.LogPane.open(r.Log, logGone(r))
		v.setNote("")
		v.roleNote = false
	}
	v.logGen = v.m.tail.follow(r) // also keeps the tail's copy of the run's status
	f := view.FactsOf(r, self, now)
	v.Title.SetText(f.Title)
	v.StatusIcon.SetResource(statusIcon(f.Tone))
	v.Status.SetText(f.Status)
	v.Progress.Set(r.Status, f.Progress, f.Step)
	v.Exit.SetText(f.Exit)
	if msg := view.Outcome(r); msg != "" {
		f.Error = msg
	}
	if f.Error != "" {
		v.Error.SetText(f.Error)
		v.Error.Show()
	} else {
		v.Error.Hide()
	}
	v.LogPane.setEnd(view.EndLine(r), view.StatusTone(r.Status))
	v.Owner.SetText(f.Owner)
	v.Supervisor.SetText(f.Supervisor)
	if f.Supervisor != "" {
		v.Supervisor.Show()
	} else {
		v.Supervisor.Hide()
	}
	v.Machine.SetText(f.Machine)
	if f.Machine != "" {
		v.Machine.Show()
		v.machineLabel.Show()
	} else {
		v.Machine.Hide()
		v.machineLabel.Hide()
	}
	v.Times.SetText(f.Times)
}

// logGone is what the log pane says of finished run r whose log file is gone (history
// retention removed it, or a person did), and "" otherwise: an empty pane would read as a
// run that printed nothing. A queued run has no log yet, and a run cancelled before it
// started never had one.
func logGone(r *store.Run) string {
	if r.Active() || r.Log == "" || r.Started.IsZero() {
		return ""
	}
	if _, err := os.Stat(r.Log); errors.Is(err, fs.ErrNotExist) {
		if r.Machine != "" { // an etcd home: its log may be on another machine, the tail in etcd
			return view.RemoteLogWait(r.Machine)
		}
		return view.LogGoneText
	}
	return ""
}

// setWritable enables Cancel for a writer and an active run; a reader sees why not.
func (v *RunView) setWritable(ok bool, reason string, r *store.Run) {
	enable(v.Cancel, view.CancelEnabled(r))
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
	if c.gen != v.logGen || c.empty() {
		return
	}
	if c.remote != nil {
		v.LogPane.showRemote(c.remote.header, c.data, c.remote.failed)
		return
	}
	if c.reset {
		v.LogPane.resetAt(c.off, string(c.data))
		return
	}
	v.LogPane.append(string(c.data))
}

// tail reads a run's log file as it grows, or for a run whose log is on another machine
// (an etcd home) the tail of it kept in etcd (remoteTail). follow is called on the UI
// goroutine; read on the ticker goroutine.
type tail struct {
	remoteTail func(*store.Run) ([]byte, string, bool, error) // Core.RemoteLogTail; set once, before the ticker starts

	mu     sync.Mutex // guards the fields below
	path   string
	off    int64
	gen    uint64
	run    store.Run // the run followed (its status kept fresh by follow); ID "" for none
	remote remoteState
}

// logChunk is what one read of the tail found.
type logChunk struct {
	gen    uint64
	data   []byte
	off    int64       // where data starts in the file
	reset  bool        // the text before data was skipped: it is in the file, not read here
	remote *remoteRead // data is the tail kept in etcd of a log on another machine: all of it
}

// empty reports whether the read found nothing to show.
func (c logChunk) empty() bool { return len(c.data) == 0 && c.remote == nil }

// MaxLogRead caps one read of the log; a large log starts at its last MaxLogRead bytes,
// and the log pane pages in what is before as the person scrolls up (LogPane.earlier).
const MaxLogRead = 1 << 20

// follow points the tail at run r's log (nil for none) and returns its generation: a new
// one when the log followed changes. It keeps a copy of r, whose status decides whether
// a remote tail may still change.
func (t *tail) follow(r *store.Run) uint64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	var run store.Run
	if r != nil {
		run = *r
	}
	if run.Log != t.path || run.ID != t.run.ID || run.Machine != t.run.Machine || run.Attempt != t.run.Attempt {
		t.path, t.off = run.Log, 0
		t.remote = remoteState{}
		t.gen++
	}
	t.run = run
	return t.gen
}

// read returns the bytes appended since the last read.
func (t *tail) read() logChunk {
	if c, remote := t.readRemote(); remote {
		return c
	}
	t.mu.Lock()
	path, off, gen := t.path, t.off, t.gen
	t.mu.Unlock()
	if path == "" {
		return logChunk{}
	}
	f, err := store.OpenInHome(path, os.O_RDONLY, 0) // never through a symlink
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
	c.data, c.off = buf[:n], off
	t.mu.Lock()
	if t.gen == gen {
		t.off = off + int64(n)
	}
	t.mu.Unlock()
	return c
}

// MinRunTitleWidth is the least a run row leaves its id and name: its other columns
// (progress, duration, window) go, the window's first, before the name is squeezed.
const MinRunTitleWidth = 140

// MinFilterWidth is the least the runs filter box gets beside its two choices.
const MinFilterWidth = 150
