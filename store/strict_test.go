package store

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

const goodDoc = `{"schema":1,"generation":3,"epoch":1,"seq":0,"workflows":[{"name":"a","max_concurrent":1,"on_owner_lost":"fail","steps":[{"argv":["true"],"env":{"PATH":"/bin","Path":"x"}}]}],"runs":[],"schedules":[]}`

// TestDecodeRefusesHostileDocuments: each broken or hostile document is refused with a
// message that names what is wrong.
func TestDecodeRefusesHostileDocuments(t *testing.T) {
	if _, err := Decode([]byte(goodDoc)); err != nil {
		t.Fatalf("good document refused: %v", err)
	}
	cases := []struct{ name, doc, want string }{
		{"empty", "", "empty"},
		{"not json", "hello", "not valid JSON"},
		{"truncated", goodDoc[:len(goodDoc)/2], "not valid JSON"},
		{"newer schema", `{"schema":2,"generation":1,"future":true}`, "upgrade Baton"},
		{"no schema", `{"generation":1}`, "schema"},
		{"duplicate key", `{"schema":1,"generation":1,"generation":2,"epoch":0,"workflows":[],"runs":[]}`, `duplicate key "generation" in $`},
		{"case variant", `{"schema":1,"Schema":2,"workflows":[],"runs":[]}`, `keys "schema" and "Schema" in $ differ only in case`},
		{"case only", `{"Schema":1,"workflows":[],"runs":[]}`, `key "Schema" in $: keys are case-sensitive; did you mean "schema"?`},
		{"escaped duplicate", `{"schema":1,"sch\u0065ma":1,"workflows":[],"runs":[]}`, `duplicate key "schema"`},
		{"nested duplicate", `{"schema":1,"workflows":[{"name":"a","name":"b","max_concurrent":1,"on_owner_lost":"fail","steps":[{"argv":["x"]}]}],"runs":[]}`, `duplicate key "name" in $.workflows[0]`},
		{"nested case", `{"schema":1,"workflows":[{"name":"a","max_concurrent":1,"on_owner_lost":"fail","steps":[{"Argv":["x"]}]}],"runs":[]}`, `key "Argv" in $.workflows[0].steps[0]`},
		{"env duplicate", `{"schema":1,"workflows":[{"name":"a","max_concurrent":1,"on_owner_lost":"fail","steps":[{"argv":["x"],"env":{"A":"1","A":"2"}}]}],"runs":[]}`, `duplicate key "A" in $.workflows[0].steps[0].env`},
		{"unknown field", `{"schema":1,"workflows":[],"runs":[],"surprise":1}`, `unknown field "surprise"`},
		{"trailing", goodDoc + `{}`, "trailing data"},
		{"stray brace", goodDoc + "\n}", "trailing data"},
		{"run duplicate", `{"schema":1,"workflows":[],"runs":[{"id":"r1","workflow":"a","status":"queued","id":"r2"}]}`, `duplicate key "id" in $.runs[0]`},
		{"run case variant", `{"schema":1,"workflows":[],"runs":[{"id":"r1","workflow":"a","status":"queued","Status":"failed"}]}`, `keys "status" and "Status" in $.runs[0] differ only in case`},
		{"run case only", `{"schema":1,"workflows":[],"runs":[{"id":"r1","workflow":"a","Status":"queued"}]}`, `key "Status" in $.runs[0]: keys are case-sensitive; did you mean "status"?`},
		{"owner case", `{"schema":1,"workflows":[],"runs":[{"id":"r1","workflow":"a","status":"queued","owner":{"pid":1,"PID":2}}]}`, `keys "pid" and "PID" in $.runs[0].owner differ only in case`},
		{"run unknown field", `{"schema":1,"workflows":[],"runs":[{"id":"r1","workflow":"a","status":"queued","bogus":1}]}`, `unknown field "bogus" in $.runs[0]`},
		{"duplicate inside a time", `{"schema":1,"workflows":[],"runs":[],"schedules":[{"id":"s","workflow":"w","created":{"0":[{"a":1,"a":2}]}}]}`, `duplicate key "a" in $.schedules[0].created.0[0]`},
		{"wrong type", `{"schema":1,"workflows":[{"name":"a","max_concurrent":"1"}]}`, `$.workflows[0].max_concurrent: cannot decode a JSON string into Go int`},
		{"run id escapes", `{"schema":1,"workflows":[],"runs":[{"id":"../../etc/x","workflow":"a","status":"queued","step":0,"steps":1,"seq":1,"created":"2026-01-01T00:00:00Z"}]}`, "runs[0].id"},
		{"schedule id escapes", `{"schema":1,"workflows":[],"runs":[],"schedules":[{"id":"a/b","workflow":"w","created":"2026-01-01T00:00:00Z"}]}`, "schedules[0].id"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Decode([]byte(c.doc))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Decode: %v, want an error containing %q", err, c.want)
			}
		})
	}
}

