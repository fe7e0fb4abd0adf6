package store

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// homeFiles reads every file of Baton's data in dir (all but state.lock and instances/,
// which are liveness, not data), by path relative to dir.
func homeFiles(t testing.TB, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if e.IsDir() && rel == "instances" {
			return filepath.SkipDir
		}
		if e.IsDir() || rel == "state.lock" {
			return nil
		}
		b, err := os.ReadFile(p)
		out[rel] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// sameFiles fails unless dir holds exactly the files before did, byte for byte.
func sameFiles(t testing.TB, dir string, before map[string]string) {
	t.Helper()
	after := homeFiles(t, dir)
	var diff []string
	for name, b := range before {
		if a, ok := after[name]; !ok {
			diff = append(diff, name+" removed")
		} else if a != b {
			diff = append(diff, fmt.Sprintf("%s changed (%d bytes, was %d)", name, len(a), len(b)))
		}
	}
	for name := range after {
		if _, ok := before[name]; !ok {
			diff = append(diff, name+" created")
		}
	}
	if len(diff) > 0 {
		sort.Strings(diff)
		t.Fatalf("a damaged home was changed: %s", strings.Join(diff, "; "))
	}
}

// copyHome copies the files of src into a new folder.
func copyHome(t testing.TB, src string) string {
	t.Helper()
	dst := t.TempDir()
	for name, b := range homeFiles(t, src) {
		p := filepath.Join(dst, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(b), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

// logFrames returns the header of the log in dir and the offsets of the frames of its
// cycle, in order.
func logFrames(t testing.TB, dir string) (walHead, []int64) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, WALName))
	if err != nil {
		t.Fatal(err)
	}
	h, ok, err := parseWALHeader(b)
	if !ok || err != nil {
		t.Fatalf("the log has no cycle: %v", err)
	}
	var offs []int64
	for off := h.size(); ; {
		_, _, _, n, ok := nextFrame(h.key(), b[off:])
		if !ok {
			return h, offs
		}
		offs = append(offs, off)
		off += int64(n)
	}
}

// refusedUnchanged checks that the damaged home dir is refused by a reader and by a
// would-be writer with ErrDamaged (and the error names want), and that no file changed.
func refusedUnchanged(t testing.TB, dir string, want ...string) error {
	t.Helper()
	before := homeFiles(t, dir)
	_, err := ReadHome(dir)
	if !errors.Is(err, ErrDamaged) || !errors.Is(err, ErrUnreadable) {
		t.Fatalf("a damaged home was read: %v", err)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Fatalf("the refusal does not name %q: %v", w, err)
		}
	}
	tryToWrite(t, dir)
	sameFiles(t, dir, before)
	return err
}

// tryToWrite does what a window that holds the lock does on a home: re-read, begin an
// epoch, save, keep the previous generation, save the last good one. All must be refused
// or do nothing on a damaged home.
func tryToWrite(t testing.TB, dir string) {
	t.Helper()
	w := New(dir, Options{CheckpointAfter: time.Hour})
	w.Reload()
	w.BeginEpoch()
	if _, err := w.Update(addWF("intruder")); err == nil {
		t.Fatal("a writer saved on a damaged home")
	}
	w.KeepPrevious()
	w.SaveLastGood()
	w.Checkpoint()
	w.EndEpoch()
}

// killedWriterHome runs walChild (the child of TestWALKilledWriterLosesNoAcknowledgedSave)
// in a child process until it acknowledged n saves of runs r1..rn, then kills it -9: its
// frames are in the log, not in workflows.json.
func killedWriterHome(t *testing.T, n int) string {
	t.Helper()
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestWALKilledWriterLosesNoAcknowledgedSave$")
	cmd.Env = append(os.Environ(), "BATON_WAL_CHILD="+dir)
	out, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(out)
	acked := 0
	for acked < n && sc.Scan() {
		acked, _ = strconv.Atoi(sc.Text())
	}
	cmd.Process.Kill()
	cmd.Wait()
	if acked < n {
		t.Fatalf("the child acknowledged only %d saves", acked)
	}
	return dir
}

// hasRuns fails unless d holds runs r1..rn.
func hasRuns(t testing.TB, what string, d *Doc, n int) {
	t.Helper()
	for i := 1; i <= n; i++ {
		if d.Run(fmt.Sprintf("r%d", i)) == nil {
			t.Fatalf("%s: acknowledged run r%d is missing (generation %d)", what, i, d.Generation)
		}
	}
}

