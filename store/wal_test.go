package store

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// fileDoc decodes workflows.json alone (without the log).
func fileDoc(t *testing.T, dir string) *Doc {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, FileName))
	if err != nil {
		t.Fatal(err)
	}
	d, err := Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// sameDoc fails unless a and b encode the same, but for their log links: a checkpoint
// gives the document in memory a new one, the saves it returned before keep theirs.
func sameDoc(t *testing.T, what string, a, b *Doc) {
	t.Helper()
	x, y := *a, *b
	x.Log, y.Log = nil, nil
	ja, _ := json.MarshalIndent(&x, "", " ")
	jb, _ := json.MarshalIndent(&y, "", " ")
	if !bytes.Equal(ja, jb) {
		t.Fatalf("%s: documents differ:\n%s\n---\n%s", what, ja, jb)
	}
}

func walWriter(t *testing.T, dir string, opts Options) *Store {
	t.Helper()
	s := New(dir, opts)
	if _, err := s.Reload(); err != nil {
		t.Fatal(err)
	}
	s.BeginEpoch()
	return s
}

func addRun(id, wf, status string) func(*Doc) error {
	return func(d *Doc) error {
		d.Seq++
		d.Runs = append(d.Runs, Run{ID: id, Seq: d.Seq, Workflow: wf, Status: status, Created: time.Unix(int64(d.Seq), 0).UTC()})
		return nil
	}
}

// A writer's saves after its first go to the log, not to workflows.json; a window that
// reads the home sees them all, and a checkpoint makes workflows.json complete again.
func TestWALRecordsSavesAndCheckpointCompletesTheFile(t *testing.T) {
	dir := t.TempDir()
	s := walWriter(t, dir, Options{CheckpointAfter: time.Hour})
	if _, err := s.Update(addWF("a")); err != nil { // the epoch's first save: whole
		t.Fatal(err)
	}
	for i := range 5 {
		if _, err := s.Update(addRun(fmt.Sprintf("r%d", i), "a", StatusRunning)); err != nil {
			t.Fatal(err)
		}
	}
	want, _ := s.View()
	if want.Generation != 6 {
		t.Fatalf("generation %d, want 6", want.Generation)
	}
	if g := fileDoc(t, dir).Generation; g != 1 {
		t.Fatalf("workflows.json was rewritten (generation %d): the saves after the first must go to the log", g)
	}
	if n := s.walFrames(); n != 5 {
		t.Fatalf("the log has %d frames, want 5", n)
	}
	got, err := ReadHome(dir)
	if err != nil {
		t.Fatal(err)
	}
	sameDoc(t, "a reader of the home", got, want)
	if err := s.Checkpoint(); err != nil {
		t.Fatal(err)
	}
	sameDoc(t, "workflows.json after a checkpoint", fileDoc(t, dir), want)
	got, err = ReadHome(dir)
	if err != nil {
		t.Fatal(err)
	}
	sameDoc(t, "a reader after the checkpoint", got, want)
}

// The checkpoint comes by itself, CheckpointAfter after the first frame the file lacks.
func TestWALCheckpointsByItself(t *testing.T) {
	dir := t.TempDir()
	s := walWriter(t, dir, Options{CheckpointAfter: 20 * time.Millisecond})
	if _, err := s.Update(addWF("a")); err != nil {
		t.Fatal(err)
	}
	d, err := s.Update(addWF("b"))
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for fileDoc(t, dir).Generation != d.Generation {
		if time.Now().After(deadline) {
			t.Fatalf("workflows.json still at generation %d, want %d", fileDoc(t, dir).Generation, d.Generation)
		}
		time.Sleep(5 * time.Millisecond)
	}
	sameDoc(t, "workflows.json after the timed checkpoint", fileDoc(t, dir), d)
}

