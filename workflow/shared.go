package workflow

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"baton/store"
	"baton/workflow/proc"
)

// A run on a shared home (an etcd home, issue 21). The supervisor keeps its local run lock
// and journal as on a folder home, and besides holds its run in the shared home through
// SharedRun: its own lease (the run's liveness evidence for every machine), a copy of
// every journal record, durable there before the supervisor acts on it (a step's start
// before the step starts, the run's end before the supervisor ends), and the tail of its
// log. When the lease is lost, or cannot be renewed in time, the supervisor kills its
// steps at once, records why in its log and local journal, and ends without touching the
// shared home: a run on a machine cut off from the others is dead before its lease can
// expire, so it never runs beside a re-queued attempt. Package workflow knows no etcd:
// the caller of SuperviseMainWith (main, through host) passes how to open a SharedRun.

// SharedSpec is how a supervisor reaches its run in a shared home; part of the Spec,
// filled by the writer (Engine.Shared). It holds no secret: a password comes only
// through the supervisor's inherited environment.
type SharedSpec struct {
	URL     string        `json:"url"` // the home's address (etcd://h1:2379,h2:2379/prefix)
	CACert  string        `json:"cacert,omitempty"`
	Cert    string        `json:"cert,omitempty"`
	Key     string        `json:"key,omitempty"`
	Lease   time.Duration `json:"lease"`
	Machine string        `json:"machine"`
	Host    string        `json:"host,omitempty"`
	RunKey  string        `json:"run_key"` // the run's attempt in the shared home (SharedRunKey)
}

// SharedRunKey names attempt attempt of run id in a shared home: each attempt has its own
// lease, journal and tombstone, so a re-queued attempt never meets its predecessor's.
func SharedRunKey(id string, attempt int) string { return fmt.Sprintf("%s@%d", id, attempt) }

// SharedRun is a supervisor's hold on its run in a shared home.
type SharedRun interface {
	// Append makes one journal record durable in the shared home; it fails (fenced)
	// once the lease is gone. It blocks until then or until ctx ends.
	Append(ctx context.Context, rec []byte) error
	// LogTail returns a writer keeping the tail of the run's log in the shared home; it
	// never blocks on the shared home. Close puts the last tail.
	LogTail() io.WriteCloser
	// Lost is closed when the supervisor must stop: its lease is gone or may expire
	// within its margin. Why says why.
	Lost() <-chan struct{}
	Why() error
	// Cancels delivers the reason of a cancel asked through the shared home (by a
	// writer of another machine), once.
	Cancels() <-chan string
	// Close ends the hold: the lease is revoked, the run's liveness evidence goes.
	Close() error
	// Credentials are the environment variables (name to value) the supervisor reached
	// the shared home with; OpenShared removed them from its environment. No step gets
	// them, and their values are redacted from the run's log.
	Credentials() map[string]string
}

// OpenShared opens a run's hold in its shared home (host.OpenSharedRun): the lease and
// its alive key, put only if the run has neither a live supervisor nor a reaper's
// tombstone. It blocks for a few round trips.
type OpenShared func(spec SharedSpec) (SharedRun, error)

// errLeaseLost is what a record gets once the supervisor's lease is lost: it is kept
// locally only.
var errLeaseLost = errors.New("the supervisor's lease in the shared home is lost")

// shared is a supervisor's side of its shared run: nil-safe (a folder home has none).
type shared struct {
	run     SharedRun
	tail    io.WriteCloser
	creds   map[string]string // never passed to a step; redacted from its output
	markers []string          // the run's step markers (runMarkers)

	mu  sync.Mutex // guards why
	why string     // set once the lease is lost: the run was killed for it
}