// The damage matrix: a writer process acknowledges saves that are only in the log and is
// killed -9; each kind of damage is then done to a copy of its home. Every damaged home
// is refused, by readers and by a would-be writer, and no file changes. Recover then
// restores every save that is still there (all of them when the damage left them a
// chain), moves the damaged files aside intact, audits, and the home works again.
func TestDamageMatrix(t *testing.T) {
	const acked = 30
	home := killedWriterHome(t, acked)
	if fileDoc(t, home).Generation != 1 {
		t.Fatal("workflows.json was checkpointed: the frames are not what is tested")
	}
	other := killedWriterHome(t, acked) // another home, same generations
	_, offs := logFrames(t, home)
	mid := len(offs) / 2 // frame mid carries run r(mid+1)
	wal := func(dir string) string { return filepath.Join(dir, WALName) }
	patch := func(t *testing.T, path string, off int64, b []byte) {
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := f.WriteAt(b, off); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name     string
		damage   func(t *testing.T, dir string)
		names    []string // what the refusal names
		restored int      // runs r1..r<restored> must be back after Recover
	}{
		{"document deleted", func(t *testing.T, dir string) { os.Remove(filepath.Join(dir, FileName)) },
			[]string{FileName, "is missing"}, acked},
		{"log cut short", func(t *testing.T, dir string) { os.Truncate(wal(dir), offs[mid]+10) },
			[]string{WALName, "bytes, not"}, mid},
		{"bytes changed inside a frame", func(t *testing.T, dir string) { patch(t, wal(dir), offs[mid]+walFrameHead+5, []byte("XYZ")) },
			[]string{WALName, "fails its check", fmt.Sprintf("offset %d", offs[mid])}, mid},
		{"log of zeros", func(t *testing.T, dir string) { patch(t, wal(dir), 0, make([]byte, walSize)) },
			[]string{WALName, "zeros"}, 0},
		{"log of another home", func(t *testing.T, dir string) {
			b, _ := os.ReadFile(wal(other))
			os.WriteFile(wal(dir), b, 0o600)
		}, []string{WALName, fileDoc(t, other).Home, fileDoc(t, home).Home}, 0},
		{"document of another home", func(t *testing.T, dir string) {
			b, _ := os.ReadFile(filepath.Join(other, FileName))
			os.WriteFile(filepath.Join(dir, FileName), b, 0o600)
		}, []string{FileName, fileDoc(t, other).Home, fileDoc(t, home).Home}, acked},
		{"header changed", func(t *testing.T, dir string) {
			// Flip a byte of the salt: setting it to a value could leave it as it was (1 in 256).
			b, err := os.ReadFile(wal(dir))
			if err != nil {
				t.Fatal(err)
			}
			patch(t, wal(dir), 20, []byte{b[20] ^ 0xff})
		},
			[]string{WALName, "header"}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := copyHome(t, home)
			tc.damage(t, dir)
			damaged := homeFiles(t, dir)
			refusedUnchanged(t, dir, tc.names...)

			r, err := Recover(dir, nil, time.Now(), NewAudit(dir))
			if err != nil {
				t.Fatal(err)
			}
			d, err := ReadHome(dir)
			if err != nil {
				t.Fatalf("the recovered home: %v", err)
			}
			hasRuns(t, "after recovery", d, tc.restored)
			if tc.restored < acked && len(r.Lost) == 0 {
				t.Fatalf("recovery lost saves without saying so: %+v", r)
			}
			for _, name := range r.Moved { // aside, intact
				b, err := os.ReadFile(filepath.Join(r.MovedTo, name))
				if err != nil || string(b) != damaged[name] {
					t.Fatalf("%s was not moved aside intact: %v", name, err)
				}
			}
			if !strings.HasPrefix(filepath.Base(r.MovedTo), DamagedPrefix) || filepath.Dir(r.MovedTo) != dir {
				t.Fatalf("damaged files went to %s", r.MovedTo)
			}
			checkRecoveryAudited(t, dir, r)
			w := walWriter(t, dir, Options{CheckpointAfter: time.Hour})
			if _, err := w.Update(addRun("after", "a", StatusQueued)); err != nil {
				t.Fatalf("a writer after recovery: %v", err)
			}
			if d, err := ReadHome(dir); err != nil || d.Run("after") == nil {
				t.Fatalf("the home after recovery and a save: %v", err)
			}
		})
	}
	// A frame torn by a crash mid-write is not damage: a frame is written only after the
	// one before it was acknowledged, so nothing acknowledged follows it.
	t.Run("torn last frame", func(t *testing.T) {
		dir := copyHome(t, home)
		h, offs := logFrames(t, dir)
		b, _ := os.ReadFile(wal(dir))
		end := offs[len(offs)-1] + walFrameHead + int64(binary.LittleEndian.Uint32(b[offs[len(offs)-1]:]))
		torn := walFrame(h.key(), uint64(acked+2), 1, []byte(`{"seq":99,"runs":[{"id":"torn"}]}`))
		patch(t, wal(dir), end, torn[:len(torn)-7])
		d, err := ReadHome(dir)
		if err != nil {
			t.Fatalf("a torn last frame was refused: %v", err)
		}
		hasRuns(t, "after a torn frame", d, acked)
	})
}

