package store

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
	_ "modernc.org/sqlite"
)

// Baton's store beside SQLite in WAL mode (modernc.org/sqlite, pure Go, synchronous=FULL),
// on the work Baton does, in one run. Run:
//
//	go test -tags batontest -run '^$' -bench BenchmarkVsSQLite -benchtime=200x ./store/
//
// record: record a run's start and then its finish, each durably (two saves; two commits).
// notice: from the start of recording a run (start and finish, as above) to a second
// process noticing the finished run (Baton: fsnotify on the home folder and a
// reload; SQLite: fsnotify on the database folder (the -wal file) and a query, the fastest
// a SQLite follower can notice without polling).
// Each reports p50/p99 in microseconds for both and the ratio baton/sqlite (below 1: Baton
// is faster).

// sqliteStore is the SQLite side: one table of runs with the same JSON per run.
type sqliteStore struct {
	db  *sql.DB
	seq int64
}

func openSQLite(tb testing.TB, path string) *sqliteStore {
	tb.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		tb.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	for _, q := range []string{
		"PRAGMA journal_mode=WAL", "PRAGMA synchronous=FULL", "PRAGMA busy_timeout=5000",
		`CREATE TABLE IF NOT EXISTS runs (seq INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE,
			workflow TEXT NOT NULL, status TEXT NOT NULL, data TEXT NOT NULL)`,
		"CREATE INDEX IF NOT EXISTS runs_wf ON runs(workflow, seq)",
	} {
		if _, err := db.Exec(q); err != nil {
			tb.Fatalf("%s: %v", q, err)
		}
	}
	tb.Cleanup(func() { db.Close() })
	return &sqliteStore{db: db}
}

func (q *sqliteStore) prefill(tb testing.TB, n int) {
	tb.Helper()
	tx, err := q.db.Begin()
	if err != nil {
		tb.Fatal(err)
	}
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	for range n {
		q.seq++
		r := benchRun(uint64(q.seq), fmt.Sprintf("wf%d", q.seq%benchWorkflows), now)
		data, _ := json.Marshal(r)
		if _, err := tx.Exec("INSERT INTO runs VALUES (?,?,?,?,?)", q.seq, r.ID, r.Workflow, r.Status, string(data)); err != nil {
			tb.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		tb.Fatal(err)
	}
}

// record inserts a running run and commits, then marks it finished and commits.
func (q *sqliteStore) record(tb testing.TB) int64 {
	q.seq++
	r := benchRun(uint64(q.seq), fmt.Sprintf("wf%d", q.seq%benchWorkflows), time.Now().UTC())
	r.Status = StatusRunning
	data, _ := json.Marshal(r)
	if _, err := q.db.Exec("INSERT INTO runs VALUES (?,?,?,?,?)", q.seq, r.ID, r.Workflow, r.Status, string(data)); err != nil {
		tb.Fatal(err)
	}
	r.Status = StatusSucceeded
	data, _ = json.Marshal(r)
	if _, err := q.db.Exec("UPDATE runs SET status=?, data=? WHERE seq=?", r.Status, string(data), q.seq); err != nil {
		tb.Fatal(err)
	}
	return q.seq
}

// batonRecord records a run's start, then its finish: two saves.
func batonRecord(tb testing.TB, s *Store) uint64 {
	var seq uint64
	if _, err := s.Update(func(d *Doc) error {
		d.Seq++
		seq = d.Seq
		r := benchRun(d.Seq, fmt.Sprintf("wf%d", d.Seq%benchWorkflows), time.Now().UTC())
		r.Status, r.Ended, r.ExitCode = StatusRunning, time.Time{}, nil
		d.Runs = append(d.Runs, r)
		return nil
	}); err != nil {
		tb.Fatal(err)
	}
	d, err := s.Update(func(d *Doc) error {
		r := d.Run(benchRunID(seq))
		code := 0
		r.Status, r.Ended, r.ExitCode = StatusSucceeded, time.Now().UTC(), &code
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return d.Generation
}

func benchRunID(seq uint64) string { return benchRun(seq, "", time.Time{}).ID }

// BenchmarkVsSQLite runs Baton's store and SQLite side by side at each size.
func BenchmarkVsSQLite(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("record/runs=%d", n), func(b *testing.B) {
			s := prefill(b, b.TempDir(), n)
			q := openSQLite(b, filepath.Join(b.TempDir(), "runs.db"))
			q.prefill(b, n)
			var bt, st []time.Duration
			for b.Loop() {
				t0 := time.Now()
				batonRecord(b, s)
				t1 := time.Now()
				q.record(b)
				t2 := time.Now()
				bt, st = append(bt, t1.Sub(t0)), append(st, t2.Sub(t1))
			}
			reportVs(b, bt, st)
		})
	}
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("notice/runs=%d", n), func(b *testing.B) {
			home, qdir := b.TempDir(), b.TempDir()
			s := prefill(b, home, n)
			q := openSQLite(b, filepath.Join(qdir, "runs.db"))
			q.prefill(b, n)
			bf := startFollower(b, "baton", home)
			sf := startFollower(b, "sqlite", qdir)
			var bt, st []time.Duration
			for b.Loop() {
				t0 := time.Now()
				g := batonRecord(b, s)
				t1 := bf.waitFor(b, int64(g))
				t2 := time.Now()
				seq := q.record(b)
				t3 := sf.waitFor(b, seq)
				bt, st = append(bt, t1.Sub(t0)), append(st, t3.Sub(t2))
			}
			reportVs(b, bt, st)
		})
	}
}