// openSharedRun opens spec's shared run, if it has one.
func openSharedRun(spec Spec, open OpenShared) (*shared, error) {
	if spec.Shared == nil {
		return nil, nil
	}
	if open == nil {
		return nil, fmt.Errorf("%w: run %s is on a shared home (%s) and this program cannot reach one", ErrInvalid, spec.RunID, spec.Shared.URL)
	}
	r, err := open(*spec.Shared)
	if err != nil {
		return nil, fmt.Errorf("run %s: hold the run in its shared home: %w", spec.RunID, err)
	}
	return &shared{run: r, tail: r.LogTail(), creds: r.Credentials(), markers: runMarkers(spec.Home, spec.RunID)}, nil
}

// credentials returns the shared home's credentials (names to values), or nil.
func (sh *shared) credentials() map[string]string {
	if sh == nil {
		return nil
	}
	return sh.creds
}

// watch kills the run's steps (p.cancel) the moment the lease is lost, unless the run
// ended first (done closed), and cancels the run when asked through the shared home. A test may turn the kill off (leaseKillOff, hooks_on.go), to
// see the overlap it prevents.
func (sh *shared) watch(p *runProc, done <-chan struct{}) {
	if sh == nil {
		return
	}
	for {
		select {
		case <-sh.run.Lost():
			sh.lose(p, sh.run.Why())
			return
		case reason := <-sh.run.Cancels():
			p.cancel(reason)
		case <-done:
			return
		}
	}
}

// lose records why the lease is lost, says it in the run's log (the supervisor's stderr)
// and kills the run's steps.
func (sh *shared) lose(p *runProc, why error) {
	sh.mu.Lock()
	first := sh.why == ""
	if first {
		sh.why = fmt.Sprintf("the run's supervisor lost its lease in the shared home (%v): its steps were killed before the lease could expire", why)
	}
	msg := sh.why
	sh.mu.Unlock()
	if !first {
		return
	}
	fmt.Fprintf(os.Stderr, "baton supervisor, %s: %s\n", time.Now().Format(time.RFC3339Nano), msg)
	if leaseKillOff() {
		return
	}
	p.cancel(msg)
	// A process of the run that left the step's group (setsid) dies too.
	proc.KillAll(nil, [][]string{sh.markers}, 2*time.Second)
}

// lost returns why the lease was lost, or "".
func (sh *shared) lost() string {
	if sh == nil {
		return ""
	}
	sh.mu.Lock()
	defer sh.mu.Unlock()
	return sh.why
}

// mirror makes rec durable in the shared home. Until the lease is lost a failing etcd is
// tried again; once it is lost (or a write is fenced) it returns errLeaseLost at once.
func (sh *shared) mirror(p *runProc, rec any) error {
	if sh == nil {
		return nil
	}
	if sh.lost() != "" {
		return errLeaseLost
	}
	b, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-sh.run.Lost():
			cancel()
		case <-ctx.Done():
		}
	}()
	for {
		err := sh.run.Append(ctx, b)
		if err == nil {
			return nil
		}
		if errors.Is(err, store.ErrFenced) {
			sh.lose(p, err)
			return errLeaseLost
		}
		select {
		case <-sh.run.Lost():
			sh.lose(p, sh.run.Why())
			return errLeaseLost
		case <-time.After(50 * time.Millisecond): // etcd unreachable: again until Lost
		}
	}
}

// logTail is the writer beside the run's log, or nil.
func (sh *shared) logTail() io.Writer {
	if sh == nil {
		return nil
	}
	return sh.tail
}

// close puts the last log tail and ends the hold (the alive key goes). Not called once
// the lease is lost: the supervisor then ends without touching the shared home.
func (sh *shared) close() {
	if sh == nil || sh.lost() != "" {
		return
	}
	_ = sh.tail.Close()
	if err := sh.run.Close(); err != nil {
		fmt.Fprintf(os.Stderr, "baton supervisor: %v\n", err)
	}
}

// FoldJournal folds journal records (one JSON object each, as the supervisor writes them,
// from a shared home) as ReadJournal folds a journal file; where names them in errors.
func FoldJournal(where string, recs [][]byte) (Journal, error) {
	var b []byte
	for _, r := range recs {
		b = append(append(b, r...), '\n')
	}
	return foldJournal(where, b)
}
