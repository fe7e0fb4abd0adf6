// Package ui is Baton's Fyne window. It renders snapshots of a host.Core and sends
// intents to it; it decides nothing itself.
//
// # Threading
//
// Every widget and every field of Main marked "UI goroutine" is touched only on the UI
// goroutine: core events arrive on a watcher goroutine, which takes a snapshot and hands
// it to the UI goroutine with Options.Do (fyne.Do by default). Intents (save, run, cancel,
// delete) block on disk I/O, so they run on their own goroutines and report back the same
// way.
package ui

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"baton/host"
	"baton/store"
	"baton/ui/view"
)

// Core is what the UI needs of a window; *host.Core implements it. These are the same
// intents the control channel sends.
type Core interface {
	Status() host.Status
	Snapshot() *store.Doc
	Subscribe() *host.Sub
	Unsubscribe(*host.Sub)
	LastTakeover() host.Takeover
	// Intents is where the window's intents go: workflow, run and schedule operations,
	// history (which reads files) and the audit log. The control channel sends its
	// requests to the same service.
	Intents() *host.Intents
	// RequestWrite asks the writer to hand over to this window; it blocks until this
	// window writes or the hand-over did not happen (up to 10 s).
	RequestWrite(ctx context.Context) (uint64, error)
	// RemoteLogTail is, for a run whose log is on another machine (an etcd home), the
	// last 64 KiB of its log kept in etcd and where the whole log is; remote is false when
	// the log is on this machine. It blocks for one etcd read: the tail calls it off the UI
	// goroutine.
	RemoteLogTail(r *store.Run) (tail []byte, where string, remote bool, err error)
}

// Options configure the window. The zero value is what the app uses.
type Options struct {
	// Do runs fn on the UI goroutine; fyne.Do by default. Tests pass a queue they drain
	// on the test goroutine.
	Do func(fn func())
	// Now is the clock for durations and the takeover note; time.Now by default.
	Now func() time.Time
	// Tick is how often running durations and the live log refresh; 500 ms by default.
	Tick time.Duration
	// OpenAnother starts another window on the same home. By default it starts
	// os.Executable() with --home.
	OpenAnother func(home string) error
	// Confirm asks the person a yes/no question; a dialog by default.
	Confirm func(title, message string, fn func(ok bool))
	// HistoryPage is how many runs one "Show older runs" asks the core for;
	// DefaultHistoryPage by default.
	HistoryPage int
}

// AuditMax is how many audit entries the Activity tab shows.
const AuditMax = 500

// Main is the main window and the widgets tests look at. Create it with New, then call
// Watch; call Stop when the window closes.
type Main struct {
	App    fyne.App
	Win    fyne.Window
	Role   *RoleBar
	Tabs   *container.AppTabs
	Footer *widget.Label
	Undo   *UndoBar // says what was deleted, with Undo
	// Failures says a run failed when the desktop shows no notifications.
	Failures *FailureBar

	Search    *KeyEntry
	Workflows *KeyList
	NewButton *widget.Button
	Editor    *Editor
	Chart     *DurationChart

	RunsFilter   *KeyEntry
	RunsWorkflow *FilterSelect  // the workflow filter, also the HistoryQuery's
	RunsStatus   *widget.Select // the status filter, also the HistoryQuery's
	RunsCount    *widget.Label
	Runs         *KeyList
	RunsArchive  *widget.Label  // what is listed from the archive
	RunsOlder    *widget.Button // loads the next page of History
	RunsRecent   *widget.Button // drops the archived runs from the list
	RunView      *RunView

	Timeline *Timeline
	Activity *KeyList
	// ActivityFilter keeps the Activity lines that hold its text: a workflow's name, or
	// what happened.
	ActivityFilter *KeyEntry
	Schedules      *Schedules

	core Core
	opts Options
	sub  *host.Sub
	stop chan struct{}
	once sync.Once
	tail tail
	pend pending // from the watcher to the UI goroutine

	// UI goroutine only.
	doc          *store.Doc
	st           host.Status
	tk           host.Takeover
	opened       time.Time
	wfIdx        []int             // filtered indices into doc.Workflows
	runIdx       []int             // filtered runs, newest first: indices into doc.Runs, or -(k+1) for hist.Runs[k] (view.History.List)
	runsDoc      *store.Doc        // the snapshot runIdx indexes
	runsTop      string            // the run at the top of the runs list's view before the last reindex (runsAnchor)
	runsIn       float32           // how far into runsTop the view started
	revealRun    bool              // the next render scrolls the runs list to the selected run
	runRowHeight float32           // a row's height in the runs list (runStride)
	hist         view.History      // what the Runs tab loaded of the archive
	lastOf       map[string]string // workflow name → status of its newest run
	selWF        string            // selected workflow name ("" none)
	selRun       string            // selected run id
	syncing      bool              // selecting in a list from code, not from the person
	entries      []view.Activity   // activity lines, newest first
	audit        []store.Entry     // the audit entries the Activity lines were made from
	skips        map[string]int    // skipped occurrences of each schedule, in audit
	notified     map[string]bool
	writeable    bool
	autoOpen     bool // the first workflow was opened for the person
	released     bool // the start's memory was given back (releaseStartupMemory)
	ticks        int  // ticks applied on the UI goroutine (tests count them)
	chartBox     fyne.CanvasObject
	mainSplit    *container.Split   // the sidebar beside the tabs
	runsSplit    *container.Split   // the runs list above the run view
	closeAsk     dialog.Dialog      // the close confirmation while it is shown
	notifyItem   *fyne.MenuItem     // View › Notify when a run fails
	sortItems    []*fyne.MenuItem   // View › Sort workflows …
	rename       *dialog.FormDialog // the last Rename dialog: tests answer it with keys

	// unattached attaches the content of each lazy tab not shown yet (lazyTab).
	unattached map[*container.TabItem]func()
}

