package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func writer(t *testing.T, dir string) *Store {
	t.Helper()
	s := New(dir, Options{})
	if _, err := s.Reload(); err != nil {
		t.Fatal(err)
	}
	s.BeginEpoch()
	return s
}

func addWF(name string) func(*Doc) error {
	return func(d *Doc) error {
		d.Workflows = append(d.Workflows, Workflow{Name: name, MaxConcurrent: 1, OnOwnerLost: "fail",
			Steps: []Step{{Argv: []string{"true"}}}})
		return nil
	}
}

func names(d *Doc) string {
	var n []string
	for _, w := range d.Workflows {
		n = append(n, w.Name)
	}
	return strings.Join(n, ",")
}

// checkFileValid is the invariant every test ends with: the file parses.
func checkFileValid(t *testing.T, dir string) {
	t.Helper()
	t.Cleanup(func() {
		data, err := os.ReadFile(filepath.Join(dir, FileName))
		if errors.Is(err, os.ErrNotExist) {
			return
		}
		if _, err := Decode(data); err != nil && !strings.Contains(t.Name(), "Unreadable") {
			t.Errorf("workflows.json does not parse at the end: %v", err)
		}
	})
}

func TestSaveGenerationAndEpoch(t *testing.T) {
	dir := t.TempDir()
	checkFileValid(t, dir)
	s := writer(t, dir)
	d, err := s.Update(addWF("a"))
	if err != nil {
		t.Fatal(err)
	}
	if d.Generation != 1 || d.Epoch != 1 {
		t.Fatalf("gen %d epoch %d, want 1 1", d.Generation, d.Epoch)
	}
	d, _ = s.Update(addWF("b"))
	if d.Generation != 2 {
		t.Fatalf("generation %d, want 2", d.Generation)
	}
	r := New(dir, Options{})
	got, err := r.Reload()
	if err != nil || got.Generation != 2 || names(got) != "a,b" {
		t.Fatalf("reload: gen %d names %q err %v", got.Generation, names(got), err)
	}
	fi, _ := os.Stat(filepath.Join(dir, FileName))
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v, want 0600", fi.Mode().Perm())
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), tempPrefix) {
			t.Fatalf("temp file left behind: %s", e.Name())
		}
	}
}

func TestUpdateRefusedWithoutEpoch(t *testing.T) {
	s := New(t.TempDir(), Options{})
	if _, err := s.Update(addWF("a")); !errors.Is(err, ErrNotWriter) {
		t.Fatalf("err %v, want ErrNotWriter", err)
	}
}

func TestFencingByEpoch(t *testing.T) {
	dir := t.TempDir()
	checkFileValid(t, dir)
	old := writer(t, dir)
	if _, err := old.Update(addWF("a")); err != nil {
		t.Fatal(err)
	}
	nw := writer(t, dir) // epoch 2
	if _, err := nw.Update(addWF("b")); err != nil {
		t.Fatal(err)
	}
	if _, err := old.Update(addWF("stale")); !errors.Is(err, ErrFenced) {
		t.Fatalf("old writer: %v, want ErrFenced", err)
	}
	if _, err := old.Update(addWF("stale2")); !errors.Is(err, ErrNotWriter) {
		t.Fatalf("fenced writer must stay read-only: %v", err)
	}
	d, _ := New(dir, Options{}).Reload()
	if names(d) != "a,b" || d.Epoch != 2 {
		t.Fatalf("disk: %q epoch %d", names(d), d.Epoch)
	}
}

func TestRefreshBeforeWrite(t *testing.T) {
	dir := t.TempDir()
	checkFileValid(t, dir)
	s := writer(t, dir)
	if _, err := s.Update(addWF("a")); err != nil {
		t.Fatal(err)
	}
	// Another process (same epoch, as after a restart with the file edited) saves gen 2.
	other := New(dir, Options{})
	other.Reload()
	other.epoch = 1
	if _, err := other.Update(addWF("x")); err != nil {
		t.Fatal(err)
	}
	d, err := s.Update(addWF("b"))
	if err != nil {
		t.Fatal(err)
	}
	if names(d) != "a,x,b" || d.Generation != 3 {
		t.Fatalf("update did not apply to the newest generation: %q gen %d", names(d), d.Generation)
	}
}

