package ui

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"baton/ui/view"
)

// LogPane shows a run's log as it grows, the whole of it: the newest MaxLogRead first, and
// what is before paged in from the file as the person scrolls up (or presses Earlier). It
// follows the end while the person is at the bottom: scrolling up stops that, scrolling
// back down or End resumes it. Find searches the whole file and shows only the lines that
// hold its text, marked; Copy puts the mouse's selection on the clipboard, or with none
// the whole log, and says which it copied.
type LogPane struct {
	Grid    *widget.TextGrid
	Find    *widget.Entry
	Found   *widget.Label // how many lines match Find, or what Copy copied
	End     *widget.Button
	Copy    *widget.Button
	Earlier *widget.Button // pages in the text before what is shown; shown while there is some
	Select  *LogSelect     // over the grid: the mouse selects text with it
	// Remote is the first line for a log on another machine (an etcd home): where the
	// whole log is, and that the pane shows its tail kept in etcd. Hidden otherwise.
	Remote *widget.Label

	obj       fyne.CanvasObject
	clipboard func() fyne.Clipboard
	path      string // the log file; "" when text is all there is (a note, a test)
	base      int64  // where text starts in the file
	text      string // the log as read from the file, from a line start, at most MaxLogShown
	cut       bool   // text stops before the file's end (paged up past MaxLogShown): End reloads the end
	endLine   string // the log's last line: how the run ended (view.EndLine); "" while it runs
	endTone   view.Tone
	remote    bool // text is the tail in etcd of a log on another machine (showRemote)
	// attached is set once the Runs tab, and with it Grid, is in the window. Before that
	// only text follows the log: the grid's first refresh loads the monospace fonts (see
	// lazyTab).
	attached bool
}

// MaxLogShown caps the log text the pane holds (each character is a cell of the grid);
// paging further up lets the newest text go, and End reads it again.
const MaxLogShown = 4 << 20

// LogPage is how much earlier text one page-in reads.
const LogPage = 256 << 10

// MaxLogCopy caps what Copy and Find read of a log file; a larger log is searched and
// copied from its last MaxLogCopy bytes, and the pane says so.
const MaxLogCopy = 64 << 20

// newLogPane returns a log pane whose grid shows the log once attach is called.
func newLogPane(clipboard func() fyne.Clipboard) *LogPane {
	p := &LogPane{Grid: widget.NewTextGrid(), Find: widget.NewEntry(), Found: widget.NewLabel(""), clipboard: clipboard}
	p.Grid.Scroll = fyne.ScrollBoth
	p.Find.SetPlaceHolder("Find: show only the lines with this text")
	p.Find.ActionItem = widget.NewIcon(theme.SearchIcon())
	p.Find.OnChanged = func(string) { p.show(); p.end() }
	p.Found.SizeName = theme.SizeNameCaptionText
	p.Found.Truncation = fyne.TextTruncateEllipsis // "Copied the whole log: …" must not widen the window
	p.End = widget.NewButtonWithIcon("End", theme.MoveDownIcon(), p.toEnd)
	p.Copy = widget.NewButtonWithIcon("Copy", theme.ContentCopyIcon(), p.copy)
	p.Earlier = widget.NewButtonWithIcon("Earlier", theme.MoveUpIcon(), func() { p.earlier() })
	p.Earlier.Hide()
	p.Select = newLogSelect(p)
	p.Remote = widget.NewLabel("")
	p.Remote.Wrapping = fyne.TextWrapWord // a long path wraps: never the window
	p.Remote.Importance = widget.WarningImportance
	p.Remote.Hide()

	bar := container.NewBorder(nil, nil, widget.NewLabelWithStyle("Log", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}),
		container.NewHBox(p.Earlier, p.End, p.Copy), container.NewGridWithColumns(2, p.Find, p.Found))
	p.obj = container.NewBorder(container.NewVBox(bar, p.Remote), nil, nil, nil, container.NewStack(p.Grid, p.Select))
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

// open shows the log of file path (none read yet), or note when it has none to show.
func (p *LogPane) open(path, note string) {
	p.path, p.base, p.cut = path, 0, false
	p.remote = false
	p.Remote.Hide()
	p.reset(note)
}