// The property the log rests on: after any mix of changes, a window reading the home
// (workflows.json and the log) has exactly the writer's document. Changes: runs added,
// changed, removed from anywhere, moved; workflows, schedules, the applied list, the
// writer and the retention changed; checkpoints and new cycles between them.
func TestWALReplayEqualsTheWritersDocument(t *testing.T) {
	dir := t.TempDir()
	seed := uint64(time.Now().UnixNano())
	rng := rand.New(rand.NewPCG(seed, 1))
	s := walWriter(t, dir, Options{CheckpointAfter: time.Hour, KeepFinished: -1})
	follower := New(dir, Options{})
	if _, err := follower.Reload(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Update(addWF("w0")); err != nil {
		t.Fatal(err)
	}
	frames := 0
	for step := range 400 {
		kind := rng.IntN(13)
		fn := func(d *Doc) error {
			switch kind {
			case 0, 1, 2: // a new run
				d.Seq++
				d.Runs = append(d.Runs, Run{ID: fmt.Sprintf("r%d", d.Seq), Seq: d.Seq, Workflow: "w0", Status: StatusQueued, Created: time.Unix(int64(d.Seq), 0).UTC()})
			case 3, 4: // a run changes
				if len(d.Runs) > 0 {
					r := &d.Runs[rng.IntN(len(d.Runs))]
					code := rng.IntN(3)
					r.Status, r.ExitCode, r.Step = StatusSucceeded, &code, r.Step+1
				}
			case 5: // runs removed from anywhere
				for k := rng.IntN(3); k > 0 && len(d.Runs) > 0; k-- {
					i := rng.IntN(len(d.Runs))
					d.Runs = append(d.Runs[:i], d.Runs[i+1:]...)
				}
			case 6: // a run moved
				if len(d.Runs) > 1 {
					i, j := rng.IntN(len(d.Runs)), rng.IntN(len(d.Runs))
					d.Runs[i], d.Runs[j] = d.Runs[j], d.Runs[i]
				}
			case 7: // workflows and retention
				d.Workflows = append(d.Workflows, Workflow{Name: fmt.Sprintf("w%d", step+1), MaxConcurrent: 1, OnOwnerLost: "fail", Steps: []Step{{Argv: []string{"true"}}}})
				d.Retention = &Retention{KeepRuns: step + 1}
			case 8: // schedules, the applied list, the writer
				d.Schedules = append(d.Schedules, Schedule{ID: fmt.Sprintf("s%d", step), Workflow: "w0", Every: Duration(time.Minute)})
				d.Applied = append(d.Applied, Applied{ID: fmt.Sprintf("q%d", step), At: time.Unix(int64(step), 0).UTC()})
				if len(d.Applied) > 3 {
					d.Applied = nil
				}
				d.Writer = &Owner{PID: step + 1, Instance: "i"}
			case 9:
				return ErrNoChange
			case 10: // a workflow changed, renamed or removed (never w0, which runs name)
				if len(d.Workflows) > 1 {
					k := 1 + rng.IntN(len(d.Workflows)-1)
					switch rng.IntN(3) {
					case 0:
						d.Workflows[k].MaxConcurrent++
						d.Workflows[k].Steps = append(d.Workflows[k].Steps, Step{Argv: []string{"echo", fmt.Sprint(step)}, Env: map[string]string{"K": "v"}})
					case 1:
						d.Workflows[k].Name = fmt.Sprintf("renamed-%d", step)
					case 2:
						d.Workflows = append(d.Workflows[:k], d.Workflows[k+1:]...)
					}
				}
			case 11, 12: // a schedule changed or removed
				if len(d.Schedules) > 0 {
					k := rng.IntN(len(d.Schedules))
					if rng.IntN(3) == 0 {
						d.Schedules = append(d.Schedules[:k], d.Schedules[k+1:]...)
					} else {
						d.Schedules[k].NextDue = time.Unix(int64(step), 0).UTC()
						d.Schedules[k].Pending = append(d.Schedules[k].Pending, time.Unix(int64(step), 0).UTC())
					}
				}
			}
			return nil
		}
		if _, err := s.Update(fn); err != nil {
			t.Fatalf("seed %d step %d: %v", seed, step, err)
		}
		if rng.IntN(40) == 0 {
			if err := s.Checkpoint(); err != nil {
				t.Fatal(err)
			}
		}
		frames = max(frames, s.walFrames())
		want, _ := s.View()
		got, err := ReadHome(dir)
		if err != nil {
			t.Fatalf("seed %d step %d: %v", seed, step, err)
		}
		sameDoc(t, fmt.Sprintf("seed %d step %d, a new reader", seed, step), got, want)
		fd, _, err := follower.Refresh()
		if err != nil {
			t.Fatalf("seed %d step %d: follower: %v", seed, step, err)
		}
		sameDoc(t, fmt.Sprintf("seed %d step %d, a reader following", seed, step), fd, want)
	}
	if frames < 10 {
		t.Fatalf("the log never held more than %d frames: the test did not exercise it", frames)
	}
}

// A frame torn by a crash mid-write (never acknowledged) is not applied, and the next
// writer goes on from the frame before it.
func TestWALTornFrameIsIgnored(t *testing.T) {
	dir := t.TempDir()
	s := walWriter(t, dir, Options{CheckpointAfter: time.Hour})
	s.Update(addWF("a"))
	good, _ := s.Update(addRun("r1", "a", StatusRunning))
	s.Update(addRun("r2", "a", StatusRunning))
	// Tear the last frame: zero its last byte, as a write cut at a page boundary leaves it.
	wal := filepath.Join(dir, WALName)
	s.mu.Lock()
	off := s.wal.off
	s.mu.Unlock()
	f, err := os.OpenFile(wal, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteAt([]byte{0}, off-1)
	f.Close()
	got, err := ReadHome(dir)
	if err != nil {
		t.Fatal(err)
	}
	sameDoc(t, "the home after a torn frame", got, good)
	next := walWriter(t, dir, Options{CheckpointAfter: time.Hour})
	next.Update(func(d *Doc) error { return nil })
	d, err := next.Update(addRun("r3", "a", StatusQueued))
	if err != nil {
		t.Fatal(err)
	}
	if d.Run("r2") != nil || d.Run("r1") == nil {
		t.Fatalf("the next writer's document: %+v", d.Runs)
	}
	got, err = ReadHome(dir)
	if err != nil {
		t.Fatal(err)
	}
	sameDoc(t, "the home after the next writer", got, d)
}

// A frame left by an older cycle never passes for one of the current cycle, even at the
// offset and with the generation a reader expects next: each cycle has its own salt.
func TestWALOldCycleFramesAreNotReplayed(t *testing.T) {
	dir := t.TempDir()
	s := walWriter(t, dir, Options{CheckpointAfter: time.Hour})
	s.Update(addWF("a"))
	s.Update(addRun("r1", "a", StatusRunning))
	s.Update(addRun("r2", "a", StatusRunning))
	old, _ := os.ReadFile(filepath.Join(dir, WALName))
	s.Checkpoint()
	d, _ := s.Update(addRun("r3", "a", StatusRunning)) // a new cycle: header and one frame
	// Forge the old cycle's frame of the next generation right after the new one.
	s.mu.Lock()
	off, salt, key := s.wal.off, s.wal.salt, s.wal.key
	s.mu.Unlock()
	oldHead, _, _ := parseWALHeader(old)
	if oldHead.salt == salt {
		t.Fatal("two cycles share a salt")
	}
	payload, _ := json.Marshal(&walRec{Seq: 99, Runs: []Run{{ID: "forged", Workflow: "a", Status: StatusRunning}}})
	f, _ := os.OpenFile(filepath.Join(dir, WALName), os.O_WRONLY, 0)
	f.WriteAt(walFrame(oldHead.key(), d.Generation+1, d.Epoch, payload), off)
	f.Close()
	got, err := ReadHome(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got.Run("forged") != nil {
		t.Fatal("a frame with an older cycle's salt was replayed")
	}
	sameDoc(t, "the home", got, d)
	// The same frame with the current salt is taken: the test's forgery is well formed.
	f, _ = os.OpenFile(filepath.Join(dir, WALName), os.O_WRONLY, 0)
	f.WriteAt(walFrame(key, d.Generation+1, d.Epoch, payload), off)
	f.Close()
	if got, err := ReadHome(dir); err != nil || got.Run("forged") == nil {
		t.Fatalf("a well-formed frame of the cycle was not replayed: %v", err)
	}
}

// A damaged log (a header that is not Baton's, or a frame that checks out but does not
// decode) makes the home unreadable with a message naming it; nothing is written, and
// neither file is touched.
func TestWALDamagedIsRefusedAndKept(t *testing.T) {
	for _, tc := range []struct {
		name   string
		damage func(t *testing.T, dir string, s *Store)
		want   string
	}{
		{"header", func(t *testing.T, dir string, s *Store) {
			f, _ := os.OpenFile(filepath.Join(dir, WALName), os.O_WRONLY, 0)
			f.WriteAt([]byte("XATONWAL"), 0)
			f.Close()
		}, "does not start with"},
		{"frame", func(t *testing.T, dir string, s *Store) {
			s.mu.Lock()
			off, key := s.wal.off, s.wal.key
			s.mu.Unlock()
			f, _ := os.OpenFile(filepath.Join(dir, WALName), os.O_WRONLY, 0)
			f.WriteAt(walFrame(key, 4, 1, []byte(`{"seq":1,"bogus":true}`)), off)
			f.Close()
		}, "frame of generation 4"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			s := walWriter(t, dir, Options{CheckpointAfter: time.Hour})
			s.Update(addWF("a"))
			s.Update(addWF("b"))
			s.Update(addWF("c"))
			tc.damage(t, dir, s)
			before, _ := os.ReadFile(filepath.Join(dir, WALName))
			beforeDoc, _ := os.ReadFile(filepath.Join(dir, FileName))
			_, err := ReadHome(dir)
			if !errors.Is(err, ErrUnreadable) || !errors.Is(err, ErrWAL) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), WALName) {
				t.Fatalf("reading a damaged log: %v", err)
			}
			next := New(dir, Options{})
			next.Reload()
			next.BeginEpoch()
			if _, err := next.Update(addWF("d")); !errors.Is(err, ErrWAL) {
				t.Fatalf("a writer wrote over a damaged log: %v", err)
			}
			after, _ := os.ReadFile(filepath.Join(dir, WALName))
			afterDoc, _ := os.ReadFile(filepath.Join(dir, FileName))
			if !bytes.Equal(before, after) || !bytes.Equal(beforeDoc, afterDoc) {
				t.Fatal("a damaged home was changed")
			}
		})
	}
}