func TestRefreshBeforeWriteCanBeDisabledOnlyUnsafely(t *testing.T) {
	// The reverse control for TestRefreshBeforeWrite: without the refresh the other
	// process's record is lost. Shows that the test above can fail.
	dir := t.TempDir()
	s := New(dir, Options{})
	s.noRefresh = true
	s.Reload()
	s.BeginEpoch()
	s.Update(addWF("a"))
	other := New(dir, Options{})
	other.Reload()
	other.epoch = 1
	other.Update(addWF("x"))
	d, _ := s.Update(addWF("b"))
	if strings.Contains(names(d), "x") {
		t.Fatalf("without refresh the stale copy should win: %q", names(d))
	}
}

func TestUnreadableFileIsKeptAndWritesRefused(t *testing.T) {
	cases := map[string]struct {
		content string
		want    string
		is      error
	}{
		"garbage":      {"hello", "not valid JSON", nil},
		"empty":        {"", "empty", nil},
		"truncated":    {`{"schema":1,"generation":3,"epoch":1,"workflows":[{"name":"a"`, "not valid JSON", nil},
		"newer schema": {`{"schema":99,"generation":3}`, "schema 99", ErrNewerSchema},
		"no schema":    {`{"generation":3}`, "no \"schema\"", nil},
		"unknown":      {`{"schema":1,"generation":3,"epoch":1,"surprise":true}`, "unknown field", nil},
		"trailing":     {`{"schema":1,"generation":3,"epoch":1} {}`, "trailing", nil},
		"bad workflow": {`{"schema":1,"generation":3,"epoch":1,"workflows":[{"name":"a","max_concurrent":1,"on_owner_lost":"fail","steps":[{"argv":[]}]}]}`, "argv", nil},
		"dup run":      {`{"schema":1,"generation":3,"epoch":1,"runs":[{"id":"r1","status":"queued"},{"id":"r1","status":"queued"}]}`, "duplicate id", nil},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			s := writer(t, dir)
			if _, err := s.Update(addWF("good")); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, FileName)
			os.WriteFile(path, []byte(c.content), 0o600)
			_, err := s.Reload()
			if !errors.Is(err, ErrUnreadable) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("reload: %v, want ErrUnreadable mentioning %q", err, c.want)
			}
			if c.is != nil && !errors.Is(err, c.is) {
				t.Fatalf("reload: %v, want %v", err, c.is)
			}
			if d, _ := s.View(); names(d) != "good" {
				t.Fatalf("memory lost the good generation: %q", names(d))
			}
			if _, err := s.Update(addWF("over")); !errors.Is(err, ErrUnreadable) {
				t.Fatalf("update over an unreadable file: %v", err)
			}
			got, _ := os.ReadFile(path)
			if string(got) != c.content {
				t.Fatal("the unreadable file was changed")
			}
		})
	}
}

func TestSizeCapRefusesBeforeReading(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, FileName)
	big := `{"schema":1,"generation":1,"epoch":1,"workflows":[],"runs":[],"schedules":[]` + strings.Repeat(" ", 4096) + "}"
	os.WriteFile(path, []byte(big), 0o600)
	s := New(dir, Options{MaxSize: 1024})
	_, err := s.Reload()
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "over the cap") {
		t.Fatalf("%v, want ErrTooLarge", err)
	}
	if _, err := New(dir, Options{}).Reload(); err != nil {
		t.Fatalf("the same file under the default cap: %v", err)
	}
}