// TestHugeFileRefusedBeforeAllocating: a workflows.json over the cap is refused from its
// size alone; nothing near its size is allocated.
func TestHugeFileRefusedBeforeAllocating(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, FileName)
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(DefaultMaxSize + 1<<20); err != nil { // sparse: costs no disk
		t.Fatal(err)
	}
	f.Close()
	s := New(dir, Options{})
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err = s.Reload()
	runtime.ReadMemStats(&after)
	if !errors.Is(err, ErrTooLarge) || !errors.Is(err, ErrUnreadable) {
		t.Fatalf("Reload of a huge file: %v", err)
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 1<<20 {
		t.Fatalf("refusing a huge file allocated %d bytes", n)
	}
	if fi, _ := os.Stat(p); fi.Size() != DefaultMaxSize+1<<20 {
		t.Fatal("the huge file was touched")
	}
}

// TestUnreadableOffersPreviousGeneration: a broken workflows.json is kept as it is, writes
// are refused, and the error says where the previous good generation is.
func TestUnreadableOffersPreviousGeneration(t *testing.T) {
	dir := t.TempDir()
	s := writer(t, dir)
	for _, n := range []string{"a", "b"} {
		if _, err := s.Update(addWF(n)); err != nil {
			t.Fatal(err)
		}
		if n == "a" {
			s.KeepPrevious() // as a writer does at the start and end of its term
		}
	}
	bad := []byte(`{"schema":1,"Schema":2}`)
	if err := os.WriteFile(filepath.Join(dir, FileName), bad, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := s.Reload()
	if !errors.Is(err, ErrUnreadable) || !strings.Contains(err.Error(), "differ only in case") ||
		!strings.Contains(err.Error(), PrevName) || !strings.Contains(err.Error(), "generation (1)") {
		t.Fatalf("Reload: %v", err)
	}
	if _, err := s.Update(addWF("c")); !errors.Is(err, ErrUnreadable) {
		t.Fatalf("Update over a broken file: %v", err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, FileName)); !bytes.Equal(got, bad) {
		t.Fatal("the broken file was changed")
	}
}

func TestSafeName(t *testing.T) {
	for _, ok := range []string{"r1-ab12", "s-1", "weird name"} {
		if err := SafeName(ok); err != nil {
			t.Errorf("SafeName(%q): %v", ok, err)
		}
	}
	for _, bad := range []string{"", ".", "..", "a/b", `a\b`, "../x", "a\x00b", "a\nb", strings.Repeat("x", 201)} {
		if SafeName(bad) == nil {
			t.Errorf("SafeName(%q) accepted", bad)
		}
	}
}

// benchDoc2000 is a compact document of 2000 finished runs.
func benchDoc2000() []byte {
	var sb strings.Builder
	sb.WriteString(`{"schema":1,"generation":1,"epoch":1,"seq":2000,"workflows":[],"schedules":[],"runs":[`)
	for i := 0; i < 2000; i++ {
		if i > 0 {
			sb.WriteByte(',')
		}
		fmt.Fprintf(&sb, `{"id":"r%d-abcd","seq":%d,"workflow":"w","status":"succeeded","step":0,"steps":1,"created":"2026-01-01T00:00:00Z","exit_code":0,"log":"/home/x/runs/r%d.log"}`, i, i, i)
	}
	sb.WriteString("]}")
	return []byte(sb.String())
}

// BenchmarkDecode measures the whole strict loader (Decode: no caches, as a first load
// or a takeover does) on a document of 2000 runs.
func BenchmarkDecode(b *testing.B) {
	data := benchDoc2000()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := Decode(data); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecodeChanged measures what a reader does after each save: a load with warm
// caches of a 2000-run document (in the encoder's layout) in which one run changed.
func BenchmarkDecodeChanged(b *testing.B) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	doc := emptyDoc()
	doc.Workflows = append(doc.Workflows, testWorkflow("w"))
	for seq := uint64(1); seq <= 2000; seq++ {
		doc.Runs = append(doc.Runs, benchRun(seq, "w", now))
	}
	var c codec
	var docs [2][]byte
	for i := range docs {
		doc.Runs[len(doc.Runs)-1].Attempt = i
		data, err := c.encode(doc)
		if err != nil {
			b.Fatal(err)
		}
		docs[i] = slices.Clone(data)
	}
	b.SetBytes(int64(len(docs[0])))
	i := 0
	for b.Loop() {
		i ^= 1
		if _, err := strictDecode(&c, docs[i]); err != nil {
			b.Fatal(err)
		}
	}
}
