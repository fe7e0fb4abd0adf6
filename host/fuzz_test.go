package host

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
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

var (
	fuzzWinOnce sync.Once
	fuzzWin     *Core
)

// FuzzControlLines feeds a window's control channel arbitrary input: every output line is
// one JSON object with a boolean "ok", every non-blank request line gets exactly one reply,
// in order, and that reply echoes the request's id: the "id" member of a line whose first
// JSON value is an object, compared as JSON (null when absent, and for a line that is not
// a JSON object or is over MaxRequestLine). A shutdown request ends Serve after its reply;
// the lines after it get none. The window keeps serving. It is a writer on a private
// home, so valid writes really save.
//
//	go test -tags batontest ./host -run '^$' -fuzz FuzzControlLines -fuzztime 2m
func FuzzControlLines(f *testing.F) {
	for _, s := range []string{
		"{\"id\":1,\"op\":\"status\"}\n{\"id\":2,\"op\":\"snapshot\"}\n",
		"garbage\n{\"op\":\"nope\"}\n\n\r\n",
		"{\"id\":\"a\",\"op\":\"add_workflow\",\"workflow\":{\"name\":\"w\",\"steps\":[{\"argv\":[\"true\"],\"env\":{\"A_TOKEN\":\"x\"}}]}}\n",
		"{\"id\":3,\"op\":\"delete_workflow\",\"workflow\":\"w\"}\n{\"id\":4,\"op\":\"history\",\"limit\":-1}\n",
		"{\"id\":5,\"op\":\"add_schedule\",\"schedule\":{\"workflow\":\"w\",\"every\":\"1s\"}}\n",
		"{\"id\":6,\"op\":\"audit\",\"max\":-5}\n{\"id\":7,\"op\":\"update_schedule\",\"schedule\":7}\n",
		// ids of every JSON kind, an id with no op, trailing data, and an escaped shutdown
		// in the middle: the lines after it get no reply.
		"{\"id\":[1,{\"a\":null}],\"op\":\"status\"}\n{\"id\":{\"x\":\"\\u00e9<\"},\"op\":\"nope\"}\n{\"id\":1e400}\n{\"id\":12345678901234567890123,\"op\":\"status\"}{}\n" +
			"{\"id\":\"s\",\"op\":\"shut\\u0064own\"}\n{\"id\":\"after\",\"op\":\"status\"}\n",
		// A field of the wrong type in an object that has an id: the reply still carries it.
		"{\"id\":8,\"op\":\"history\",\"limit\":\"ten\"}\n{\"id\":9,\"op\":7}\n",
		// Strictness: duplicate and case-folded keys, bytes that are not UTF-8 (never echoed).
		"{\"id\":\"\\ud800\",\"op\":\"status\"}\n{\"id\":16,\"op\":\"status\",\"task\":\"\\udc00\"}\n" +
			"{\"id\":10,\"op\":\"status\",\"op\":\"shutdown\"}\n{\"id\":11,\"OP\":\"shutdown\"}\n{\"id\":12,\"Id\":13,\"op\":\"status\"}\n" +
			"{\"id\":\"\xff\xfe\",\"op\":\"status\"}\n{\"id\":14,\"op\":\"status\",\"task\":\"\xc3\"}\n{\"id\":15,\"id\":15,\"op\":\"status\"}\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, input []byte) {
		fuzzWinOnce.Do(func() {
			home, err := os.MkdirTemp("", "baton-fuzz-")
			if err != nil {
				panic(err)
			}
			fuzzWin, err = Open(home, Options{NoScheduler: true})
			if err != nil {
				panic(err)
			}
			if err := fuzzWin.Start(); err != nil {
				panic(err)
			}
		})
		var out bytes.Buffer
		c := NewControl(fuzzWin, &out)
		serveErr := c.Serve(bytes.NewReader(input))
		// The request lines, as Serve cuts them, and the id each reply must carry.
		var wantIDs []any
		segs := strings.Split(string(input), "\n")
		for k, l := range segs {
			size := len(l)
			if k < len(segs)-1 {
				size++ // its newline
			}
			line := []byte(strings.TrimRight(l, "\r\n"))
			if size > MaxRequestLine {
				wantIDs = append(wantIDs, nil)
			} else if len(bytes.TrimSpace(line)) > 0 {
				wantIDs = append(wantIDs, requestID(t, line))
			}
		}
		output := out.String()
		var replies []map[string]json.RawMessage
		sc := bufio.NewScanner(&out)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			var m map[string]json.RawMessage
			if !utf8.Valid(sc.Bytes()) {
				t.Fatalf("output line is not valid UTF-8: %q", sc.Text())
			}
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil || m == nil {
				t.Fatalf("output line is not a JSON object: %q", sc.Text())
			}
			if ok := string(m["ok"]); ok != "true" && ok != "false" {
				t.Fatalf("reply without a boolean ok: %q", sc.Text())
			}
			replies = append(replies, m)
		}
		if serveErr == nil {
			// A shutdown: its reply, {"id", "ok": true} and nothing else, is the last.
			last := map[string]json.RawMessage{}
			if len(replies) > 0 {
				last = replies[len(replies)-1]
			}
			if len(last) != 2 || string(last["ok"]) != "true" || len(replies) > len(wantIDs) {
				t.Fatalf("Serve stopped, but not after a shutdown reply: input %q; output %q", input, output)
			}
			wantIDs = wantIDs[:len(replies)]
		}
		if len(replies) != len(wantIDs) {
			t.Fatalf("%d request lines, %d replies; input %q; output %q", len(wantIDs), len(replies), input, output)
		}
		for k, m := range replies {
			raw, ok := m["id"]
			if !ok {
				t.Fatalf("reply %d has no id: input %q; output %q", k, input, output)
			}
			if got := jsonValue(t, raw); !reflect.DeepEqual(got, wantIDs[k]) {
				t.Fatalf("reply %d carries id %s, want %#v (request line %d); input %q; output %q", k, raw, wantIDs[k], k, input, output)
			}
		}
	})
}

// requestID is the id a reply to line must echo: the "id" member (encoding/json's
// reading) of the line's first JSON value if that is an object, the line is valid UTF-8,
// and the object has exactly one key that is "id" in any case, spelled "id" (strict
// decoding never echoes an ambiguous id); else null.
func requestID(t *testing.T, line []byte) any {
	var probe struct {
		ID json.RawMessage `json:"id"`
	}
	if !utf8.Valid(line) || idKeys(line) != 1 {
		return nil
	}
	if err := json.NewDecoder(bytes.NewReader(line)).Decode(&probe); err != nil || len(probe.ID) == 0 {
		return nil
	}
	if !jsontext.Value(probe.ID).IsValid() { // a lone surrogate escape or a duplicate key inside the id
		return nil
	}
	return jsonValue(t, probe.ID)
}

// idKeys counts the keys of the object that starts line that are "id" in any case; a key
// that is not spelled "id" counts twice (it makes the id ambiguous).
func idKeys(line []byte) int {
	dec := json.NewDecoder(bytes.NewReader(line))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return 0
	}
	n := 0
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return 0
		}
		if key, _ := tok.(string); strings.EqualFold(key, "id") {
			n++
			if key != "id" {
				n++
			}
		}
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return 0
		}
	}
	return n
}

// jsonValue decodes raw for comparison, keeping numbers as written (an echo keeps them).
func jsonValue(t *testing.T, raw []byte) any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("id %q does not decode: %v", raw, err)
	}
	return v
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
