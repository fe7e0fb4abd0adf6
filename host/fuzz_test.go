package host

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// FuzzParseRequest: any line gives a request or an error, never a panic; an accepted
// request has an op.
//
//	go test -tags batontest ./host -run '^$' -fuzz FuzzParseRequest -fuzztime 2m
func FuzzParseRequest(f *testing.F) {
	for _, s := range []string{`{"id":1,"op":"status"}`, `{"op":""}`, `not json`, `{"id":{"deep":[1,2]},"op":"snapshot"}{}`,
		`{"id":1,"op":"add_workflow","workflow":{"name":"x","steps":[{"argv":["true"]}]}}`, `{"op":"start_run","workflow":"x","task":"\u0000"}`,
		`{"id":1,"op":"cancel_run","run":"../../etc"}`, `[]`, `null`, `{"op":1}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		req, err := ParseRequest(line)
		if err == nil && (req == nil || req.Op == "") {
			t.Fatalf("accepted a request without an op: %q", line)
		}
	})
}

// FuzzDecodeForwardRequest: a request file is untrusted input. Any bytes give a request or
// an error, never a panic; an accepted request carries the file's id, names a requester,
// is a write op, is not forwarded again, and is written again unchanged.
//
//	go test -tags batontest ./host -run '^$' -fuzz FuzzDecodeForwardRequest -fuzztime 2m
func FuzzDecodeForwardRequest(f *testing.F) {
	id := strings.Repeat("5e", 16)
	good := `{"id":"` + id + `","requester":{"pid":7,"start":1,"boot":"b","instance":"i"},"request":{"op":"start_run","workflow":"w","task":"t","forward":true}}`
	for _, s := range []string{good, strings.Replace(good, "start_run", "snapshot", 1), good + "{}", `{"id":"` + id + `"}`,
		`{"id":"` + id + `","requester":{"pid":7,"instance":"i"},"request":{"op":"add_workflow","workflow":{"name":"x"},"id":[1]}}`, `null`, `[]`, ``} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fr, err := decodeForwardRequest(id, data)
		if fr == nil {
			t.Fatal("nil request")
		}
		if err != nil {
			return
		}
		if fr.ID != id || fr.Requester.Instance == "" || fr.Requester.PID <= 0 || !forwardable[fr.Request.Op] || fr.Request.Forward || fr.Request.ID != nil {
			t.Fatalf("accepted %q as %+v", data, fr)
		}
		b, err := json.Marshal(fr) // as a requester writes it
		if err != nil {
			t.Fatal(err)
		}
		again, err := decodeForwardRequest(id, b)
		if err != nil {
			t.Fatalf("re-encoded %q is refused: %v", b, err)
		}
		if b2, _ := json.Marshal(again); !bytes.Equal(b, b2) {
			t.Fatalf("round trip changes the request: %q, then %q", b, b2)
		}
	})
}
