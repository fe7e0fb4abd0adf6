package store

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"
	"time"
)

// TestCodecMatchesMarshalIndent checks that the cached encoder writes exactly what
// json.MarshalIndent writes, across saves where runs change, and that decode with the
// cache gives the same document as decode without it.
func TestCodecMatchesMarshalIndent(t *testing.T) {
	var c codec
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	doc := emptyDoc()
	doc.Workflows = append(doc.Workflows, testWorkflow("a"))
	for step := range 30 {
		doc = doc.Clone()
		doc.Generation++
		doc.Seq++
		doc.Runs = append(doc.Runs, benchRun(doc.Seq, "a", now))
		doc.Runs[step/2].Status = StatusFailed // change an older run in place
		code := step
		doc.Runs[step/3].ExitCode = &code
		got, err := c.encode(doc)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := json.MarshalIndent(doc, "", "  ")
		want = append(want, '\n')
		if string(got) != string(want) {
			t.Fatalf("step %d: cached encoding differs from MarshalIndent:\n%s\nwant\n%s", step, got, want)
		}
		if _, ok := c.decodeFast(got); !ok {
			t.Fatalf("step %d: the fast decoder refused the encoder's own layout", step)
		}
		cached, err := c.decode(got)
		if err != nil {
			t.Fatal(err)
		}
		plain, err := Decode(got)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(cached, plain) || !reflect.DeepEqual(plain.Runs, doc.Runs) {
			t.Fatalf("step %d: decode with the cache differs", step)
		}
	}
	if out, _ := c.encode(emptyDoc()); string(out) == "" {
		t.Fatal("empty document encoded to nothing")
	}
}

// TestRunFieldsKnownToRunEqual fails when Run gains a pointer, slice or map field:
// runEqual must then compare it by value, or the encode cache could reuse stale bytes.
func TestRunFieldsKnownToRunEqual(t *testing.T) {
	rt := reflect.TypeFor[Run]()
	for i := range rt.NumField() {
		f := rt.Field(i)
		switch f.Type.Kind() {
		case reflect.Pointer:
			if f.Name != "Owner" && f.Name != "ExitCode" {
				t.Errorf("Run.%s is a pointer: teach runEqual (store/codec.go) to compare it by value", f.Name)
			}
		case reflect.Slice, reflect.Map, reflect.Func, reflect.Interface:
			t.Errorf("Run.%s is a %s: teach runEqual (store/codec.go) to compare it", f.Name, f.Type.Kind())
		}
	}
}

func TestDecodeRejectsUnknownRunField(t *testing.T) {
	var c codec
	doc := emptyDoc()
	doc.Runs = []Run{{ID: "r1", Seq: 1, Workflow: "a", Status: StatusQueued}}
	data, _ := c.encode(doc)
	if _, err := c.decode(data); err != nil {
		t.Fatal(err)
	}
	bad := []byte(`{"schema":1,"generation":1,"epoch":1,"seq":1,"workflows":[],"schedules":[],"runs":[{"id":"r1","seq":1,"workflow":"a","status":"queued","bogus":1}]}`)
	if _, err := c.decode(bad); err == nil {
		t.Fatal("unknown field in a run accepted")
	}
	if _, err := c.decode([]byte(`{"schema":99,"new":1}`)); err == nil || !errors.Is(err, ErrNewerSchema) {
		t.Fatalf("newer schema: %v", err)
	}
	if _, err := c.decode([]byte(`{"generation":1}`)); err == nil {
		t.Fatal("missing schema accepted")
	}
}