func TestPreviousGenerationKept(t *testing.T) {
	dir := t.TempDir()
	s := writer(t, dir)
	s.Update(addWF("a"))
	if err := s.KeepPrevious(); err != nil { // a writer term starts or ends
		t.Fatal(err)
	}
	s.Update(addWF("b"))
	prevGen := func() uint64 {
		t.Helper()
		data, err := os.ReadFile(filepath.Join(dir, PrevName))
		if err != nil {
			t.Fatal(err)
		}
		d, err := Decode(data)
		if err != nil {
			t.Fatal(err)
		}
		return d.Generation
	}
	if g := prevGen(); g != 1 {
		t.Fatalf("prev holds generation %d, want 1 (not replaced on every save)", g)
	}
	// The file is broken by someone else: the lock holder keeps its newest good generation
	// beside it, and never touches workflows.json.
	os.WriteFile(filepath.Join(dir, FileName), []byte("garbage"), 0o600)
	if _, err := s.Reload(); !errors.Is(err, ErrUnreadable) {
		t.Fatal(err)
	}
	if err := s.SaveLastGood(); err != nil {
		t.Fatal(err)
	}
	if g := prevGen(); g != 2 {
		t.Fatalf("prev holds generation %d, want the last good 2", g)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, FileName)); string(b) != "garbage" {
		t.Fatal("workflows.json was touched")
	}
	_, err := s.Reload()
	if !strings.Contains(err.Error(), "previous good generation (2)") {
		t.Fatalf("the error does not point at generation 2: %v", err)
	}
}

func TestCleanTempsNeverTouchesLiveFile(t *testing.T) {
	dir := t.TempDir()
	s := writer(t, dir)
	s.Update(addWF("a"))
	stale := filepath.Join(dir, tempPrefix+"workflows.json-1.2.ab-3")
	os.WriteFile(stale, []byte("{half"), 0o600)
	removed := CleanTemps(dir, func(string) bool { return true })
	if len(removed) != 1 || removed[0] != filepath.Base(stale) {
		t.Fatalf("removed %v", removed)
	}
	if _, err := os.Stat(filepath.Join(dir, FileName)); err != nil {
		t.Fatal("live file removed")
	}
}

// A temp file is removed only when its creator is proven gone: the tag in its name is
// what the cleaner asks about, and a file of a live creator (or one whose name does not
// say who made it) stays.
func TestCleanTempsOnlyWhenCreatorGone(t *testing.T) {
	dir := t.TempDir()
	names := map[string]string{ // file -> the tag the cleaner must be asked about
		tempPrefix + "workflows.json-11.500.b00t-1700000000": "11.500.b00t",
		tempPrefix + "workflows.json-22.600.b00t-1700000001": "22.600.b00t",
		tempPrefix + "workflows.prev.json-33.7.b00t-5":       "33.7.b00t",
		tempPrefix + "nonsense":                              "",
		".prev.tmp":                                          "",
	}
	for n := range names {
		os.WriteFile(filepath.Join(dir, n), nil, 0o600)
	}
	var asked []string
	removed := CleanTemps(dir, func(tag string) bool {
		asked = append(asked, tag)
		return tag == "22.600.b00t"
	})
	sort.Strings(asked)
	if want := []string{"11.500.b00t", "22.600.b00t", "33.7.b00t"}; !reflect.DeepEqual(asked, want) {
		t.Fatalf("asked about %v, want %v", asked, want)
	}
	if want := []string{tempPrefix + "workflows.json-22.600.b00t-1700000001"}; !reflect.DeepEqual(removed, want) {
		t.Fatalf("removed %v, want %v", removed, want)
	}
	for n := range names {
		_, err := os.Stat(filepath.Join(dir, n))
		if gone := err != nil; gone != (n == removed[0]) {
			t.Errorf("%s: gone=%v", n, gone)
		}
	}
}

