package ui

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"strings"
	"sync"
	"time"
	"unicode"

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
	Times      *widget.Label
	Note       *widget.Label
	Cancel     *widget.Button
	Log        *widget.TextGrid // the run's log text (LogPane.Grid)
	LogPane    *LogPane

	m       *Main
	obj     fyne.CanvasObject
	body    fyne.CanvasObject
	empty   *widget.Label
	id      string
	logPath string
	logGen  uint64
	// roleNote is set while Note shows why Cancel is disabled (not a cancel result).
	roleNote bool
}

// MaxLogShown caps the log text kept in the run view; older text scrolls away.
const MaxLogShown = 256 << 10

func newRunView(m *Main) *RunView {
	v := &RunView{m: m, Title: widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}),
		StatusIcon: widget.NewIcon(statusIcon(view.StatusTone(store.StatusQueued))), Status: widget.NewLabel(""),
		Progress: NewStatusBar(), Exit: widget.NewLabel(""), Error: widget.NewLabel(""),
		Owner: widget.NewLabel(""), Supervisor: widget.NewLabel(""), Times: widget.NewLabel(""), Note: widget.NewLabel(""),
		LogPane: newLogPane(m.App.Clipboard)}
	v.Log = v.LogPane.Grid
	v.Title.SizeName = theme.SizeNameSubHeadingText
	// Long names and errors wrap: they must never widen the window.
	v.Title.Wrapping = fyne.TextWrapWord
	v.Error.Wrapping = fyne.TextWrapWord
	v.Error.Importance = widget.DangerImportance
	v.Note.Importance = widget.WarningImportance
	v.Note.Wrapping = fyne.TextWrapWord
	v.Note.Hide()
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
	// The facts scroll in their own pane so that the log, below a handle the person can
	// drag, gets most of the height.
	split := container.NewVSplit(container.NewVScroll(container.NewVBox(head, v.Note, facts, v.Error)), v.LogPane.obj)
	split.Offset = LogSplit
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
		v.m.tail.follow("")
		return
	}
	v.empty.Hide()
	v.body.Show()
	if r.ID != v.id || r.Log != v.logPath {
		v.id, v.logPath = r.ID, r.Log
		v.LogPane.reset(logGone(r))
		v.logGen = v.m.tail.follow(r.Log)
		v.setNote("")
		v.roleNote = false
	}
	f := view.FactsOf(r, self, now)
	v.Title.SetText(f.Title)
	v.StatusIcon.SetResource(statusIcon(f.Tone))
	v.Status.SetText(f.Status)
	v.Progress.Set(r.Status, f.Progress, f.Step)
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

// logGone is what the log pane says of finished run r whose log file is gone (history
// retention removed it, or a person did), and "" otherwise: an empty pane would read as a
// run that printed nothing. A queued run has no log yet, and a run cancelled before it
// started never had one.
func logGone(r *store.Run) string {
	if r.Active() || r.Log == "" || r.Started.IsZero() {
		return ""
	}
	if _, err := os.Stat(r.Log); errors.Is(err, fs.ErrNotExist) {
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
	if c.gen != v.logGen || len(c.data) == 0 {
		return
	}
	if c.reset {
		v.LogPane.reset("")
	}
	v.LogPane.append(string(c.data))
}

// LogPane shows a run's log as it grows. It follows the end while the person is at the
// bottom: scrolling up stops that, scrolling back down or End resumes it. Find shows only
// the lines that hold its text, marked; Copy puts the whole log on the clipboard.
type LogPane struct {
	Grid  *widget.TextGrid
	Find  *widget.Entry
	Found *widget.Label // how many lines match Find
	End   *widget.Button
	Copy  *widget.Button

	obj       fyne.CanvasObject
	clipboard func() fyne.Clipboard
	text      string // the log as read from the file, capped at MaxLogShown
	// attached is set once the Runs tab, and with it Grid, is in the window. Before that
	// only text follows the log: the grid's first refresh loads the monospace fonts (see
	// lazyTab).
	attached bool
}

// newLogPane returns a log pane whose grid shows the log once attach is called.
func newLogPane(clipboard func() fyne.Clipboard) *LogPane {
	p := &LogPane{Grid: widget.NewTextGrid(), Find: widget.NewEntry(), Found: widget.NewLabel(""), clipboard: clipboard}
	p.Grid.Scroll = fyne.ScrollBoth
	p.Find.SetPlaceHolder("Find: show only the lines with this text")
	p.Find.ActionItem = widget.NewIcon(theme.SearchIcon())
	p.Find.OnChanged = func(string) { p.show(); p.end() }
	p.Found.SizeName = theme.SizeNameCaptionText
	p.End = widget.NewButtonWithIcon("End", theme.MoveDownIcon(), p.end)
	p.Copy = widget.NewButtonWithIcon("Copy", theme.ContentCopyIcon(), func() { p.clipboard().SetContent(p.text) })
	bar := container.NewBorder(nil, nil, widget.NewLabelWithStyle("Log", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}),
		container.NewHBox(p.Found, p.End, p.Copy), p.Find)
	p.obj = container.NewBorder(bar, nil, nil, nil, p.Grid)
	return p
}