// A reader that follows with Watch gets each frame as a new document.
func TestWALReaderFollowsFrames(t *testing.T) {
	dir := t.TempDir()
	s := walWriter(t, dir, Options{CheckpointAfter: time.Hour})
	s.Update(addWF("a"))
	r := New(dir, Options{})
	r.Reload()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	seen := make(chan uint64, 100)
	if err := r.Watch(ctx, func(d *Doc, err error) {
		if err == nil {
			seen <- d.Generation
		}
	}); err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		d, err := s.Update(addRun(fmt.Sprintf("r%d", i), "a", StatusRunning))
		if err != nil {
			t.Fatal(err)
		}
		timeout := time.After(10 * time.Second)
		for got := uint64(0); got < d.Generation; {
			select {
			case got = <-seen:
			case <-timeout:
				t.Fatalf("the reader did not see generation %d", d.Generation)
			}
		}
		if g := fileDoc(t, dir).Generation; g != 1 {
			t.Fatalf("workflows.json moved to generation %d: the reader followed the file, not the log", g)
		}
	}
}

// The crash test of the log: a writer in a child process acknowledges saves (each frame
// durable) and is killed -9 at a random moment; every acknowledged save is in the home,
// which the next writer reads and goes on with.
func TestWALKilledWriterLosesNoAcknowledgedSave(t *testing.T) {
	if os.Getenv("BATON_WAL_CHILD") != "" {
		walChild(os.Getenv("BATON_WAL_CHILD"))
		return
	}
	for round := range 3 {
		dir := t.TempDir()
		cmd := exec.Command(os.Args[0], "-test.run=^TestWALKilledWriterLosesNoAcknowledgedSave$")
		cmd.Env = append(os.Environ(), "BATON_WAL_CHILD="+dir)
		out, _ := cmd.StdoutPipe()
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(out)
		acked, stopAt := 0, 20+round*37
		for sc.Scan() {
			n, err := strconv.Atoi(sc.Text())
			if err != nil {
				continue
			}
			acked = n
			if acked >= stopAt {
				break
			}
		}
		cmd.Process.Kill()
		cmd.Wait()
		if acked < stopAt {
			t.Fatalf("the child acknowledged only %d saves", acked)
		}
		d, err := ReadHome(dir)
		if err != nil {
			t.Fatal(err)
		}
		for i := 1; i <= acked; i++ {
			if d.Run(fmt.Sprintf("r%d", i)) == nil {
				t.Fatalf("acknowledged run r%d is lost (the home has generation %d)", i, d.Generation)
			}
		}
		if fileDoc(t, dir).Generation >= d.Generation {
			t.Fatalf("workflows.json has every save (generation %d): the log was not what was tested", d.Generation)
		}
		next := walWriter(t, dir, Options{})
		if _, err := next.Update(addRun("after", "a", StatusQueued)); err != nil {
			t.Fatal(err)
		}
		if d, err := ReadHome(dir); err != nil || d.Run("after") == nil || d.Run(fmt.Sprintf("r%d", acked)) == nil {
			t.Fatalf("after the next writer: %v", err)
		}
	}
}

