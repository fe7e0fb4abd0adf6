package store

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
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
			if f.Name != "Owner" && f.Name != "ExitCode" && f.Name != "LogCut" {
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

// TestWarmReloadRefusesLikeDecode: with warm caches, a file in the encoder's layout whose
// runs or top level are hostile is refused by the fast road (it hands over to the general
// one) and with the same message as Decode gives; the runs layout anywhere but in the
// top-level "runs" field is not taken for the runs.
func TestWarmReloadRefusesLikeDecode(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	doc := emptyDoc()
	doc.Workflows = append(doc.Workflows, testWorkflow("w"))
	for seq := uint64(1); seq <= 3; seq++ {
		doc.Runs = append(doc.Runs, benchRun(seq, "w", now))
	}
	var c codec
	good, err := c.encode(doc)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.decode(good); err != nil {
		t.Fatal(err)
	}
	second := `"id": "` + doc.Runs[1].ID + `",`
	if !strings.Contains(string(good), second) {
		t.Fatalf("layout changed: %s", good)
	}
	edit := func(old, new string) []byte { return []byte(strings.Replace(string(good), old, new, 1)) }
	cases := []struct {
		name string
		data []byte
		want string
	}{
		{"run duplicate", edit(second, second+"\n      \"seq\": 9,"), `duplicate key "seq" in $.runs[1]`},
		{"run case variant", edit(second, second+"\n      \"ID\": \"x\","), `keys "id" and "ID" in $.runs[1] differ only in case`},
		{"run unknown", edit(second, second+"\n      \"bogus\": 1,"), `unknown field "bogus" in $.runs[1]`},
		{"top case variant", edit(`"epoch"`, `"Epoch"`), `key "Epoch" in $: keys are case-sensitive`},
		{"two runs fields", edit(`"schedules": []`, `"schedules": [], "runs": []`), `duplicate key "runs" in $`},
		{"runs layout in an env", []byte("{\"schema\":1,\"workflows\":[{\"name\":\"w\",\"max_concurrent\":1,\"on_owner_lost\":\"fail\",\"steps\":[{\"argv\":[\"x\"],\"env\":{\n  \"runs\": [\n    {\"id\":\"r1-a\",\"seq\":1,\"workflow\":\"w\",\"status\":\"queued\",\"step\":0,\"steps\":1,\"created\":\"2026-01-01T00:00:00Z\"\n    }\n  ]}}]}],\"schedules\":[]}"), `$.workflows[0].steps[0].env.runs: cannot decode a JSON array into Go string`},
	}
	for _, k := range cases {
		t.Run(k.name, func(t *testing.T) {
			if _, ok := c.decodeFast(k.data); ok {
				t.Fatalf("the fast road accepted it:\n%s", k.data)
			}
			_, err := c.decode(k.data)
			_, perr := Decode(k.data)
			if err == nil || perr == nil || err.Error() != perr.Error() || !strings.Contains(err.Error(), k.want) {
				t.Fatalf("warm decode: %v\nDecode: %v\nwant both to say %q", err, perr, k.want)
			}
		})
	}
	// The warm caches still serve the good file.
	if _, ok := c.decodeFast(good); !ok {
		t.Fatal("the fast road refused the encoder's own layout after the refusals")
	}
}
