package control

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

	"baton/host"
	"baton/workflow"
)

func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == workflow.SuperviseArg { // a run's supervisor
		os.Exit(workflow.SuperviseMain(os.Args[2:]))
	}
	os.Exit(m.Run())
}

// openStarted opens a core on home and starts it; the test's end closes it.
func openStarted(t *testing.T, home string) *host.Core {
	t.Helper()
	w, err := host.Open(home, host.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	return w
}

// serveLines sends lines to a control channel on w and returns its replies, one per
// non-blank line, and whether Serve ended on a shutdown.
func serveLines(t *testing.T, w *host.Core, lines ...string) ([]map[string]any, bool) {
	t.Helper()
	var out bytes.Buffer
	err := NewControl(w, &out).Serve(strings.NewReader(strings.Join(lines, "\n") + "\n"))
	var replies []map[string]any
	for _, l := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
		if l == "" {
			continue
		}
		if !utf8.ValidString(l) || !json.Valid([]byte(l)) {
			t.Fatalf("reply line is not valid UTF-8 JSON: %q", l)
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatal(err)
		}
		replies = append(replies, m)
	}
	return replies, err == nil
}

// The control channel is strict: a duplicated key (even spelled with escapes), a known
// key in another case (at the top or inside a workflow, schedule or retention) and a
// string that is not valid UTF-8 are each "invalid" and do nothing; the refusal echoes
// the id only when it is unambiguous, and never echoes bytes that are not UTF-8.
func TestControlStrictDecoding(t *testing.T) {
	w := openStarted(t, t.TempDir())
	wf := `{"name":"w","steps":[{"argv":["true"]}]}`
	cases := []struct {
		line   string
		id     any // the id the refusal carries
		inText string
	}{
		{`{"id":1,"op":"status","op":"shutdown"}`, 1.0, "duplicate"},
		{`{"id":2,"op":"status","o\u0070":"shutdown"}`, 2.0, "duplicate"},
		{`{"id":3,"OP":"shutdown"}`, 3.0, "case-sensitive"},
		{`{"id":4,"op":"start_run","Workflow":"w"}`, 4.0, "case-sensitive"},
		{`{"id":5,"Id":6,"op":"status"}`, nil, "case-sensitive"},
		{`{"id":7,"op":"add_workflow","workflow":{"NAME":"x","steps":[{"argv":["true"]}]}}`, 7.0, "case-sensitive"},
		{`{"id":8,"op":"add_workflow","workflow":{"name":"x","name":"y","steps":[{"argv":["true"]}]}}`, 8.0, "duplicate"},
		{`{"id":12,"id":12,"op":"status"}`, nil, "duplicate"},
		{`{"id":9,"op":"add_schedule","schedule":{"Workflow":"w","every":"1m"}}`, 9.0, "case-sensitive"},
		{`{"id":10,"op":"set_retention","retention":{"Keep_Runs":5}}`, 10.0, "case-sensitive"},
		{"{\"id\":\"\xff\xfe\",\"op\":\"status\"}", nil, "UTF-8"},
		{`{"id":13,"op":"start_run","workflow":"w","task":"\ud800"}`, 13.0, "surrogate"},
		{"{\"id\":11,\"op\":\"add_workflow\",\"workflow\":{\"name\":\"w\xc3\",\"steps\":[{\"argv\":[\"true\"]}]}}", nil, "UTF-8"},
	}
	for _, c := range cases {
		replies, shut := serveLines(t, w, c.line)
		if shut || len(replies) != 1 {
			t.Fatalf("%q: shutdown %v, replies %v", c.line, shut, replies)
		}
		r := replies[0]
		if r["ok"] != false || r["code"] != "invalid" || !strings.Contains(r["error"].(string), c.inText) || r["id"] != c.id {
			t.Errorf("%q: reply %v, want invalid naming %q with id %v", c.line, r, c.inText, c.id)
		}
	}
	if d := w.Snapshot(); len(d.Workflows) != 0 || len(d.Schedules) != 0 {
		t.Fatalf("a refused request changed the document: %+v %+v", d.Workflows, d.Schedules)
	}
	// The same requests spelled right are served; a blank line gets no reply.
	replies, shut := serveLines(t, w, `{"id":1,"op":"add_workflow","workflow":`+wf+`}`, "", "  ", `{"id":2,"op":"status","unknown_key":1}`)
	if shut || len(replies) != 2 || replies[0]["ok"] != true || replies[1]["ok"] != true {
		t.Fatalf("good requests: %v", replies)
	}
}

var (
	fuzzWinOnce sync.Once
	fuzzWin     *host.Core
)

// FuzzControlLines feeds a window's control channel arbitrary input: every output line is
// one JSON object with a boolean "ok", every non-blank request line gets exactly one reply,
// in order, and that reply echoes the request's id: the "id" member of a line whose first
// JSON value is an object, compared as JSON (null when absent, and for a line that is not
// a JSON object or is over MaxRequestLine). A shutdown request ends Serve after its reply;
// the lines after it get none. The window keeps serving. It is a writer on a private
// home, so valid writes really save.
//
//	go test -tags batontest ./host/control -run '^$' -fuzz FuzzControlLines -fuzztime 2m
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
			fuzzWin, err = host.Open(home, host.Options{NoScheduler: true})
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
			if size > host.MaxRequestLine {
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