func checkRecoveryAudited(t testing.TB, dir string, r *Recovery) {
	t.Helper()
	es, err := NewAudit(dir).Read(0)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range es {
		var got Recovery
		if e.Kind == KindRecovery && e.Decode(&got) == nil && got.Generation == r.Generation && len(got.Lost) == len(r.Lost) {
			return
		}
	}
	t.Fatalf("the audit log has no record of the recovery: %+v", es)
}

// A missing workflows.json makes a new home only in a folder with nothing of Baton's in
// it: beside the previous document, the audit log, runs, the archive or a log that holds
// a cycle, it is damage, refused without a change.
func TestMissingDocumentBesideBatonFilesIsDamage(t *testing.T) {
	for _, name := range []string{PrevName, AuditName, "runs/r1.log", ArchiveDir + "/runs-1.jsonl"} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o700)
			data := []byte("x\n")
			if name == AuditName { // a writer's record: an audit log of a reader's proves no save
				data = []byte(`{"kind":"takeover","data":{}}` + "\n")
			}
			os.WriteFile(filepath.Join(dir, name), data, 0o600)
			refusedUnchanged(t, dir, FileName, "is missing", strings.Split(name, "/")[0])
		})
	}
	t.Run("a new folder", func(t *testing.T) {
		dir := t.TempDir()
		w := walWriter(t, dir, Options{})
		if _, err := w.Update(addWF("a")); err != nil {
			t.Fatalf("a new home: %v", err)
		}
	})
	t.Run("a first save cut before workflows.json", func(t *testing.T) {
		// The log is made (a first cycle without frames) before the first workflows.json.
		dir := t.TempDir()
		w := walWriter(t, dir, Options{})
		w.Update(addWF("a"))
		os.Remove(filepath.Join(dir, FileName))
		f, _ := os.OpenFile(filepath.Join(dir, WALName), os.O_WRONLY, 0)
		h, _ := logFrames(t, dir)
		f.WriteAt(walHeader(h.salt, 0, h.home), 0)
		f.Close()
		if _, err := ReadHome(dir); err != nil {
			t.Fatalf("a home whose first save was cut: %v", err)
		}
	})
}

// workflows.prev.json is replaced only by a good generation newer than the one it holds:
// never by an older one, and never when it cannot be read.
func TestPreviousReplacedOnlyByNewer(t *testing.T) {
	dir := t.TempDir()
	w := walWriter(t, dir, Options{})
	w.Update(addWF("a"))
	w.Update(addWF("b"))
	if err := w.KeepPrevious(); err != nil {
		t.Fatal(err)
	}
	newer, _ := os.ReadFile(filepath.Join(dir, PrevName))
	old := New(dir, Options{})
	old.mu.Lock()
	old.cur = &Doc{Schema: SchemaVersion, Generation: 1, Epoch: 1, Home: fileDoc(t, dir).Home}
	old.mu.Unlock()
	old.KeepPrevious()
	if got, _ := os.ReadFile(filepath.Join(dir, PrevName)); !bytes.Equal(got, newer) {
		t.Fatal("an older generation replaced workflows.prev.json")
	}
	os.WriteFile(filepath.Join(dir, PrevName), []byte("{not json"), 0o600)
	w.Update(addWF("c"))
	if err := w.KeepPrevious(); err == nil {
		t.Fatal("an unreadable workflows.prev.json was replaced without a word")
	}
	if got, _ := os.ReadFile(filepath.Join(dir, PrevName)); string(got) != "{not json" {
		t.Fatal("an unreadable workflows.prev.json was overwritten")
	}
}

