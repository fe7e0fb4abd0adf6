package store

import (
	"encoding/json"
	"testing"
)

// FuzzDecode feeds the document loader arbitrary bytes. It must never panic; a document
// it accepts must be valid, and must survive a save-and-load round trip unchanged.
//
//	go test ./store -run '^$' -fuzz FuzzDecode -fuzztime 2m
//
// The seed corpus is in testdata/fuzz/FuzzDecode; the cases below are added to it.
func FuzzDecode(f *testing.F) {
	f.Add([]byte(goodDoc))
	f.Add([]byte(`{"schema":1,"Schema":2}`))
	f.Add([]byte(`{"schema":1,"generation":1,"generation":2}`))
	f.Add([]byte(`{"schema":1,"sch\u0065ma":1}`))
	f.Add([]byte(`{"schema":2}`))
	f.Add([]byte(`[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]`))
	f.Add([]byte(`{"schema":1,"workflows":[],"runs":[{"id":"../x","workflow":"w","status":"queued"}]}`))
	f.Add([]byte(`{"schema":1,"workflows":[{"name":"w","max_concurrent":1,"on_owner_lost":"fail","steps":[{"argv":["x"],"timeout":"1s","env":{"A":"1","a":"2"}}]}],"runs":[],"schedules":[{"id":"s","workflow":"w","every":"1m","created":"2026-01-01T00:00:00Z","lock":{"run":"r","owner":{"pid":1,"start":2,"boot":"b","instance":"i"},"since":"2026-01-01T00:00:00Z"}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, err := Decode(data)
		if err != nil {
			return
		}
		if err := doc.Validate(); err != nil {
			t.Fatalf("Decode accepted an invalid document: %v", err)
		}
		out, err := json.Marshal(doc)
		if err != nil {
			t.Fatalf("accepted document does not encode: %v", err)
		}
		again, err := Decode(out)
		if err != nil {
			t.Fatalf("accepted document does not load after a save: %v\n%s", err, out)
		}
		out2, _ := json.Marshal(again)
		if string(out) != string(out2) {
			t.Fatalf("round trip changed the document:\n%s\n%s", out, out2)
		}
	})
}
