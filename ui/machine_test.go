package ui

import (
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"fyne.io/fyne/v2/widget"

	"baton/host"
	"baton/store"
	"baton/ui/view"
	"baton/workflow"
)

// remoteLogCore is a window core whose runs with a machine ran on another machine: their
// log is not here, and RemoteLogTail answers with the tail the test sets, as an etcd home
// does, without etcd. Runs without a machine (a folder home's) ask the real core.
type remoteLogCore struct {
	*host.Core
	mu    sync.Mutex
	tail  string
	calls []time.Time // when RemoteLogTail was asked
	// hold, when set, keeps RemoteLogTail from answering until it is closed, as an etcd
	// out of reach does (for seconds); asked is told once it waits.
	hold, asked chan struct{}
	err         error // what reading the tail from etcd fails with, when set
}

func (c *remoteLogCore) RemoteLogTail(r *store.Run) ([]byte, string, bool, error) {
	if r.Machine == "" {
		return c.Core.RemoteLogTail(r)
	}
	c.mu.Lock()
	c.calls = append(c.calls, time.Now())
	hold, asked := c.hold, c.asked
	c.mu.Unlock()
	if hold != nil {
		asked <- struct{}{}
		<-hold
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return nil, "machine " + r.Machine + ", /cache/baton/logs/" + r.ID + ".log", true, c.err
	}
	return []byte(c.tail), "machine " + r.Machine + ", /cache/baton/logs/" + r.ID + ".log", true, nil
}

func (c *remoteLogCore) setTail(s string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.tail = s
}