// A home from before ids (no home id, no log link, a version 1 log with frames) is read
// as it is, frames and all; its writer's next save gives it an id, whole, and a version 2
// cycle follows.
func TestOldHomeGetsAnIDOnItsNextSave(t *testing.T) {
	dir := t.TempDir()
	doc := emptyDoc()
	doc.Generation, doc.Epoch = 1, 1
	doc.Workflows = []Workflow{{Name: "a", MaxConcurrent: 1, OnOwnerLost: "fail", Steps: []Step{{Argv: []string{"true"}}}}}
	data, _ := (&codec{}).encode(doc)
	os.WriteFile(filepath.Join(dir, FileName), data, 0o600)
	// A version 1 log: 40-byte header, crcs over the salt only.
	v1 := walHead{version: 1, salt: 77, base: 1}
	h := make([]byte, walHeaderV1)
	copy(h, walMagic)
	binary.LittleEndian.PutUint32(h[8:], 1)
	binary.LittleEndian.PutUint64(h[16:], v1.salt)
	binary.LittleEndian.PutUint64(h[24:], v1.base)
	binary.LittleEndian.PutUint32(h[12:], crc32.Checksum(h[16:], walCRC))
	next := doc.Clone()
	next.Seq, next.Runs = 1, []Run{{ID: "r1", Seq: 1, Workflow: "a", Status: StatusRunning}}
	payload, _ := json.Marshal(walDelta(doc, next))
	log := make([]byte, walSize)
	copy(log, append(h, walFrame(v1.key(), 2, 1, payload)...))
	os.WriteFile(filepath.Join(dir, WALName), log, 0o600)
	d, err := ReadHome(dir)
	if err != nil || d.Run("r1") == nil || d.Home != "" {
		t.Fatalf("an old home: %v", err)
	}
	w := walWriter(t, dir, Options{CheckpointAfter: time.Hour})
	if _, err := w.Update(addWF("b")); err != nil {
		t.Fatal(err)
	}
	f := fileDoc(t, dir)
	if f.Home == "" || f.Log == nil || f.Run("r1") == nil {
		t.Fatalf("the old home's next save: home %q, link %v", f.Home, f.Log)
	}
	if _, err := w.Update(addWF("c")); err != nil {
		t.Fatal(err)
	}
	if hd, _ := logFrames(t, dir); hd.version != walVersion || hd.home != f.Home {
		t.Fatalf("the cycle after the id: version %d, home %q", hd.version, hd.home)
	}
	if d, err := ReadHome(dir); err != nil || d.Workflow("c") == nil {
		t.Fatalf("the home after: %v", err)
	}
}

// damageTemplate makes, once per process, a home whose writer acknowledged saves that are
// only frames of the log (it stopped without a checkpoint, as a killed one does), with
// the previous document and an audit entry a writer leaves, and another home like it.
func damageTemplate(tb testing.TB, acked int) (home, other string, lastFrame int64) {
	tb.Helper()
	mk := func() string {
		dir, err := os.MkdirTemp("", "baton-damage-fuzz-")
		if err != nil {
			tb.Fatal(err)
		}
		tb.Cleanup(func() { os.RemoveAll(dir) })
		s := New(dir, Options{CheckpointAfter: time.Hour})
		s.Reload()
		s.BeginEpoch()
		s.Update(addWF("a"))
		s.KeepPrevious()
		NewAudit(dir).Append(Shutdown{Epoch: 1})
		for i := 1; i <= acked; i++ {
			if _, err := s.Update(addRun(fmt.Sprintf("r%d", i), "a", StatusRunning)); err != nil {
				tb.Fatal(err)
			}
		}
		s.EndEpoch()
		return dir
	}
	home, other = mk(), mk()
	_, offs := logFrames(tb, home)
	return home, other, offs[len(offs)-1]
}