func reportVs(b *testing.B, baton, sqlite []time.Duration) {
	b50, b99 := percentiles(baton)
	s50, s99 := percentiles(sqlite)
	b.ReportMetric(us(b50), "baton_p50_us")
	b.ReportMetric(us(b99), "baton_p99_us")
	b.ReportMetric(us(s50), "sqlite_p50_us")
	b.ReportMetric(us(s99), "sqlite_p99_us")
	b.ReportMetric(us(b50)/us(s50), "ratio_p50")
	b.ReportMetric(us(b99)/us(s99), "ratio_p99")
}

func us(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e3 }

// percentiles returns the p50 and p99 of ds (nearest rank).
func percentiles(ds []time.Duration) (p50, p99 time.Duration) {
	if len(ds) == 0 {
		return 0, 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	at := func(p float64) time.Duration {
		i := int(p*float64(len(s))+0.999999) - 1
		return s[max(0, min(i, len(s)-1))]
	}
	return at(0.50), at(0.99)
}

// follower is a second process that prints a number each time it notices a change.
type follower struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	mu    sync.Mutex
	cond  *sync.Cond
	seen  int64     // highest number printed
	at    time.Time // when seen was read
	done  bool
}

func startFollower(tb testing.TB, kind, dir string) *follower {
	tb.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestBenchFollowerChild$")
	cmd.Env = append(os.Environ(), "BATON_BENCH_FOLLOW="+kind, "BATON_BENCH_DIR="+dir)
	stdin, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	f := &follower{cmd: cmd, stdin: stdin, seen: -1}
	f.cond = sync.NewCond(&f.mu)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			now := time.Now()
			v, err := strconv.ParseInt(strings.TrimSpace(sc.Text()), 10, 64)
			if err != nil {
				continue
			}
			f.mu.Lock()
			if v > f.seen {
				f.seen, f.at = v, now
			}
			f.cond.Broadcast()
			f.mu.Unlock()
		}
		f.mu.Lock()
		f.done = true
		f.cond.Broadcast()
		f.mu.Unlock()
	}()
	tb.Cleanup(func() { stdin.Close(); _ = cmd.Process.Kill(); _ = cmd.Wait() })
	f.waitFor(tb, 0) // ready: the child prints what it sees at start
	return f
}

// waitFor waits until the follower printed v or more and returns when that line was read.
func (f *follower) waitFor(tb testing.TB, v int64) time.Time {
	tb.Helper()
	timer := time.AfterFunc(10*time.Second, func() { f.mu.Lock(); f.done = true; f.cond.Broadcast(); f.mu.Unlock() })
	defer timer.Stop()
	f.mu.Lock()
	defer f.mu.Unlock()
	for f.seen < v && !f.done {
		f.cond.Wait()
	}
	if f.seen < v {
		tb.Fatalf("follower did not notice %d within 10s (saw %d)", v, f.seen)
	}
	return f.at
}

// TestBenchFollowerChild is the second process of the notice benchmark; it is skipped in
// normal test runs. It prints what it sees at start, then what it sees after each change,
// until stdin ends.
func TestBenchFollowerChild(t *testing.T) {
	kind, dir := os.Getenv("BATON_BENCH_FOLLOW"), os.Getenv("BATON_BENCH_DIR")
	if kind == "" {
		t.Skip("runs only as a child of BenchmarkVsSQLite")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _, _ = io.Copy(io.Discard, os.Stdin); cancel() }()
	out := bufio.NewWriter(os.Stdout)
	say := func(v int64) { fmt.Fprintln(out, v); out.Flush() }
	switch kind {
	case "baton":
		s := New(dir, Options{})
		if _, err := s.Reload(); err != nil {
			t.Fatal(err)
		}
		if err := s.Watch(ctx, func(d *Doc, err error) {
			if err == nil {
				say(int64(d.Generation))
			}
		}); err != nil {
			t.Fatal(err)
		}
		say(0)
	case "sqlite":
		q := openSQLite(t, filepath.Join(dir, "runs.db"))
		w, err := fsnotify.NewWatcher()
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		if err := w.Add(dir); err != nil {
			t.Fatal(err)
		}
		say(0)
		var last int64
		go func() {
			for {
				select {
				case <-ctx.Done():
					return
				case ev := <-w.Events:
					if !strings.HasPrefix(filepath.Base(ev.Name), "runs.db") || strings.HasSuffix(ev.Name, "-shm") {
						continue
					}
				case <-w.Errors:
				}
				// The -wal write that fires the event comes before the commit is visible
				// (the wal-index in -shm is updated through mmap, without an event), so a
				// follower re-checks briefly after each event.
				for try := 0; try < 200; try++ {
					var seq int64
					if err := q.db.QueryRow("SELECT seq FROM runs WHERE status=? ORDER BY seq DESC LIMIT 1", StatusSucceeded).Scan(&seq); err == nil && seq > last {
						last = seq
						say(seq)
						break
					}
					time.Sleep(50 * time.Microsecond)
				}
			}
		}()
	}
	<-ctx.Done()
}