// walChild saves runs r1, r2, ... one per save, printing each number once acknowledged.
// The runs are running ones, which the document keeps (finished ones move to the archive).
func walChild(dir string) {
	s := New(dir, Options{CheckpointAfter: time.Hour})
	s.Reload()
	s.BeginEpoch()
	s.Update(addWF("a"))
	s.KeepPrevious() // as a writer does at the start of its term
	for i := 1; ; i++ {
		if _, err := s.Update(addRun(fmt.Sprintf("r%d", i), "a", StatusRunning)); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Println(i)
	}
}

// A takeover's forced re-read of a log it followed reads only the new frames, but reads
// everything again when the log was rewritten under it.
func TestWALForcedReloadChecksWhatItApplied(t *testing.T) {
	dir := t.TempDir()
	s := walWriter(t, dir, Options{CheckpointAfter: time.Hour})
	s.Update(addWF("a"))
	s.Update(addRun("r1", "a", StatusRunning))
	r := New(dir, Options{})
	r.Reload()
	s.Update(addRun("r2", "a", StatusRunning))
	want, _ := s.View()
	got, err := r.Reload()
	if err != nil {
		t.Fatal(err)
	}
	sameDoc(t, "forced re-read after following", got, want)
	// Rewrite the frame r1 came in with another valid frame of the same cycle (as a hand
	// or a bug could): the forced re-read must not keep what it read before.
	r.mu.Lock()
	key := r.wal.key
	r.mu.Unlock()
	data, _ := os.ReadFile(filepath.Join(dir, WALName))
	size := int(binary.LittleEndian.Uint32(data[walHeaderSize:]))
	payload, _ := json.Marshal(walDelta(fileDoc(t, dir), (func() *Doc {
		d := fileDoc(t, dir).Clone()
		d.Seq++
		d.Runs = append(d.Runs, Run{ID: "x1", Seq: d.Seq, Workflow: "a", Status: StatusRunning})
		return d
	})()))
	frame := walFrame(key, 2, 1, payload)
	if len(frame) > walFrameHead+size {
		t.Fatalf("test frame too long: %d > %d", len(frame), walFrameHead+size)
	}
	f, _ := os.OpenFile(filepath.Join(dir, WALName), os.O_WRONLY, 0)
	f.WriteAt(append(frame, make([]byte, walFrameHead+size-len(frame))...), walHeaderSize)
	f.Close()
	got, err = r.Reload()
	if err != nil {
		t.Fatal(err)
	}
	if got.Run("x1") == nil || got.Run("r1") != nil {
		t.Fatalf("the forced re-read kept what the log no longer holds: %+v", got.Runs)
	}
}