// A save names its temp file with this process's tag.
func TestTempFileCarriesProcessTag(t *testing.T) {
	SetProcessTag("77.88.cafe")
	defer SetProcessTag(strconv.Itoa(os.Getpid()))
	dir := t.TempDir()
	var seen string
	err := WriteFileAtomic(filepath.Join(dir, "x.json"), []byte("{}"), func() {
		ents, _ := os.ReadDir(dir)
		for _, e := range ents {
			if tag, ok := TempCreator(e.Name()); ok {
				seen = tag
			}
		}
	})
	if err != nil || seen != "77.88.cafe" {
		t.Fatalf("tag %q, err %v", seen, err)
	}
}

func TestWatchSeesOtherWriter(t *testing.T) {
	dir := t.TempDir()
	w := writer(t, dir)
	r := New(dir, Options{})
	r.Reload()
	got := make(chan uint64, 10)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := r.Watch(ctx, func(d *Doc, err error) {
		if err == nil {
			got <- d.Generation
		}
	}); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 3; i++ {
		w.Update(addWF(string(rune('a' + i))))
		deadline := time.After(5 * time.Second)
	wait:
		for {
			select {
			case g := <-got:
				if g == uint64(i) {
					break wait
				}
			case <-deadline:
				t.Fatalf("reader never saw generation %d", i)
			}
		}
	}
	if d, _ := r.View(); d.Generation != 3 {
		t.Fatalf("reader at %d", d.Generation)
	}
}

// TestWaitWatchesWaitsForOnChange: once a watch's context ends, WaitWatches returns only
// after an onChange that was running has returned, so a window that closes its home knows
// nothing of the watch writes into it afterwards (workflows.prev.json once did).
func TestWaitWatchesWaitsForOnChange(t *testing.T) {
	dir := t.TempDir()
	w := writer(t, dir)
	r := New(dir, Options{})
	r.Reload()
	entered := make(chan struct{})
	release := make(chan struct{})
	var finished atomic.Bool
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var once sync.Once
	if err := r.Watch(ctx, func(*Doc, error) {
		first := false
		once.Do(func() { first = true })
		if !first {
			return
		}
		close(entered)
		<-release
		finished.Store(true)
	}); err != nil {
		t.Fatal(err)
	}
	w.Update(addWF("a"))
	select {
	case <-entered:
	case <-time.After(10 * time.Second):
		t.Fatal("the watch never called onChange")
	}
	cancel()
	waited := make(chan bool)
	go func() { r.WaitWatches(); waited <- finished.Load() }()
	// Give a WaitWatches that does not wait every chance to return early, then let the
	// callback finish: a correct one returns only now.
	runtime.Gosched()
	time.Sleep(20 * time.Millisecond)
	close(release)
	if !<-waited {
		t.Fatal("WaitWatches returned while onChange was still running")
	}
}

func TestNoChangeSavesNothing(t *testing.T) {
	s := writer(t, t.TempDir())
	s.Update(addWF("a"))
	d, err := s.Update(func(*Doc) error { return ErrNoChange })
	if err != nil || d.Generation != 1 {
		t.Fatalf("gen %d err %v", d.Generation, err)
	}
}

func TestCloneIsDeep(t *testing.T) {
	code := 3
	wm := "w"
	d := &Doc{Workflows: []Workflow{{Name: "a", Steps: []Step{{Argv: []string{"x"}, Env: map[string]string{"K": "v"}}}}},
		Runs:      []Run{{ID: "r", ExitCode: &code, Owner: &Owner{PID: 1}}},
		Schedules: []Schedule{{ID: "s", Watermark: &wm, Lock: &RunLock{Run: "r"}}}}
	c := d.Clone()
	c.Workflows[0].Steps[0].Argv[0] = "y"
	c.Workflows[0].Steps[0].Env["K"] = "w"
	*c.Runs[0].ExitCode = 4
	c.Runs[0].Owner.PID = 2
	*c.Schedules[0].Watermark = "z"
	c.Schedules[0].Lock.Run = "q"
	if d.Workflows[0].Steps[0].Argv[0] != "x" || d.Workflows[0].Steps[0].Env["K"] != "v" || code != 3 ||
		d.Runs[0].Owner.PID != 1 || wm != "w" || d.Schedules[0].Lock.Run != "r" {
		t.Fatal("Clone shares memory with the original")
	}
}