// seedMachineRuns writes runs into home before any window opens: one per machine name
// ("" for a folder home's run), with status, a supervisor (pid 812) and a log path
// that does not exist on this machine.
func seedMachineRuns(t *testing.T, home, status string, machines ...string) {
	t.Helper()
	abs, err := host.PrepareHome(home)
	if err != nil {
		t.Fatal(err)
	}
	st := store.New(abs, store.Options{MaxSize: 1 << 30})
	if _, err := st.Reload(); err != nil {
		t.Fatal(err)
	}
	st.BeginEpoch()
	defer st.EndEpoch()
	start := time.Now().Add(-time.Minute).UTC()
	_, err = st.Update(func(d *store.Doc) error {
		d.Workflows = append(d.Workflows, store.Workflow{Name: "backup", MaxConcurrent: 5, OnOwnerLost: "fail", Steps: []store.Step{{Argv: []string{"true"}}}})
		for _, m := range machines {
			d.Seq++
			id := workflow.NewRunID(d.Seq)
			r := store.Run{ID: id, Seq: d.Seq, Workflow: "backup", Status: status, Steps: 1, Created: start, Started: start,
				OwnerPID: 4242, SupervisorPID: 812, Machine: m, Log: "/nonexistent/baton/logs/" + id + ".log"}
			if status != store.StatusRunning {
				code := 0
				r.Ended, r.ExitCode = start.Add(time.Second), &code
			}
			d.Runs = append(d.Runs, r)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// machineUI opens a read-only window (never started: nothing reaps the seeded runs) on
// the seeded home, through remoteLogCore.
func machineUI(t *testing.T, status string, machines ...string) (*remoteLogCore, *Main, *uiQueue) {
	t.Helper()
	isolate(t)
	home := newHome(t)
	seedMachineRuns(t, home, status, machines...)
	c := &remoteLogCore{Core: openCore(t, home)}
	m, q := newUI(t, c)
	q.waitFor(t, "the seeded runs", func() bool { return len(m.runIdx) == len(machines) })
	return c, m, q
}

// TestRunsNameTheirMachine (issue 21): on an etcd home a run's row and the run view name
// the machine it runs on; a long name is shortened in the row and the Window line and
// whole on the Machine line; a folder home's run shows what it always did.
func TestRunsNameTheirMachine(t *testing.T) {
	long := "build-server-in-the-basement-rack-3.example.org"
	_, m, _ := machineUI(t, store.StatusSucceeded, "", "laptop", long)
	doc := m.core.Snapshot()
	folder, laptop, far := doc.Runs[0].ID, doc.Runs[1].ID, doc.Runs[2].ID
	rows := map[string]string{}
	for i := range m.runIdx {
		row := newRunRow().(*runRow)
		m.updateRunRow(i, row)
		rows[m.rowRun(i).ID] = row.own.Text
	}
	if got := rows[laptop]; got != "pid 4242 on laptop" {
		t.Errorf("the laptop run's row says %q, want %q", got, "pid 4242 on laptop")
	}
	if got := rows[folder]; got != "pid 4242" {
		t.Errorf("the folder home's run's row says %q, want %q", got, "pid 4242")
	}
	if got := rows[far]; !strings.HasSuffix(got, "…") || strings.Contains(got, long) {
		t.Errorf("the long machine's row says %q: not shortened", got)
	}

	v := m.RunView
	m.ShowRun(laptop)
	if want := "supervisor pid 812 on machine laptop"; v.Supervisor.Text != want || v.Owner.Text != "pid 4242 on laptop" {
		t.Errorf("the laptop run's view says %q, %q; want %q", v.Owner.Text, v.Supervisor.Text, want)
	}
	if v.Machine.Visible() {
		t.Errorf("a short machine name has its own line too: %q", v.Machine.Text)
	}
	m.ShowRun(far)
	if strings.Contains(v.Supervisor.Text, long) || !v.Machine.Visible() || v.Machine.Text != long {
		t.Errorf("the long machine's run says %q, Machine line %q (shown: %v); want it shortened, and whole on its own line",
			v.Supervisor.Text, v.Machine.Text, v.Machine.Visible())
	}
	if whole := widget.NewLabel(long).MinSize().Width; v.Machine.MinSize().Width >= whole {
		t.Errorf("the Machine line needs %v wide, as much as the name unwrapped (%v): it widens the window", v.Machine.MinSize().Width, whole)
	}
	m.ShowRun(folder)
	if v.Supervisor.Text != "supervisor pid 812" || v.Owner.Text != "pid 4242" || v.Machine.Visible() {
		t.Errorf("the folder home's run says %q, %q, Machine shown %v", v.Owner.Text, v.Supervisor.Text, v.Machine.Visible())
	}
	if v.LogPane.Remote.Visible() || !strings.HasPrefix(v.Log.Text(), view.LogGoneText) {
		t.Errorf("the folder home's run with no log shows %q (remote line shown: %v), want %q", v.Log.Text(), v.LogPane.Remote.Visible(), view.LogGoneText)
	}
}

// TestRemoteLogShowsItsTail (issue 21): a run whose log is on another machine shows the
// tail kept in etcd under a line saying where the whole log is, never "log is gone";
// the tail refreshes while the run runs, never asked for more than once a second; Find
// and Copy work on it and say it is the tail.
func TestRemoteLogShowsItsTail(t *testing.T) {
	c, m, q := machineUI(t, store.StatusRunning, "laptop")
	c.setTail("alpha one\nbeta two\n")
	id := m.core.Snapshot().Runs[0].ID
	m.ShowRun(id)
	v := m.RunView
	q.waitFor(t, "the tail", func() bool { return v.Log.Text() == "alpha one\nbeta two\n" })
	want := "The whole log is on machine laptop (/cache/baton/logs/" + id + ".log); this is its last 64 KiB, updated at most once a second."
	if !v.LogPane.Remote.Visible() || v.LogPane.Remote.Text != want {
		t.Errorf("the log's first line is %q (shown: %v), want %q", v.LogPane.Remote.Text, v.LogPane.Remote.Visible(), want)
	}
	if whole := widget.NewLabel(want).MinSize().Width; v.LogPane.Remote.MinSize().Width >= whole {
		t.Errorf("the log's first line needs %v wide, as much as unwrapped (%v): it widens the window", v.LogPane.Remote.MinSize().Width, whole)
	}

	c.setTail("alpha one\nbeta two\ngamma three\n")
	q.waitFor(t, "the new tail", func() bool { return strings.Contains(v.Log.Text(), "gamma three") })

	v.LogPane.Find.SetText("beta")
	if got := v.LogPane.Found.Text; !strings.Contains(got, "1 line matches") || !strings.Contains(got, "last 64 KiB of the log, kept in etcd") {
		t.Errorf("Find says %q: not that it searched the tail", got)
	}
	v.LogPane.Find.SetText("")
	v.LogPane.copy()
	if got := m.App.Clipboard().Content(); got != "alpha one\nbeta two\ngamma three\n" {
		t.Errorf("Copy copied %q, want the tail", got)
	}
	if got := v.LogPane.Found.Text; !strings.Contains(got, "kept in etcd") {
		t.Errorf("Copy says %q: not that it copied the tail", got)
	}

	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.calls) < 2 {
		t.Fatalf("the tail was asked for %d times, want at least 2 (it refreshed)", len(c.calls))
	}
	for i := 1; i < len(c.calls); i++ {
		if d := c.calls[i].Sub(c.calls[i-1]); d < RemoteLogEvery {
			t.Errorf("the tail was asked for twice within %v (ticks every %v): want at most once a second", d, m.opts.Tick)
		}
	}
}

// TestFinishedRemoteLogIsNotGone (issue 21): a finished run whose log is on another
// machine shows its tail, not "log is gone".
func TestFinishedRemoteLogIsNotGone(t *testing.T) {
	c, m, q := machineUI(t, store.StatusSucceeded, "laptop")
	c.setTail("done here\n")
	m.ShowRun(m.core.Snapshot().Runs[0].ID)
	v := m.RunView
	if strings.Contains(v.Log.Text(), view.LogGoneText) {
		t.Errorf("the run on another machine says its log is gone")
	}
	// The pane ends the log with how the run ended, as for any log that lacks that line.
	q.waitFor(t, "the tail", func() bool { return strings.HasPrefix(v.Log.Text(), "done here\n") && v.LogPane.Remote.Visible() })
}

// TestWindowGoesOnWhileEtcdIsSlow (issue 21): reading a remote tail blocks for as long as
// etcd does not answer (seconds when it is out of reach); the window's ticks (durations,
// the role bar, other logs) go on meanwhile, and the tail shows once etcd answers.
func TestWindowGoesOnWhileEtcdIsSlow(t *testing.T) {
	isolate(t)
	home := newHome(t)
	seedMachineRuns(t, home, store.StatusRunning, "laptop")
	c := &remoteLogCore{Core: openCore(t, home), hold: make(chan struct{}), asked: make(chan struct{}, 1), tail: "slow\n"}
	m, q := newUI(t, c)
	q.waitFor(t, "the seeded run", func() bool { return len(m.runIdx) == 1 })
	m.ShowRun(m.core.Snapshot().Runs[0].ID)
	q.waitFor(t, "the tail read to begin", func() bool {
		select {
		case <-c.asked:
			return true
		default:
			return false
		}
	})
	from := m.ticks
	q.waitFor(t, "ticks while the tail read waits on etcd", func() bool { return m.ticks >= from+3 })
	close(c.hold)
	q.waitFor(t, "the tail", func() bool { return m.RunView.Log.Text() == "slow\n" })
}

// TestRemoteLogSaysWhenEtcdCannotBeRead (issue 21): when the tail cannot be read from
// etcd the pane says so, where the whole log is, keeps what it showed, and shows the
// tail once etcd answers again.
func TestRemoteLogSaysWhenEtcdCannotBeRead(t *testing.T) {
	c, m, q := machineUI(t, store.StatusRunning, "laptop")
	c.setTail("before\n")
	m.ShowRun(m.core.Snapshot().Runs[0].ID)
	v := m.RunView
	q.waitFor(t, "the tail", func() bool { return v.Log.Text() == "before\n" })
	c.mu.Lock()
	c.err = errors.New("context deadline exceeded")
	c.mu.Unlock()
	q.waitFor(t, "the pane to say etcd cannot be read", func() bool {
		return strings.Contains(v.LogPane.Remote.Text, "It cannot be read from etcd now") && strings.Contains(v.LogPane.Remote.Text, "machine laptop (")
	})
	if v.Log.Text() != "before\n" {
		t.Errorf("the pane shows %q after a failed read, want what it showed", v.Log.Text())
	}
	c.mu.Lock()
	c.err, c.tail = nil, "before\nafter\n"
	c.mu.Unlock()
	q.waitFor(t, "the tail again", func() bool {
		return v.Log.Text() == "before\nafter\n" && !strings.Contains(v.LogPane.Remote.Text, "cannot be read")
	})
}