// A writer whose log another writer went on with (a lock file replaced under it: two
// windows each think they hold the lock) is fenced at its next save, whether the other
// appended to its cycle or started a new one, and its save is not written.
func TestWALFencesAWriterAnotherWentOnFrom(t *testing.T) {
	for _, newCycle := range []bool{false, true} {
		t.Run(fmt.Sprintf("new-cycle=%v", newCycle), func(t *testing.T) {
			dir := t.TempDir()
			old := walWriter(t, dir, Options{CheckpointAfter: time.Hour})
			old.Update(addWF("a"))
			old.Update(addWF("b")) // a frame of old's cycle
			nw := walWriter(t, dir, Options{CheckpointAfter: time.Hour})
			if _, err := nw.Update(addWF("c")); err != nil {
				t.Fatal(err)
			}
			if newCycle {
				if err := nw.Checkpoint(); err != nil {
					t.Fatal(err)
				}
				nw.Update(addWF("d"))
			}
			if _, err := old.Update(addWF("stale")); !errors.Is(err, ErrFenced) {
				t.Fatalf("the old writer's save: %v, want ErrFenced", err)
			}
			d, err := ReadHome(dir)
			if err != nil {
				t.Fatal(err)
			}
			if d.Workflow("stale") != nil || d.Workflow("b") == nil || d.Workflow("c") == nil || d.Epoch != 2 {
				t.Fatalf("the home: %s, epoch %d", names(d), d.Epoch)
			}
		})
	}
}

// A copy of an older workflows.json put back over one the log follows is damage: the
// saves after the copy are gone from the file and live only in the log, as frames of a
// document that is not there. Readers and the writer refuse it and nothing is written.
// Also right after a checkpoint, when the log's frames are the ones the copy lacks.
func TestWALFileRestoredByHandIsRefused(t *testing.T) {
	for _, frameAfter := range []bool{false, true} {
		t.Run(fmt.Sprintf("frame-after-checkpoint=%v", frameAfter), func(t *testing.T) {
			dir := t.TempDir()
			s := walWriter(t, dir, Options{CheckpointAfter: time.Hour})
			s.Update(addWF("a"))
			old, _ := os.ReadFile(filepath.Join(dir, FileName))
			s.Update(addWF("b")) // a frame following the copy's generation
			s.Checkpoint()
			if frameAfter {
				s.Update(addWF("c"))
			}
			if err := os.WriteFile(filepath.Join(dir, FileName), old, 0o600); err != nil {
				t.Fatal(err)
			}
			before := homeFiles(t, dir)
			if _, err := ReadHome(dir); !errors.Is(err, ErrDamaged) {
				t.Fatalf("a reader after the restore: %v", err)
			}
			if _, err := s.Update(addWF("e")); !errors.Is(err, ErrDamaged) {
				t.Fatalf("the writer after the restore: %v", err)
			}
			sameFiles(t, dir, before)
		})
	}
}

// A read that races a checkpoint (the file saved whole and a new cycle overwriting the
// frames being read) still has every save acknowledged before it began: it reads again.
func TestWALReadRacingANewCycleMissesNothing(t *testing.T) {
	dir := t.TempDir()
	s := walWriter(t, dir, Options{CheckpointAfter: time.Hour})
	s.Update(addWF("a"))
	s.Update(addWF("b"))
	s.Update(addWF("c"))
	raced := false
	hooks.wal = func() {
		if raced {
			return
		}
		raced = true
		if err := s.Checkpoint(); err != nil {
			t.Error(err)
		}
		for _, n := range []string{"long-name-to-overwrite-the-old-frames-0", "long-name-to-overwrite-the-old-frames-1"} {
			if _, err := s.Update(addWF(n)); err != nil {
				t.Error(err)
			}
		}
	}
	defer func() { hooks.wal = nil }()
	d, err := ReadHome(dir)
	if !raced {
		t.Fatal("the race was not set up")
	}
	want, _ := s.View()
	if err != nil {
		t.Fatal(err)
	}
	sameDoc(t, "a read that raced a new cycle", d, want)
}

// TestWALEqualitiesSeeEveryField changes each field of each struct walDelta compares (and
// of the structs inside them), one at a time, and requires its equality to see the change:
// a field added to Workflow, Step, Schedule, RunLock, Retention, Owner or Applied that an
// equality does not compare fails here, instead of being left out of frames.
func TestWALEqualitiesSeeEveryField(t *testing.T) {
	wm := "w"
	base := map[string]any{
		"Workflow": Workflow{Name: "a", MaxConcurrent: 1, OnOwnerLost: "fail", Retention: &Retention{KeepRuns: 1},
			Steps: []Step{{Name: "s", Argv: []string{"x"}, Timeout: 1, Dir: "d", Env: map[string]string{"K": "v"}}}},
		"Schedule": Schedule{ID: "s", Workflow: "a", Watermark: &wm, Lock: &RunLock{Run: "r", Owner: Owner{PID: 1}},
			Pending: []time.Time{time.Unix(1, 0).UTC()}},
		"Applied": Applied{ID: "q", Reply: json.RawMessage(`{}`)},
	}
	equal := map[string]func(a, b any) bool{
		"Workflow": func(a, b any) bool { x, y := a.(Workflow), b.(Workflow); return workflowEqual(&x, &y) },
		"Schedule": func(a, b any) bool { x, y := a.(Schedule), b.(Schedule); return scheduleEqual(&x, &y) },
		"Applied":  func(a, b any) bool { return appliedEqual(a.(Applied), b.(Applied)) },
	}
	for name, v := range base {
		if !equal[name](v, deepCopy(v)) {
			t.Fatalf("%s: a copy is not equal", name)
		}
		for _, path := range leafPaths(reflect.TypeOf(v), "") {
			changed := deepCopy(v)
			rv := reflect.ValueOf(&changed).Elem()
			c := reflect.New(rv.Elem().Type()).Elem()
			c.Set(rv.Elem())
			changeLeaf(t, c, path)
			if equal[name](v, c.Interface()) {
				t.Errorf("%s: the equality does not see a change of %s", name, path)
			}
		}
	}
}