func TestGroupCommitBatchesAndIsolatesFailures(t *testing.T) {
	dir := t.TempDir()
	checkFileValid(t, dir)
	s := writer(t, dir)
	release := make(chan struct{})
	entered := make(chan struct{})
	first := make(chan error, 1)
	go func() {
		_, err := s.Update(func(d *Doc) error {
			close(entered)
			<-release // hold the commit turn while others queue
			return addWF("first")(d)
		})
		first <- err
	}()
	<-entered
	type res struct {
		name string
		doc  *Doc
		err  error
	}
	out := make(chan res, 4)
	upd := func(name string, fn func(*Doc) error) {
		go func() { d, err := s.Update(fn); out <- res{name, d, err} }()
	}
	boom := errors.New("boom")
	upd("ok1", addWF("ok1"))
	upd("fails", func(d *Doc) error { addWF("half-done")(d); return boom })
	upd("invalid", func(d *Doc) error { d.Workflows = append(d.Workflows, Workflow{Name: ""}); return nil })
	upd("ok2", addWF("ok2"))
	// Let the four queue behind the first.
	deadline := time.Now().Add(5 * time.Second)
	for {
		s.qmu.Lock()
		n := len(s.queue)
		s.qmu.Unlock()
		if n == 4 || time.Now().After(deadline) {
			break
		}
		time.Sleep(time.Millisecond)
	}
	close(release)
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	got := map[string]res{}
	for i := 0; i < 4; i++ {
		r := <-out
		got[r.name] = r
	}
	if !errors.Is(got["fails"].err, boom) || got["invalid"].err == nil || !strings.Contains(got["invalid"].err.Error(), "name") {
		t.Fatalf("failing updates: %v / %v", got["fails"].err, got["invalid"].err)
	}
	if got["ok1"].err != nil || got["ok2"].err != nil {
		t.Fatalf("good updates: %v %v", got["ok1"].err, got["ok2"].err)
	}
	final, _ := New(dir, Options{}).Reload()
	if n := names(final); len(final.Workflows) != 3 || !strings.HasPrefix(n, "first,") || !strings.Contains(n, "ok1") || !strings.Contains(n, "ok2") {
		t.Fatalf("disk has %q, want first,ok1,ok2 (failed updates rolled back alone)", names(final))
	}
	if final.Generation != 2 {
		t.Fatalf("generation %d: the four queued updates should have been one save", final.Generation)
	}
	if got["ok1"].doc.Generation != 2 || len(got["ok2"].doc.Workflows) != 3 {
		t.Fatalf("callers got %d %q", got["ok1"].doc.Generation, names(got["ok2"].doc))
	}
}

func TestGroupCommitManyConcurrentWriters(t *testing.T) {
	dir := t.TempDir()
	s := writer(t, dir)
	const n = 64
	errs := make(chan error, n)
	for i := 0; i < n; i++ {
		go func(i int) {
			name := fmt.Sprintf("w%02d", i)
			d, err := s.Update(addWF(name))
			if err == nil && d.Workflow(name) == nil {
				err = fmt.Errorf("%s missing from the document its Update returned", name)
			}
			errs <- err
		}(i)
	}
	for i := 0; i < n; i++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	d, _ := New(dir, Options{}).Reload()
	if len(d.Workflows) != n || d.Generation > n {
		t.Fatalf("%d workflows at generation %d", len(d.Workflows), d.Generation)
	}
	t.Logf("%d concurrent updates took %d saves", n, d.Generation)
}