// attach shows the log so far in the grid, from its end, when the Runs tab joins the
// window. UI goroutine.
func (p *LogPane) attach() {
	if p.attached {
		return
	}
	p.attached = true
	p.reset(p.text)
}

// reset shows text alone, from its end.
func (p *LogPane) reset(text string) {
	p.text = text
	p.show()
	p.end()
}

// append adds text read from the log file and keeps the end in view if it was. Text that
// does not end a line is continued by the next append, so adjacent lines stay adjacent
// however the reads cut them. Past MaxLogShown the oldest lines go.
func (p *LogPane) append(text string) {
	follow := p.atBottom()
	switch {
	case len(p.text)+len(text) > MaxLogShown:
		p.text = trimLog(p.text + text)
		p.show()
	case !p.attached:
		p.text += text
	case p.Find.Text != "":
		p.text += text
		p.show()
	default:
		// The grid's last row is the line the text so far left open (empty after a
		// newline): it is parsed again with what continues it.
		open := p.text[strings.LastIndexByte(p.text, '\n')+1:]
		p.text += text
		if n := len(p.Grid.Rows); n > 0 {
			p.Grid.Rows = p.Grid.Rows[:n-1]
		}
		p.Grid.Append(open + text)
	}
	if follow {
		p.end()
	}
}

// trimLog keeps the newest half of MaxLogShown of all, from a line start.
func trimLog(all string) string {
	all = all[len(all)-MaxLogShown/2:]
	if i := strings.IndexByte(all, '\n'); i >= 0 {
		all = all[i+1:]
	}
	return all
}

// end scrolls to the last line. The grid's scroller takes the text's new size only when
// it refreshes, which ScrollToBottom does after scrolling: when the text has just grown
// past the view, the first call only takes the size and the second scrolls (Fyne 2.7).
func (p *LogPane) end() {
	if !p.attached {
		return
	}
	p.Grid.ScrollToBottom()
	p.Grid.ScrollToBottom()
}

// atBottom reports whether the grid shows the end of its text. The grid keeps its
// scroll offset to itself; PositionForCursorLocation subtracts it.
func (p *LogPane) atBottom() bool {
	if !p.attached {
		return true // attach shows the end
	}
	end := p.Grid.PositionForCursorLocation(len(p.Grid.Rows), 0).Y
	row := end - p.Grid.PositionForCursorLocation(len(p.Grid.Rows)-1, 0).Y
	return end <= p.Grid.Size().Height+row/2
}

// show puts the log in the grid: all of it, or while Find holds text only the lines that
// hold it, ignoring case, with the text marked.
func (p *LogPane) show() {
	if !p.attached {
		return
	}
	q := p.Find.Text
	if q == "" {
		p.Found.SetText("")
		p.Grid.SetText(p.text)
		return
	}
	var lines []string
	for line := range strings.SplitSeq(p.text, "\n") {
		if view.ContainsFold(line, q) {
			lines = append(lines, line)
		}
	}
	p.Found.SetText(view.FoundText(len(lines)))
	p.Grid.SetText(strings.Join(lines, "\n"))
	mark := &widget.CustomTextGridStyle{BGColor: theme.Color(theme.ColorNameSelection)}
	runes := []rune(strings.ToLower(q))
	for r, row := range p.Grid.Rows {
		for c := 0; c+len(runes) <= len(row.Cells); c++ {
			if cellsMatch(row.Cells[c:c+len(runes)], runes) {
				p.Grid.SetStyleRange(r, c, r, c+len(runes)-1, mark)
				c += len(runes) - 1
			}
		}
	}
}

// cellsMatch reports whether cells read q, which is in lower case.
func cellsMatch(cells []widget.TextGridCell, q []rune) bool {
	for i, r := range q {
		if unicode.ToLower(cells[i].Rune) != r {
			return false
		}
	}
	return true
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