// FuzzDamagedHome damages a home's files at random (bytes changed or zeroed in the log,
// the previous document or the audit log; any file cut short, deleted, or replaced by
// another home's) and requires: the home reads with every acknowledged save, or it is
// refused, by readers and a would-be writer, and every file is byte-identical afterwards.
// The one save that may go missing without a refusal is the very last, when only its
// frame's bytes were touched: that is what a crash mid-write leaves, and it cannot be told
// from damage. Bytes changed inside workflows.json are not done: it is the person's to
// edit, and an edit that still reads is taken as they wrote it.
func FuzzDamagedHome(f *testing.F) {
	const acked = 12
	home, other, lastFrame := damageTemplate(f, acked)
	files := []string{WALName, FileName, PrevName, AuditName}
	f.Add([]byte{0, 0, 70, 0, 0, 0, 1})         // a byte of the first frame
	f.Add([]byte{1, 0, 0, 2, 0, 0, 0})          // the log cut short
	f.Add([]byte{2, 1, 0, 0, 0, 0, 0})          // workflows.json deleted
	f.Add([]byte{3, 0, 0, 0, 0, 0, 200})        // zeros over the header and a frame
	f.Add([]byte{4, 0, 0, 0, 0, 0, 0})          // another home's log
	f.Add([]byte{4, 1, 0, 0, 0, 0, 0})          // another home's workflows.json
	f.Add([]byte{2, 1, 0, 0, 0, 0, 0, 2, 2, 0}) // workflows.json and workflows.prev.json deleted
	f.Fuzz(func(t *testing.T, ops []byte) {
		dir := copyHome(t, home)
		lastOnly := true // every change so far lies in the last frame or after it
		for n := 0; len(ops) >= 7 && n < 3; n++ {
			op, file := ops[0]%5, files[int(ops[1])%len(files)]
			at := int64(binary.LittleEndian.Uint32(ops[2:6]))
			width, val := int(ops[6])%64+1, ops[6]|1
			ops = ops[7:]
			path := filepath.Join(dir, file)
			data, err := os.ReadFile(path)
			if err != nil {
				continue // deleted already
			}
			switch {
			case op <= 1 && file == FileName: // bytes of the document: see above
				continue
			case op == 0 || op == 3: // change or zero bytes
				at %= int64(len(data)) + 1
				for i := at; i < at+int64(width) && i < int64(len(data)); i++ {
					if op == 0 {
						data[i] ^= val
					} else {
						data[i] = 0
					}
				}
				os.WriteFile(path, data, 0o600)
				lastOnly = lastOnly && (file != WALName || at >= lastFrame)
			case op == 1:
				os.Truncate(path, at%(int64(len(data))+1))
				lastOnly = lastOnly && file != WALName
			case op == 2:
				os.Remove(path)
				lastOnly = lastOnly && file != WALName && file != FileName
			case op == 4:
				b, _ := os.ReadFile(filepath.Join(other, file))
				os.WriteFile(path, b, 0o600)
				lastOnly = lastOnly && file != WALName && file != FileName
			}
		}
		before := homeFiles(t, dir)
		d, err := ReadHome(dir)
		if err == nil {
			want := acked
			if lastOnly {
				want = acked - 1 // the last frame, as a crash may tear it
			}
			hasRuns(t, "a home that reads after damage", d, want)
			return
		}
		if !errors.Is(err, ErrUnreadable) {
			t.Fatalf("a damaged home: %v", err)
		}
		tryToWrite(t, dir)
		sameFiles(t, dir, before)
	})
}

// A frame's checksum covers the home id: the same frame under another home's id (with
// the same salt) does not check out.
func TestFrameChecksumCoversTheHome(t *testing.T) {
	a := walHead{version: walVersion, salt: 5, home: "0123456789abcdef0123456789abcdef"}
	b := a
	b.home = "fedcba9876543210fedcba9876543210"
	f := walFrame(a.key(), 2, 1, []byte(`{"seq":1}`))
	if _, _, _, _, ok := nextFrame(a.key(), f); !ok {
		t.Fatal("a frame does not check out in its own home")
	}
	if _, _, _, _, ok := nextFrame(b.key(), f); ok {
		t.Fatal("a frame checks out under another home's id")
	}
}

// A window that read its home refuses a workflows.json and log of another home put in
// their place together (each agrees with the other, not with what the window read).
func TestHomeSwappedUnderAWindowIsRefused(t *testing.T) {
	home, other, _ := damageTemplate(t, 3)
	r := New(home, Options{})
	if _, err := r.Reload(); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{WALName, FileName} {
		b, _ := os.ReadFile(filepath.Join(other, name))
		os.WriteFile(filepath.Join(home, name), b, 0o600)
	}
	if _, _, err := r.Refresh(); !errors.Is(err, ErrForeign) || !strings.Contains(err.Error(), fileDoc(t, other).Home) {
		t.Fatalf("a window after its home was swapped: %v", err)
	}
}

