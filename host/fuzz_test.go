package host

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"sync"
	"testing"
)

// FuzzParseRequest: any line gives a request or an error, never a panic; an accepted
// request has an op.
//
//	go test ./host -run '^$' -fuzz FuzzParseRequest -fuzztime 2m
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
	fuzzWin     *Window
)

// FuzzControlLines feeds a window's control channel arbitrary input: every output line is
// one JSON object, every request line gets exactly one reply with its id, and the window
// keeps serving. The window is a writer on a private home, so valid writes really save.
//
//	go test ./host -run '^$' -fuzz FuzzControlLines -fuzztime 2m
func FuzzControlLines(f *testing.F) {
	for _, s := range []string{
		"{\"id\":1,\"op\":\"status\"}\n{\"id\":2,\"op\":\"snapshot\"}\n",
		"garbage\n{\"op\":\"nope\"}\n\n\r\n",
		"{\"id\":\"a\",\"op\":\"add_workflow\",\"workflow\":{\"name\":\"w\",\"steps\":[{\"argv\":[\"true\"],\"env\":{\"A_TOKEN\":\"x\"}}]}}\n",
		"{\"id\":3,\"op\":\"delete_workflow\",\"workflow\":\"w\"}\n{\"id\":4,\"op\":\"history\",\"limit\":-1}\n",
		"{\"id\":5,\"op\":\"add_schedule\",\"schedule\":{\"workflow\":\"w\",\"every\":\"1s\"}}\n",
		"{\"id\":6,\"op\":\"audit\",\"max\":-5}\n{\"id\":7,\"op\":\"update_schedule\",\"schedule\":7}\n",
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
		// No shutdown: it ends Serve early, which the counting below does not model.
		input = bytes.ReplaceAll(input, []byte("shutdown"), []byte("shutdow_"))
		var out bytes.Buffer
		c := NewControl(fuzzWin, &out)
		if err := c.Serve(bytes.NewReader(input)); err == nil {
			t.Fatal("Serve returned nil without a shutdown")
		}
		want := 0
		for _, l := range strings.Split(string(input), "\n") {
			if len(bytes.TrimSpace([]byte(strings.TrimRight(l, "\r")))) > 0 {
				want++
			}
		}
		got := 0
		sc := bufio.NewScanner(&out)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			var m map[string]any
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				t.Fatalf("output line is not a JSON object: %q", sc.Text())
			}
			if _, ok := m["ok"]; !ok {
				t.Fatalf("reply without ok: %q", sc.Text())
			}
			got++
		}
		if got != want {
			t.Fatalf("%d request lines, %d replies; input %q; output %q", want, got, input, out.String())
		}
	})
}