// showRemote shows tail, the last 64 KiB of a log on another machine kept in etcd, under
// header (where the whole log is): all of the pane's text, which Find searches and Copy
// copies, saying it is the tail. failed keeps the text shown (the tail could not be read).
// The end stays in view if it was.
func (p *LogPane) showRemote(header string, tail []byte, failed bool) {
	p.Remote.SetText(header)
	p.Remote.Show()
	if failed && p.remote {
		return
	}
	follow := p.atBottom() || !p.remote
	p.path, p.base, p.cut, p.remote = "", 0, false, true // nothing to page in: etcd holds only the tail
	p.text = view.RemoteLogText(tail)
	p.Select.clear()
	p.show()
	if follow {
		p.end()
	}
}

// reset shows text alone, from its end.
func (p *LogPane) reset(text string) {
	p.text = text
	p.Select.clear()
	p.show()
	p.end()
}

// resetAt shows text read from offset off of the file, from its first whole line: what
// is before it is paged in as the person scrolls up.
func (p *LogPane) resetAt(off int64, text string) {
	p.cut = false
	if off > 0 {
		i := strings.IndexByte(text, '\n') + 1 // 0 when a line is longer than all of text: keep it
		off, text = off+int64(i), text[i:]
	}
	p.base = off
	p.reset(text)
}

