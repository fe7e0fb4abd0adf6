package store

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

// fuzzWarmDoc is the document a fuzzed file replaces: the store's codec has loaded and
// saved it, so its caches hold its runs, as they do after any earlier load or save.
func fuzzWarmDoc() *Doc {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	d := emptyDoc()
	d.Generation, d.Epoch, d.Seq = 7, 2, 3
	d.Workflows = append(d.Workflows, testWorkflow("w"))
	for seq := uint64(1); seq <= 3; seq++ {
		d.Runs = append(d.Runs, benchRun(seq, "w", now))
	}
	d.Runs[2].Status, d.Runs[2].Ended, d.Runs[2].ExitCode = StatusRunning, time.Time{}, nil
	return d
}

// fuzzReload loads data the way Store.Reload does: readDoc on the file with the store's
// codec, warmed by an earlier load and save of fuzzWarmDoc.
func fuzzReload(t *testing.T, c *codec, path string, data []byte) (*Doc, error) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return readDoc(path, fi, DefaultMaxSize, c)
}

// FuzzDecode feeds the document loader arbitrary bytes through the codec that production
// reloads use (readDoc with the store's warm run caches, whose fast road cuts the runs
// array at the encoder's separators). It must never panic; it must accept exactly what the
// plain decoder (Decode, no caches) accepts and give the same document; an accepted
// document must be valid, must save (through the same codec) exactly as MarshalIndent
// writes it, and must load back unchanged, also from the warmer caches of a second load.
//
//	go test -tags batontest ./store -run '^$' -fuzz FuzzDecode -fuzztime 2m
//
// The seed corpus is in testdata/fuzz/FuzzDecode; the cases below are added to it.
func FuzzDecode(f *testing.F) {
	var warmCodec codec
	warm, err := warmCodec.encode(fuzzWarmDoc())
	if err != nil {
		f.Fatal(err)
	}
	f.Add(warm)
	f.Add([]byte(goodDoc))
	f.Add([]byte(`{"schema":1,"Schema":2}`))
	f.Add([]byte(`{"schema":1,"generation":1,"generation":2}`))
	f.Add([]byte(`{"schema":1,"sch\u0065ma":1}`))
	f.Add([]byte(`{"schema":2}`))
	f.Add([]byte(`[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]`))
	f.Add([]byte(`{"schema":1,"workflows":[],"runs":[{"id":"../x","workflow":"w","status":"queued"}]}`))
	f.Add([]byte(`{"schema":1,"workflows":[{"name":"w","max_concurrent":1,"on_owner_lost":"fail","steps":[{"argv":["x"],"timeout":"1s","env":{"A":"1","a":"2"}}]}],"runs":[],"schedules":[{"id":"s","workflow":"w","every":"1m","created":"2026-01-01T00:00:00Z","lock":{"run":"r","owner":{"pid":1,"start":2,"boot":"b","instance":"i"},"since":"2026-01-01T00:00:00Z"}}]}`))
	// The encoder's runs layout inside a step's env instead of at the top level: the plain
	// decoder refuses an array for an env value; the fast road must not find runs there.
	f.Add([]byte("{\"schema\":1,\"workflows\":[{\"name\":\"w\",\"max_concurrent\":1,\"on_owner_lost\":\"fail\",\"steps\":[{\"argv\":[\"x\"],\"env\":{\n  \"runs\": [\n    {\"id\":\"r1-a\",\"seq\":1,\"workflow\":\"w\",\"status\":\"queued\",\"step\":0,\"steps\":1,\"created\":\"2026-01-01T00:00:00Z\"\n    }\n  ]}}]}],\"schedules\":[]}"))
	path := filepath.Join(f.TempDir(), FileName)
	f.Fuzz(func(t *testing.T, data []byte) {
		var c codec
		if _, err := fuzzReload(t, &c, path, warm); err != nil {
			t.Fatalf("the warm document does not load: %v", err)
		}
		if _, err := c.encode(fuzzWarmDoc()); err != nil {
			t.Fatal(err)
		}
		doc, err := fuzzReload(t, &c, path, data)
		plain, perr := Decode(data)
		if (err == nil) != (perr == nil) {
			var runs []Run
			if doc != nil {
				runs = doc.Runs
			}
			t.Fatalf("reload and Decode disagree: reload %v (runs %+v), Decode %v", err, runs, perr)
		}
		if err != nil {
			return
		}
		if !reflect.DeepEqual(doc, plain) {
			t.Fatalf("reload and Decode give different documents:\n%+v\n%+v", doc, plain)
		}
		if err := doc.Validate(); err != nil {
			t.Fatalf("reload accepted an invalid document: %v", err)
		}
		out, err := c.encode(doc)
		if err != nil {
			t.Fatalf("accepted document does not encode: %v", err)
		}
		want, err := json.MarshalIndent(doc, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if string(out) != string(want)+"\n" {
			t.Fatalf("the codec saves a different layout than MarshalIndent:\n%s\nwant\n%s", out, want)
		}
		again, err := fuzzReload(t, &c, path, out)
		if err != nil {
			t.Fatalf("accepted document does not load after a save: %v\n%s", err, out)
		}
		if !reflect.DeepEqual(again, doc) {
			t.Fatalf("save and reload changed the document:\n%s", out)
		}
		// The original bytes once more, now that the caches hold the saved runs.
		twice, err := fuzzReload(t, &c, path, data)
		if err != nil || !reflect.DeepEqual(twice, doc) {
			t.Fatalf("a second reload of the same bytes differs: %v", err)
		}
	})
}