// New builds the main window of core in app a. Call Watch to follow the core.
func New(a fyne.App, core Core, opts Options) *Main {
	if opts.Do == nil {
		opts.Do = fyne.Do
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Tick <= 0 {
		opts.Tick = 500 * time.Millisecond
	}
	if opts.HistoryPage <= 0 {
		opts.HistoryPage = DefaultHistoryPage
	}
	if opts.OpenAnother == nil {
		opts.OpenAnother = openAnother
	}
	st := core.Status()
	m := &Main{App: a, core: core, opts: opts, stop: make(chan struct{}), doc: core.Snapshot(), st: st,
		tk: core.LastTakeover(), opened: opts.Now(), lastOf: map[string]string{}, notified: map[string]bool{},
		unattached: map[*container.TabItem]func(){}}
	if m.opts.Confirm == nil {
		m.opts.Confirm = m.confirm
	}
	m.Win = a.NewWindow(view.WindowTitle(st))
	m.Win.SetIcon(Icon)
	m.Role = newRoleBar()
	m.Role.Ask.OnTapped = m.RequestWrite
	m.Role.Recover.OnTapped = m.ShowRecover
	m.Footer = widget.NewLabel("")
	m.Footer.SizeName = theme.SizeNameCaptionText
	m.Footer.Truncation = fyne.TextTruncateEllipsis
	m.buildWorkflows()
	m.buildRuns()
	m.Timeline = NewTimeline()
	m.buildActivity()
	m.Schedules = newSchedules(m)
	m.Tabs = container.NewAppTabs(
		container.NewTabItemWithIcon("Workflow", theme.DocumentIcon(), m.workflowPane()),
		m.lazyTab("Runs", theme.ListIcon(), m.runsPane(), m.RunView.LogPane.attach),
		m.lazyTab("Timeline", theme.HistoryIcon(), m.timelinePane(), nil),
		m.lazyTab("Schedules", theme.CalendarIcon(), m.Schedules.obj, nil), // not the Timeline's clock
		m.lazyTab("Activity", theme.InfoIcon(), m.activityPane(), nil),
	)
	m.Tabs.OnSelected = m.tabSelected
	split := container.NewHSplit(m.workflowsColumn(), m.Tabs)
	split.Offset = 0.26
	m.mainSplit = split
	m.Undo = newUndoBar(m)
	m.Failures = newFailureBar(m)
	m.Win.SetContent(container.NewBorder(m.Role.obj, container.NewVBox(m.Failures.obj, m.Undo.obj, m.Footer), nil, nil, split))
	m.installDesktop()
	m.restoreSplits()
	m.render(nil)
	return m
}

// Watch subscribes to the core and starts the goroutines that follow it: events and a
// ticker for durations, the live log and the audit log. It returns at once.
func (m *Main) Watch() {
	m.sub = m.core.Subscribe()
	go m.watch(m.sub)
	go m.ticker()
	// The snapshot may have changed between New and Subscribe.
	m.offer(nil)
}

// Stop ends the subscription and the goroutines of Watch. Safe to call more than once.
func (m *Main) Stop() {
	m.once.Do(func() {
		close(m.stop)
		if m.sub != nil {
			m.core.Unsubscribe(m.sub)
		}
	})
}

// post runs fn on the UI goroutine unless the window stopped.
func (m *Main) post(fn func()) {
	select {
	case <-m.stop:
		return
	default:
	}
	m.opts.Do(func() {
		select {
		case <-m.stop:
		default:
			fn()
		}
	})
}

// watch turns core events into snapshots applied on the UI goroutine.
func (m *Main) watch(sub *host.Sub) {
	for e := range sub.C {
		batch := []host.Event{e}
	drain:
		for {
			select {
			case e2, ok := <-sub.C:
				if !ok {
					break drain
				}
				batch = append(batch, e2)
			default:
				break drain
			}
		}
		m.offer(batch)
	}
}

// pending is what the watcher has for the UI goroutine and the UI goroutine has not
// applied yet: the newest snapshot and every event since the last apply.
//
// Why: a render of a big home costs tens of milliseconds, and the core can send events
// far faster than that (a window that opens on 10,000 runs announces each of them). One
// apply per burst would queue thousands of renders of snapshots already stale, and the
// window would spend minutes catching up while it looks idle. With pending, at most one
// apply is queued at a time, and it shows the newest snapshot with all the events.
type pending struct {
	mu     sync.Mutex
	doc    *store.Doc
	st     host.Status
	tk     host.Takeover
	evs    []host.Event
	queued bool // an apply of this is queued on the UI goroutine

	// While the core is promoting (taking over), nothing is applied: the window does not
	// redraw while its own process re-reads and saves the home. hold fires after
	// PromotingShowAfter and shows "Taking over…" if the takeover still runs then.
	hold  *time.Timer
	shown bool // the promoting state was shown (hold fired during this takeover)
	// park is closed when the hold ends; until then the UI goroutine waits on it, so
	// Fyne's run loop draws nothing, not even the window a dead writer's window uncovered.
	park chan struct{}
}

// PromotingShowAfter is how long a takeover runs before the window says "Taking over…".
//
// Why: a desktop survivor that had lived for minutes took over 2–5× slower than a headless
// one (issue 22): the role event "promoting" and the snapshot published with the re-read
// made the window render everything (lists, run pane, log, pictures; GL through Mesa's
// software renderer) on the same two cores exactly while the takeover re-read and saved.
// A takeover takes milliseconds; a transient state shown only if it lasts is the usual
// UX delay, so a fast takeover never flashes it, and a slow one still says so.
//
// For as long, the UI goroutine is parked (pending.park): when the dead writer's window
// covered this one, the X server asks this one to draw again (Expose) the moment the dead
// one's connection closes, which is the moment state.lock is free, and the redraw (about
// 10 ms of Mesa's llvmpipe on two threads) ran beside the takeover's re-read and save.
const PromotingShowAfter = 150 * time.Millisecond

// offer takes a snapshot of the core with the events that led to it and queues an apply
// on the UI goroutine unless one is queued already. Watcher goroutine.
func (m *Main) offer(evs []host.Event) {
	doc, st, tk := m.core.Snapshot(), m.core.Status(), m.core.LastTakeover()
	p := &m.pend
	p.mu.Lock()
	if !older(doc, p.doc) { // a snapshot read before the one freshDoc stored is not kept
		p.doc = doc
	}
	p.st, p.tk = st, tk
	p.evs = append(p.evs, evs...)
	hold, park := m.holdWhilePromoting(st.Role)
	queue := !hold && !p.queued
	if queue {
		p.queued = true
	}
	p.mu.Unlock()
	if park != nil {
		m.post(func() { m.parkUntil(park) })
	}
	if queue {
		m.post(m.applyPending)
	}
	offered()
}

// parkUntil blocks the UI goroutine until park is closed (the hold ended) or the window
// stopped. UI goroutine.
func (m *Main) parkUntil(park <-chan struct{}) {
	select {
	case <-park:
	case <-m.stop:
	}
}

// unpark ends the UI goroutine's park, if any. Called with the pending lock held.
func (p *pending) unpark() {
	if p.park != nil {
		close(p.park)
		p.park = nil
	}
}

// holdWhilePromoting reports whether applies are held for a snapshot with role: while
// the core is promoting, until the takeover has run for PromotingShowAfter. As a hold
// begins it returns the park the UI goroutine is to wait on meanwhile.
// Called with the pending lock held.
func (m *Main) holdWhilePromoting(role host.Role) (hold bool, park chan struct{}) {
	p := &m.pend
	if role != host.RolePromoting {
		if p.hold != nil {
			p.hold.Stop()
			p.hold = nil
		}
		p.unpark()
		p.shown = false
		return false, nil
	}
	if p.shown {
		return false, nil
	}
	if p.hold == nil {
		p.park = make(chan struct{})
		p.hold = time.AfterFunc(promotingDelay(), m.showPromoting)
		return true, p.park
	}
	return true, nil
}

// showPromoting queues the apply held since the takeover began, if it still runs.
// Timer goroutine.
func (m *Main) showPromoting() {
	p := &m.pend
	p.mu.Lock()
	if p.hold == nil || p.st.Role != host.RolePromoting { // the takeover ended meanwhile
		p.unpark()
		p.mu.Unlock()
		return
	}
	p.hold, p.shown = nil, true
	p.unpark()
	queue := !p.queued
	p.queued = true
	p.mu.Unlock()
	if queue {
		m.post(m.applyPending)
	}
}

// freshDoc makes m.doc the core's snapshot now, after an action of this window, and makes
// it the pending apply's too. UI goroutine.
//
// Why: the watcher may hold an older snapshot, offered just before the action's save; its
// apply, queued behind this, would put that snapshot back (an editor whose new workflow
// is not in it closes, saying it was deleted).
func (m *Main) freshDoc() {
	m.doc = m.core.Snapshot()
	p := &m.pend
	p.mu.Lock()
	if !older(m.doc, p.doc) {
		p.doc = m.doc
	}
	p.mu.Unlock()
}

// older reports whether snapshot a comes before b, as the core publishes them
// (store.Doc.Before). The core's methods are called outside the pending lock: they may
// wait for a save, which the UI goroutine must not wait for.
func older(a, b *store.Doc) bool { return a != nil && b != nil && a.Before(b) }

// applyPending applies what the watcher offered since the last apply. UI goroutine.
// Nothing new (as when Watch finds the snapshot New rendered) is not rendered again.
func (m *Main) applyPending() {
	p := &m.pend
	p.mu.Lock()
	if p.st.Role == host.RolePromoting && !p.shown { // queued before the takeover began
		p.queued = false // the writer's offer or showPromoting queues it again
		p.mu.Unlock()
		return
	}
	doc, st, tk, evs := p.doc, p.st, p.tk, p.evs
	p.evs, p.queued = nil, false
	p.mu.Unlock()
	if len(evs) == 0 && doc == m.doc && st == m.st && tk.Epoch == m.tk.Epoch {
		return
	}
	m.apply(doc, st, tk, evs)
}

// ticker refreshes what changes with time and tails the run log and the audit log.
func (m *Main) ticker() {
	t := time.NewTicker(m.opts.Tick)
	defer t.Stop()
	var auditStamp, role string
	for {
		select {
		case <-m.stop:
			return
		case <-t.C:
		}
		chunk := m.tail.read()
		var entries []store.Entry
		fresh := false
		st := m.core.Status()
		if st.Role == host.RolePromoting && !m.promotingShown() {
			continue // a takeover runs: the window waits (pending.hold)
		}
		if stamp := fileStamp(filepath.Join(st.Home, store.AuditName)); stamp != auditStamp {
			auditStamp = stamp
			entries, _ = m.core.Intents().Audit(AuditMax)
			fresh = true
		}
		// An idle window is left asleep: a tick posted to the UI goroutine wakes Fyne's
		// run loop, which then ticks until a tick finds nothing to draw. Only the log, the
		// audit log, a running run's duration and the role bar's text change with time.
		doc := m.core.Snapshot()
		was := role
		role = view.RoleText(st, m.core.LastTakeover(), doc, m.opts.Now())
		if chunk.empty() && !fresh && role == was && !view.AnyRunning(doc) {
			continue
		}
		m.post(func() { m.tick(chunk, entries, fresh) })
	}
}

// promotingShown reports whether the window shows the takeover that runs.
func (m *Main) promotingShown() bool {
	m.pend.mu.Lock()
	defer m.pend.mu.Unlock()
	return m.pend.shown
}

func fileStamp(path string) string {
	fi, err := os.Stat(path)
	if err != nil {
		return ""
	}
	return fmt.Sprintf("%d/%d", fi.Size(), fi.ModTime().UnixNano())
}

// apply shows a new snapshot. UI goroutine.
func (m *Main) apply(doc *store.Doc, st host.Status, tk host.Takeover, evs []host.Event) {
	if doc != nil {
		m.doc = doc
	}
	m.st, m.tk = st, tk
	m.render(evs)
	m.releaseStartupMemory()
}

// render redraws everything from m.doc and m.st. UI goroutine.
func (m *Main) render(evs []host.Event) {
	if w := view.AutoOpen(m.autoOpen, m.Editor.open, m.doc); w != nil {
		m.autoOpen = true
		m.selWF = w.Name
		m.Editor.load(w)
	}
	m.reindexWorkflows()
	m.syncWorkflowChoices()
	m.reindexRuns()
	m.renderHistory()
	if view.PickNewest(m.selRun, len(m.runIdx)) {
		m.selRun = m.rowRun(0).ID // show the newest run until the person picks one
	}
	m.renderRole()
	m.Workflows.Refresh()
	m.Runs.Refresh()
	m.syncSelections()
	m.keepRunsInPlace(m.runsTop, m.runsIn)
	m.Editor.follow(m.doc)
	m.renderRun()
	m.renderPictures()
	m.Schedules.render()
	m.notify(evs)
	m.Footer.SetText(view.Footer(m.st, m.doc))
}

// renderRole updates the role bar and every write control.
func (m *Main) renderRole() {
	m.renderRoleText()
	m.writeable = view.Writable(m.st)
	m.updateControls()
}

// renderRoleText updates the role bar's text, which changes with time too: a takeover
// note goes after a while.
func (m *Main) renderRoleText() {
	m.Role.set(m.st.Role, view.RoleText(m.st, m.tk, m.doc, m.opts.Now()))
	m.Role.offerRecover(view.CanRecover(m.st))
}

// updateControls enables exactly the write controls this window may use now.
func (m *Main) updateControls() {
	reason := view.ReadOnlyReason(m.st)
	m.Editor.setWritable(m.writeable, reason)
	m.Schedules.updateButtons()
	m.RunView.setWritable(m.writeable, view.ForwardNote(m.st), m.selectedRun())
}

// tick is the periodic refresh. UI goroutine. It redraws only what changes with time:
// the write controls change with snapshots (render) and edits, and setting them on every
// tick redrew buttons (the schedule form's Pause sets its text and icon) twice a second
// in an idle window.
func (m *Main) tick(chunk logChunk, entries []store.Entry, fresh bool) {
	m.ticks++
	m.renderRoleText()
	if view.AnyRunning(m.doc) {
		m.Runs.Refresh()
		m.renderRun()
		m.renderPictures()
	}
	m.RunView.appendLog(chunk)
	if fresh {
		m.setActivity(entries)
	}
}

// notify sends a desktop notification for each run that failed since the window opened
// (view.FailureNotices decides which). UI goroutine.
func (m *Main) notify(evs []host.Event) {
	m.tellFailures(view.FailureNotices(m.st, evs, m.doc, m.opened, m.notified))
}

// runAsync runs an intent off the UI goroutine and reports its error back on it.
func (m *Main) runAsync(intent func() error, done func(err error)) {
	go func() {
		err := intent()
		m.post(func() { done(err) })
	}()
}

// RequestWrite asks the writer to hand over to this window ("Make this window the
// writer"); the role bar says how it went. It does not block the UI goroutine.
func (m *Main) RequestWrite() {
	m.Role.Ask.Disable()
	m.Role.Note.SetText("Asking the writer to hand over…")
	m.Role.Note.Show()
	m.runAsync(func() error { _, err := m.core.RequestWrite(context.Background()); return err }, func(err error) {
		m.Role.Ask.Enable()
		m.Role.Note.SetText(view.HandoverResult(err))
	})
}

// ShowTab selects the tab with the given title ("Workflow", "Runs", "Timeline", "Activity").
func (m *Main) ShowTab(title string) {
	for _, it := range m.Tabs.Items {
		if it.Text == title {
			m.Tabs.Select(it)
		}
	}
}