// deepCopy copies v through JSON.
func deepCopy(v any) any {
	b, _ := json.Marshal(v)
	p := reflect.New(reflect.TypeOf(v))
	json.Unmarshal(b, p.Interface())
	return p.Elem().Interface()
}

// leafPaths lists the fields of struct type t as dotted paths down to values that are not
// structs (a slice's or pointer's element struct counts, through its first element).
func leafPaths(t reflect.Type, prefix string) []string {
	var out []string
	for i := range t.NumField() {
		f := t.Field(i)
		p := prefix + f.Name
		ft := f.Type
		for ft.Kind() == reflect.Pointer || ft.Kind() == reflect.Slice {
			ft = ft.Elem()
		}
		if ft.Kind() == reflect.Struct && ft != reflect.TypeOf(time.Time{}) {
			out = append(out, leafPaths(ft, p+".")...)
		} else {
			out = append(out, p)
		}
	}
	return out
}

// changeLeaf changes the value at path in v (a settable struct value).
func changeLeaf(t *testing.T, v reflect.Value, path string) {
	name, rest, _ := strings.Cut(path, ".")
	f := v.FieldByName(name)
	for f.Kind() == reflect.Pointer || (f.Kind() == reflect.Slice && rest != "") {
		if f.Kind() == reflect.Pointer {
			if f.IsNil() {
				f.Set(reflect.New(f.Type().Elem()))
			}
			f = f.Elem()
		} else {
			if f.Len() == 0 {
				f.Set(reflect.Append(f, reflect.Zero(f.Type().Elem())))
			}
			f = f.Index(0)
		}
	}
	if rest != "" {
		changeLeaf(t, f, rest)
		return
	}
	switch f.Kind() {
	case reflect.String:
		f.SetString(f.String() + "x")
	case reflect.Int, reflect.Int64:
		f.SetInt(f.Int() + 1)
	case reflect.Uint64:
		f.SetUint(f.Uint() + 1)
	case reflect.Bool:
		f.SetBool(!f.Bool())
	case reflect.Slice:
		if f.Type() == reflect.TypeOf(json.RawMessage(nil)) {
			f.Set(reflect.ValueOf(json.RawMessage(`{"x":1}`)))
		} else {
			f.Set(reflect.Append(f, reflect.Zero(f.Type().Elem())))
		}
	case reflect.Map:
		m := reflect.MakeMap(f.Type())
		m.SetMapIndex(reflect.ValueOf("NEW"), reflect.ValueOf("v"))
		f.Set(m)
	case reflect.Struct: // time.Time
		f.Set(reflect.ValueOf(time.Unix(12345, 0).UTC()))
	default:
		t.Fatalf("%s: no way to change a %v", path, f.Kind())
	}
}