// A log put back from an older copy of this home's own (same home id, a cycle two
// checkpoints old) is neither the cycle workflows.json absorbed nor the one that follows
// it: damage, since the frames of the cycle that follows are gone.
func TestOlderCopyOfTheLogIsRefused(t *testing.T) {
	dir := t.TempDir()
	s := walWriter(t, dir, Options{CheckpointAfter: time.Hour})
	s.Update(addWF("a"))
	s.Update(addWF("b"))
	old, _ := os.ReadFile(filepath.Join(dir, WALName))
	s.Checkpoint()
	s.Update(addWF("c"))
	s.Checkpoint()
	s.Update(addWF("d")) // acknowledged, a frame only
	os.WriteFile(filepath.Join(dir, WALName), old, 0o600)
	refusedUnchanged(t, dir, WALName, "holds cycle")
}

// A store that finds its home damaged keeps the newest good document it had in memory,
// and Recover, given it, restores every save it holds even when the files lost them.
func TestDamageKeepsMemoryAndRecoverUsesIt(t *testing.T) {
	dir := t.TempDir()
	s := walWriter(t, dir, Options{CheckpointAfter: time.Hour})
	s.Update(addWF("a"))
	for i := 1; i <= 5; i++ {
		s.Update(addRun(fmt.Sprintf("r%d", i), "a", StatusRunning))
	}
	os.WriteFile(filepath.Join(dir, WALName), make([]byte, walSize), 0o600) // the frames gone
	if _, err := s.Reload(); !errors.Is(err, ErrDamaged) {
		t.Fatalf("a zeroed log: %v", err)
	}
	mem, _ := s.View()
	hasRuns(t, "the document kept in memory", mem, 5)
	r, err := Recover(dir, mem, time.Now(), NewAudit(dir))
	if err != nil {
		t.Fatal(err)
	}
	d, err := ReadHome(dir)
	if err != nil {
		t.Fatal(err)
	}
	hasRuns(t, "recovered from memory", d, 5)
	if r.From != "the window's memory" {
		t.Fatalf("recovered from %s", r.From)
	}
}

// A run that only lost saves recorded, whose supervisor left its files in runs/, is named
// among what recovery could not restore.
func TestRecoveryNamesRunsOnlyLostSavesHad(t *testing.T) {
	home, _, _ := damageTemplate(t, 3)
	os.MkdirAll(filepath.Join(home, "runs"), 0o700)
	os.WriteFile(filepath.Join(home, "runs", "r9-lost.spec.json"), []byte("{}"), 0o600)
	os.WriteFile(filepath.Join(home, "runs", "r1.spec.json"), []byte("{}"), 0o600)
	// The previous document and the frames restore r1..r3, not r9-lost.
	os.Remove(filepath.Join(home, FileName))
	r, err := PlanRecovery(home, nil)
	if err != nil {
		t.Fatal(err)
	}
	lost := strings.Join(r.Lost, "\n")
	if !strings.Contains(lost, "run r9-lost") || strings.Contains(lost, "run r1,") {
		t.Fatalf("what recovery says it could not restore: %s", lost)
	}
}

// TestAuditAloneBeforeAnySaveIsNotData: a reader of a new home appends audit entries (an
// unsafe entry it found) before any save; the folder is still a new home. An audit log
// that records a takeover (a writer appends it after its first save) is data: a missing
// workflows.json beside it is damage.
func TestAuditAloneBeforeAnySaveIsNotData(t *testing.T) {
	dir := t.TempDir()
	a := NewAudit(dir)
	if err := a.Append(Unsafe{Path: dir, Problem: "mode 0770", Action: "read-only"}); err != nil {
		t.Fatal(err)
	}
	if got := homeData(dir); got != "" {
		t.Fatalf("an audit log of a reader's entries counts as data (%q): the new home would be refused as damaged", got)
	}
	if err := a.Append(Takeover{Epoch: 1}); err != nil {
		t.Fatal(err)
	}
	_ = a.Close()
	if got := homeData(dir); got != AuditName {
		t.Fatalf("an audit log that records a takeover is not data (%q)", got)
	}
}
