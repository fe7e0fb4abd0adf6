package ui

import (
	"baton/workflow/proc"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"

	"baton/host"
	"baton/store"
	"baton/workflow"
)

// uiQueue stands in for fyne.Do: the core's goroutines post to it and the test goroutine
// runs what was posted, so every widget is touched on one goroutine, as in the app.
type uiQueue struct {
	ch   chan func()
	done chan struct{}
}

func (q *uiQueue) Do(fn func()) {
	select {
	case q.ch <- fn:
	case <-q.done:
	}
}

// waitFor runs posted UI work until cond holds, or fails after a while.
func (q *uiQueue) waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		select {
		case fn := <-q.ch:
			fn()
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// settle runs posted UI work for d.
func (q *uiQueue) settle(d time.Duration) {
	end := time.After(d)
	for {
		select {
		case fn := <-q.ch:
			fn()
		case <-end:
			return
		}
	}
}

// isolate keeps Fyne's preferences and caches out of the user's home.
func isolate(t *testing.T) {
	t.Helper()
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Setenv("LANG", "en_US.UTF-8")
}

func newHome(t testing.TB) string {
	t.Helper()
	return filepath.Join(t.TempDir(), "home")
}

// openCore opens a window core on home; writer makes it take the lock (Start) at once.
func openCore(t *testing.T, home string) *host.Core {
	t.Helper()
	return openCoreWith(t, home, host.Options{})
}

// openCoreWith opens a core with options (e.g. KeepFinished: -1 to keep a big history
// in the document).
func openCoreWith(t *testing.T, home string, opts host.Options) *host.Core {
	t.Helper()
	w, err := host.Open(home, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = w.Close()
		// Runs outlive windows (adopt runs keep going after Close): what a test left
		// running under supervisors goes too, before the home folder is removed.
		proc.KillAll(nil, [][]string{{workflow.EnvHome + "=" + w.Home()}}, 5*time.Second)
	})
	return w
}

func startWriter(t *testing.T, home string) *host.Core {
	t.Helper()
	w := openCore(t, home)
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	if r := w.Role(); r != host.RoleWriter {
		t.Fatalf("first window is %s, want writer", r)
	}
	return w
}

// newUI builds the window for core with a test queue and starts following the core.
// Call core.Start after it, as main does.
func newUI(t *testing.T, core Core) (*Main, *uiQueue) {
	t.Helper()
	return newUITicking(t, core, 50*time.Millisecond)
}

// newUITicking is newUI with the given tick.
func newUITicking(t *testing.T, core Core, tick time.Duration) (*Main, *uiQueue) {
	t.Helper()
	q := &uiQueue{ch: make(chan func(), 4096), done: make(chan struct{})}
	a := test.NewTempApp(t)
	m := New(a, core, Options{Do: q.Do, Tick: tick,
		Confirm:     func(string, string, func(bool)) { t.Error("unexpected confirmation dialog") },
		OpenAnother: func(string) error { return fmt.Errorf("not in tests") }})
	m.Watch()
	t.Cleanup(func() { m.Stop(); close(q.done) })
	return m, q
}

func addWorkflow(t *testing.T, w *host.Core, name string, argv ...string) {
	t.Helper()
	if _, err := w.Intents().AddWorkflow(context.Background(), store.Workflow{Name: name, Steps: []store.Step{{Argv: argv}}}); err != nil {
		t.Fatal(err)
	}
}

func roleIs(m *Main, prefix string) func() bool {
	return func() bool { return strings.HasPrefix(m.Role.Label.Text, prefix) }
}

// seedHome writes a document with nWF workflows and nRuns finished runs into home, through
// the store, before any window opens.
func seedHome(t testing.TB, home string, nWF, nRuns int) { seedHomeKeeping(t, home, nWF, nRuns, -1) }

// seedHomeKeeping is seedHome with the store's KeepFinished: -1 leaves every run in
// workflows.json (a document no Baton writes: the first writer archives most of it); 0
// archives as Baton does (the newest finished runs stay in the document, the rest go to
// archive/ in the same save).
func seedHomeKeeping(t testing.TB, home string, nWF, nRuns, keepFinished int) {
	t.Helper()
	abs, err := host.PrepareHome(home)
	if err != nil {
		t.Fatal(err)
	}
	st := store.New(abs, store.Options{MaxSize: 1 << 30, KeepFinished: keepFinished})
	if _, err := st.Reload(); err != nil {
		t.Fatal(err)
	}
	st.BeginEpoch()
	defer st.EndEpoch()
	base := time.Now().Add(-2 * time.Hour).UTC()
	_, err = st.Update(func(d *store.Doc) error {
		for i := range nWF {
			d.Workflows = append(d.Workflows, store.Workflow{Name: fmt.Sprintf("workflow %04d", i), MaxConcurrent: 1 + i%3,
				OnOwnerLost: "fail", Steps: []store.Step{{Name: "one", Argv: []string{"true"}}, {Name: "two", Argv: []string{"echo", "hi"}}}})
		}
		statuses := []string{store.StatusSucceeded, store.StatusSucceeded, store.StatusFailed, store.StatusCancelled}
		for i := range nRuns {
			d.Seq++
			start := base.Add(time.Duration(i) * 700 * time.Millisecond)
			code := 0
			r := store.Run{ID: workflow.NewRunID(d.Seq), Seq: d.Seq, Workflow: fmt.Sprintf("workflow %04d", i%max(nWF, 1)),
				Status: statuses[i%len(statuses)], Steps: 2, Step: 1, Created: start, Started: start,
				Ended: start.Add(time.Duration(1+i%50) * time.Second), OwnerPID: 4242, ExitCode: &code}
			d.Runs = append(d.Runs, r)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// writerUI opens a core on a new home with its window, and waits until it is the writer.
func writerUI(t *testing.T) (string, *host.Core, *Main, *uiQueue) {
	t.Helper()
	isolate(t)
	home := newHome(t)
	w := openCore(t, home)
	m, q := newUI(t, w)
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	q.waitFor(t, "writer", roleIs(m, "Writer"))
	return home, w, m, q
}