// append adds text read from the log file and keeps the end in view if it was. Text that
// does not end a line is continued by the next append, so adjacent lines stay adjacent
// however the reads cut them. Past MaxLogShown the oldest lines go (they stay in the
// file: Earlier brings them back).
func (p *LogPane) append(text string) {
	if p.cut {
		return // the end is not shown: End reads it again
	}
	follow := p.atBottom()
	switch {
	case len(p.text)+len(text) > MaxLogShown:
		all := p.text + text
		kept := trimLog(all)
		p.base += int64(len(all) - len(kept))
		p.text = kept
		p.Select.clear()
		p.show()
	case !p.attached:
		p.text += text
	case p.Find.Text != "" || p.endLine != "": // the end line stays last
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

// earlier pages in up to LogPage of the text before what is shown, from a line start,
// and keeps the line at the top of the view where it was. It reports whether it read any.
func (p *LogPane) earlier() bool {
	if p.path == "" || p.base <= 0 {
		return false
	}
	start := max(0, p.base-LogPage)
	buf, err := readRange(p.path, start, p.base-start)
	if err != nil || len(buf) == 0 {
		return false
	}
	if start > 0 {
		if i := bytes.IndexByte(buf, '\n'); i >= 0 && i+1 < len(buf) {
			buf, start = buf[i+1:], start+int64(i+1)
		}
	}
	added := bytes.Count(buf, []byte{'\n'})
	p.text, p.base = string(buf)+p.text, start
	if len(p.text) > MaxLogShown { // the newest text goes; End reads it again
		keep := p.text[:MaxLogShown]
		p.text, p.cut = keep[:strings.LastIndexByte(keep, '\n')+1], true
	}
	off := p.Grid.ScrollOffset()
	p.Select.clear()
	p.show()
	if p.attached && p.Find.Text == "" {
		p.Grid.ScrollToOffset(off.AddXY(0, float32(added)*p.rowHeight()))
	}
	return true
}

// toEnd shows the end of the log: read again from the file if paging up let it go.
func (p *LogPane) toEnd() {
	if p.cut {
		if buf, off, err := readTail(p.path, MaxLogRead); err == nil {
			p.resetAt(off, string(buf))
			return
		}
	}
	p.end()
}

// rowHeight is the height of one row of the grid.
func (p *LogPane) rowHeight() float32 {
	return p.Grid.PositionForCursorLocation(1, 0).Y - p.Grid.PositionForCursorLocation(0, 0).Y
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

// show puts the log in the grid: the text held, or while Find holds text only the lines
// of the whole log that hold it, ignoring case, with the text marked.
func (p *LogPane) show() {
	p.Earlier.Hidden = p.base <= 0 || p.Find.Text != ""
	p.Earlier.Refresh()
	if !p.attached {
		return
	}
	q := p.Find.Text
	if q == "" {
		p.Found.SetText("")
		p.Grid.SetText(p.text)
		p.showEnd()
		return
	}
	all, note := p.whole()
	var lines []string
	for line := range strings.SplitSeq(all, "\n") {
		if view.ContainsFold(line, q) {
			lines = append(lines, line)
		}
	}
	p.Found.SetText(view.FoundText(len(lines)) + note)
	p.Grid.SetText(strings.Join(lines, "\n"))
	p.markRows(0, len(p.Grid.Rows)-1)
}

// markRows marks Find's text in rows from to to.
func (p *LogPane) markRows(from, to int) {
	q := p.Find.Text
	if q == "" {
		return
	}
	mark := &widget.CustomTextGridStyle{BGColor: theme.Color(theme.ColorNameSelection)}
	runes := []rune(strings.ToLower(q))
	for r := max(from, 0); r <= to && r < len(p.Grid.Rows); r++ {
		row := p.Grid.Rows[r]
		for c := 0; c+len(runes) <= len(row.Cells); c++ {
			if cellsMatch(row.Cells[c:c+len(runes)], runes) {
				p.Grid.SetStyleRange(r, c, r, c+len(runes)-1, mark)
				c += len(runes) - 1
			}
		}
	}
}

// whole is the whole log: the text held when it is all of the file, else the file (its
// last MaxLogCopy bytes, with a note saying so).
func (p *LogPane) whole() (text, note string) {
	if p.remote {
		return p.text, view.RemoteLogNote()
	}
	if p.path == "" || (p.base == 0 && !p.cut) {
		return p.text, ""
	}
	buf, off, err := readTail(p.path, MaxLogCopy)
	if err != nil {
		return p.text, ""
	}
	if off > 0 {
		note = fmt.Sprintf(" (in the last %s of the log)", view.SizeText(int64(len(buf))))
	}
	return string(buf), note
}

// copy puts the selection on the clipboard, or the whole log when nothing is selected,
// and says which.
func (p *LogPane) copy() {
	if sel := p.Select.text(); sel != "" {
		p.clipboard().SetContent(sel)
		p.Found.SetText(view.CopiedText(sel, true, ""))
		return
	}
	all, note := p.whole()
	p.clipboard().SetContent(all)
	p.Found.SetText(view.CopiedText(all, false, note))
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

// readRange reads n bytes of file path from off.
func readRange(path string, off, n int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	buf := make([]byte, n)
	k, err := f.ReadAt(buf, off)
	if err != nil && err != io.EOF {
		return nil, err
	}
	return buf[:k], nil
}

// readTail reads the last max bytes of file path and says where they start; from a
// line start when that is not the file's.
func readTail(path string, limit int64) ([]byte, int64, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, 0, err
	}
	off := max(0, fi.Size()-limit)
	buf, err := readRange(path, off, fi.Size()-off)
	if err != nil {
		return nil, 0, err
	}
	if off > 0 {
		if i := bytes.IndexByte(buf, '\n'); i >= 0 {
			buf, off = buf[i+1:], off+int64(i+1)
		}
	}
	return buf, off, nil
}

// setEnd ends the log shown with line, in the colour of the run's status ("" for none,
// while the run is active). The writer writes the line into the log before it records the
// end (workflow.EndLine): a log that ends with it shows its own line, coloured; the pane
// draws the line only after a log that lacks it (a run recorded before the writer wrote
// it, a log cut by a full disk), and Copy and Find leave that drawn line out.
func (p *LogPane) setEnd(line string, tone view.Tone) {
	if line == p.endLine && tone == p.endTone {
		return
	}
	p.endLine, p.endTone = line, tone
	p.Select.clear()
	p.show()
}

// showEnd colours the end line when the grid shows the log's end: the log's own last
// line when it is the end line, else one added after the log.
func (p *LogPane) showEnd() {
	if p.endLine == "" || p.cut || p.Find.Text != "" {
		return
	}
	if n := len(p.Grid.Rows); n > 0 && len(p.Grid.Rows[n-1].Cells) == 0 {
		p.Grid.Rows = p.Grid.Rows[:n-1] // the empty row after the log's last newline
	}
	if !view.EndsWithLine(p.text, p.endLine) {
		p.Grid.Append(p.endLine)
	}
	name := theme.ColorNameForeground
	switch p.endTone {
	case view.ToneError:
		name = theme.ColorNameError
	case view.ToneSuccess:
		name = theme.ColorNameSuccess
	case view.ToneWarning:
		name = theme.ColorNameWarning
	}
	p.Grid.SetRowStyle(len(p.Grid.Rows)-1, &widget.CustomTextGridStyle{FGColor: theme.Color(name),
		TextStyle: fyne.TextStyle{Bold: true, Monospace: true}})
}