// FuzzWALFrame: any payload in a frame that checks out (right salt and checksum, the next
// generation) either makes the home unreadable with an error, or replays to a valid
// document that saves and reads back the same. Never a panic.
func FuzzWALFrame(f *testing.F) {
	f.Add([]byte(`{"seq":1,"writer":null,"handover_to":null,"retention":null}`))
	f.Add([]byte(`{"seq":2,"writer":null,"handover_to":null,"retention":null,"runs":[{"id":"r1","seq":1,"workflow":"a","status":"running","step":0,"steps":1,"created":"2026-01-01T00:00:00Z"}],"runs_gone":["x"]}`))
	f.Add([]byte(`{"seq":1,"writer":null,"handover_to":null,"retention":null,"workflows_gone":["a"],"schedules":[{"id":"s","workflow":"b","every":"1m","created":"2026-01-01T00:00:00Z"}],"schedules_gone":["t"]}`))
	f.Add([]byte(`{"seq":1,"workflows":[{"name":"b","max_concurrent":1,"on_owner_lost":"fail","steps":[{"argv":["x"]}]}],"writer":null,"handover_to":null,"retention":null}`))
	f.Add([]byte(`{"seq":1,"runs":[{"id":"r","status":"bogus"}]}`))
	f.Add([]byte(`{"seq":1,"seq":2}`))
	f.Add([]byte(`{"applied":[],"schedules":[{"id":""}]}`))
	dir := f.TempDir()
	s := walWriter(&testing.T{}, dir, Options{CheckpointAfter: time.Hour})
	if _, err := s.Update(addWF("a")); err != nil {
		f.Fatal(err)
	}
	if _, err := s.Update(addWF("b")); err != nil { // creates the log with a cycle
		f.Fatal(err)
	}
	if err := s.Checkpoint(); err != nil { // an empty cycle following generation 2
		f.Fatal(err)
	}
	s.mu.Lock()
	key := s.wal.key
	s.mu.Unlock()
	s.EndEpoch()
	base, _ := s.View()
	wal := filepath.Join(dir, WALName)
	f.Fuzz(func(t *testing.T, payload []byte) {
		if len(payload) > walMaxFrame {
			return
		}
		fh, err := os.OpenFile(wal, os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		frame := walFrame(key, base.Generation+1, base.Epoch, payload)
		fh.WriteAt(append(frame, make([]byte, walFrameHead)...), walHeaderSize) // and a zero end
		fh.Close()
		d, err := ReadHome(dir)
		if err != nil {
			if !errors.Is(err, ErrWAL) {
				t.Fatalf("a bad frame's error does not name the log: %v", err)
			}
			return
		}
		if want := base.Generation + 1; len(payload) == 0 { // length 0 ends the frames
			want = base.Generation
			if d.Generation != want {
				t.Fatalf("an empty frame was applied: generation %d", d.Generation)
			}
		} else if d.Generation != want {
			t.Fatalf("a frame that decodes was not applied: generation %d", d.Generation)
		}
		if err := d.Validate(); err != nil {
			t.Fatalf("the replay accepted an invalid document: %v", err)
		}
		out, err := json.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		again, err := Decode(out)
		if err != nil {
			t.Fatalf("the replayed document does not read back: %v\n%s", err, out)
		}
		sameDoc(t, "the replayed document read back", again, d)
	})
}

// A frame larger than a reader's first read (a list of many workflows changed) is read
// whole, after frames that filled that read.
func TestWALLargeFrameIsReadWhole(t *testing.T) {
	dir := t.TempDir()
	s := walWriter(t, dir, Options{CheckpointAfter: time.Hour})
	s.Update(addWF("a"))
	for i := range 40 {
		s.Update(addRun(fmt.Sprintf("r%d", i), "a", StatusRunning))
	}
	d, err := s.Update(func(d *Doc) error {
		for i := range 300 {
			d.Workflows = append(d.Workflows, Workflow{Name: fmt.Sprintf("wf-%03d-%s", i, strings.Repeat("n", 100)), MaxConcurrent: 1, OnOwnerLost: "fail", Steps: []Step{{Argv: []string{"true"}}}})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n := s.walFrames(); n != 41 {
		t.Fatalf("the log has %d frames, want 41 (the big change as a frame)", n)
	}
	got, err := ReadHome(dir)
	if err != nil {
		t.Fatal(err)
	}
	sameDoc(t, "a reader of a log with a large frame", got, d)
}

// An update's copy shares the runs' owner and exit code with the document in memory (see
// cloneForUpdate): a function that writes through them instead of replacing them is
// caught in test binaries, and the document in memory keeps its values when it replaces.
func TestUpdateMustNotWriteThroughSharedRunPointers(t *testing.T) {
	dir := t.TempDir()
	s := walWriter(t, dir, Options{CheckpointAfter: time.Hour})
	code := 1
	s.Update(func(d *Doc) error {
		d.Runs = append(d.Runs, Run{ID: "r1", Workflow: "w", Status: StatusFailed, ExitCode: &code, Owner: &Owner{PID: 1}})
		return nil
	})
	before, _ := s.View()
	if _, err := s.Update(func(d *Doc) error {
		c, o := 2, Owner{PID: 2}
		d.Runs[0].ExitCode, d.Runs[0].Owner = &c, &o
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if *before.Runs[0].ExitCode != 1 || before.Runs[0].Owner.PID != 1 {
		t.Fatal("replacing a run's pointers changed the older document")
	}
	defer func() {
		if recover() == nil {
			t.Fatal("an update that wrote through a shared exit code was not caught")
		}
	}()
	s.Update(func(d *Doc) error {
		*d.Runs[0].ExitCode = 9
		return nil
	})
}

// walDocExcluded are the fields of Doc a frame does not carry, each with the reason: any
// other field must reach the replayed document (TestWALFramesCarryEveryDocField), so a
// field added to Doc later cannot be silently left out of frames.
var walDocExcluded = map[string]string{
	"Schema":     "a frame never changes it: a document of another schema is saved whole",
	"Home":       "the cycle's header and every frame's checksum carry it; set once, by a whole save",
	"Generation": "the frame's head carries it",
	"Epoch":      "the frame's head carries it",
	"Log":        "set by whole saves only, never by an update",
}

// TestWALFramesCarryEveryDocField changes each field of Doc (down to the fields of its
// workflows, runs, schedules and applied requests), one at a time, makes the frame of that
// change as a save does (walDelta, through JSON), replays it on the document before and
// requires the change to be there. A field that is neither carried nor in walDocExcluded
// fails here.
func TestWALFramesCarryEveryDocField(t *testing.T) {
	wm := "w"
	base := Doc{Schema: SchemaVersion,
		Workflows: []Workflow{{Name: "a", MaxConcurrent: 1, OnOwnerLost: "fail", Steps: []Step{{Argv: []string{"x"}}}}},
		Runs:      []Run{{ID: "r1-00000000", Workflow: "a", Status: StatusQueued}},
		Schedules: []Schedule{{ID: "s", Workflow: "a", Watermark: &wm}},
		Applied:   []Applied{{ID: "q", Reply: json.RawMessage(`{}`)}},
	}
	dt := reflect.TypeOf(Doc{})
	for name := range walDocExcluded {
		if _, ok := dt.FieldByName(name); !ok {
			t.Errorf("walDocExcluded names %s, which Doc no longer has", name)
		}
	}
	for _, path := range leafPaths(dt, "") {
		top, _, _ := strings.Cut(path, ".")
		if _, ok := walDocExcluded[top]; ok {
			continue
		}
		prev := deepCopy(base).(Doc)
		next := deepCopy(base).(Doc)
		changeLeaf(t, reflect.ValueOf(&next).Elem(), path)
		rec := walDelta(&prev, &next)
		b, err := json.Marshal(rec)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		var frame walRec
		if err := json.Unmarshal(b, &frame); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		got := frame.apply(&prev, next.Generation, next.Epoch)
		f, _ := dt.FieldByName(top)
		want, _ := json.Marshal(reflect.ValueOf(next).FieldByIndex(f.Index).Interface())
		have, _ := json.Marshal(reflect.ValueOf(*got).FieldByIndex(f.Index).Interface())
		if !bytes.Equal(want, have) {
			t.Errorf("a change of Doc.%s is lost in the frame: replayed %s, saved %s", path, have, want)
		}
	}
}

// TestCheckpointRunsTheCommitCheck: a checkpoint rewrites workflows.json, so it runs the
// check every commit runs (BeforeSave: the host's lock check); refused, workflows.json is
// left as it is and the frames stay in the log.
func TestCheckpointRunsTheCommitCheck(t *testing.T) {
	dir := t.TempDir()
	var lost atomic.Bool
	errLost := errors.New("the writer lock is lost")
	s := walWriter(t, dir, Options{BeforeSave: func() error {
		if lost.Load() {
			return errLost
		}
		return nil
	}})
	if _, err := s.Update(addWF("a")); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Update(addWF("b")); err != nil {
		t.Fatal(err)
	}
	before := fileDoc(t, dir).Generation
	lost.Store(true)
	if err := s.Checkpoint(); !errors.Is(err, errLost) {
		t.Fatalf("a checkpoint without the lock: %v, want it refused", err)
	}
	if g := fileDoc(t, dir).Generation; g != before {
		t.Fatalf("workflows.json rewritten (generation %d, was %d) by a writer that lost its lock", g, before)
	}
	lost.Store(false)
	if err := s.Checkpoint(); err != nil {
		t.Fatal(err)
	}
	if d, _ := s.View(); fileDoc(t, dir).Generation != d.Generation {
		t.Fatalf("workflows.json at generation %d after the checkpoint, want %d", fileDoc(t, dir).Generation, d.Generation)
	}
}

// TestFindFrameSeesEveryFrame: findFrame (which jumps over bytes that cannot start a
// frame) finds the same first good frame as a scan of every offset, in a tail of an older
// cycle's frames and zeros with frames of this cycle planted at any offset.
func TestFindFrameSeesEveryFrame(t *testing.T) {
	naive := func(b, key []byte, lo, hi uint64) (int, uint64, bool) {
		for i := 0; i+walFrameHead <= len(b); i++ {
			if g, _, _, _, ok := nextFrame(key, b[i:]); ok && g > lo && g <= hi {
				return i, g, true
			}
		}
		return 0, 0, false
	}
	key, old := []byte("this cycle's key"), []byte("an older cycle's")
	frame := walFrame(key, 101, 2, []byte(`{"workflows":[]}`))
	for zeros := 2 * len(zeroRun); zeros >= 0; zeros-- { // a frame right after any length of zeros
		b := append(make([]byte, zeros), frame...)
		if at, g, ok := findFrame(b, key, 100, 200); at != zeros || g != 101 || !ok {
			t.Fatalf("after %d zeros: findFrame = %d, %d, %v; want %d, 101, true", zeros, at, g, ok, zeros)
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 300 {
		b := make([]byte, 128<<10)
		for at := 0; at < len(b); {
			switch rng.IntN(3) {
			case 0: // zeros, sometimes with a frame of this cycle right after them
				at += rng.IntN(12 << 10)
				if rng.IntN(8) == 0 && at < len(b) {
					at += copy(b[at:], walFrame(key, uint64(101+rng.IntN(5)), 2, []byte(`{"workflows":[]}`)))
				}
			default: // an older cycle's frame, generations overlapping this one's
				f := walFrame(old, uint64(90+rng.IntN(30)), 1, []byte(fmt.Sprintf(`{"runs":[{"id":"r%d","status":"running"}]}`, rng.IntN(1e6))))
				at += copy(b[min(at, len(b)):], f)
			}
		}
		var planted []int
		for range rng.IntN(3) {
			at := rng.IntN(len(b) - 200)
			copy(b[at:], walFrame(key, uint64(101+rng.IntN(5)), 2, []byte(`{"workflows":[]}`)))
			planted = append(planted, at)
		}
		wantAt, wantG, wantOK := naive(b, key, 100, 200)
		at, g, ok := findFrame(b, key, 100, 200)
		if at != wantAt || g != wantG || ok != wantOK {
			t.Fatalf("round %d (planted at %v): findFrame = %d, %d, %v; every offset gives %d, %d, %v", round, planted, at, g, ok, wantAt, wantG, wantOK)
		}
	}
}
