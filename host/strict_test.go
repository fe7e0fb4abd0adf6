package host

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"baton/store"
	"baton/workflow"
)

// serveLines sends lines to a control channel on w and returns its replies, one per
// non-blank line, and whether Serve ended on a shutdown.
func serveLines(t *testing.T, w *Core, lines ...string) ([]map[string]any, bool) {
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

// badNames are names no entry accepts: control characters (C0, DEL, C1), an ESC
// sequence, bidirectional overrides and isolates, a line separator. (Spaces, tabs and
// newlines around a name are trimmed, as before, not refused.)
var badNames = []string{"a\x1b[31mred", "nul\x00", "two\nlines", "tab\tbed", "del\x7f", "c1\u0085x", "csi\u009b2J",
	"evil\u202egnp.exe", "iso\u2066late\u2069", "ls\u2028x"}

// Workflow names refuse control characters and bidi overrides at every entry: the
// control channel (add and rename), the window's intents, and a reader's request
// forwarded to the writer (the command line's road); each is "invalid" naming the
// field, and nothing is saved.
func TestWorkflowNamesRefuseControlCharacters(t *testing.T) {
	home := t.TempDir()
	a := openStarted(t, home)
	b := openStarted(t, home) // a reader: its writes go to a
	ctx := context.Background()
	if _, err := a.Intents().AddWorkflow(ctx, oneStep("good", "fail", "true")); err != nil {
		t.Fatal(err)
	}
	for _, name := range badNames {
		raw, _ := json.Marshal(name)
		replies, _ := serveLines(t, a,
			`{"id":1,"op":"add_workflow","workflow":{"name":`+string(raw)+`,"steps":[{"argv":["true"]}]}}`,
			`{"id":2,"op":"rename_workflow","workflow":"good","name":`+string(raw)+`}`)
		for _, r := range replies {
			if r["code"] != "invalid" || !strings.Contains(r["error"].(string), "name") {
				t.Errorf("channel, name %q: %v, want invalid naming the name", name, r)
			}
		}
		if _, err := a.Intents().AddWorkflow(ctx, oneStep(name, "fail", "true")); !errors.Is(err, workflow.ErrInvalid) {
			t.Errorf("intents, name %q: %v, want invalid", name, err)
		}
		var fe store.FieldErrors
		if _, err := a.Intents().RenameWorkflow(ctx, "good", name); !errors.As(err, &fe) || fe[0].Field != "name" {
			t.Errorf("intents rename to %q: %v, want a field error on name", name, err)
		}
		_, err := Call(ctx, b, &Request{Op: "add_workflow", Workflow: json.RawMessage(`{"name":` + string(raw) + `,"steps":[{"argv":["true"]}]}`), Forward: true})
		if ErrorCode(err) != "invalid" {
			t.Errorf("forwarded, name %q: %v, want invalid", name, err)
		}
	}
	if d := a.Snapshot(); len(d.Workflows) != 1 || d.Workflows[0].Name != "good" {
		t.Fatalf("a bad name was saved: %+v", d.Workflows)
	}
	// Names of any script are fine.
	for _, name := range []string{"Résumé ✓", "日本語", "مرحبا", "a b-c_d.e"} {
		if _, err := a.Intents().AddWorkflow(ctx, oneStep(name, "fail", "true")); err != nil {
			t.Errorf("name %q refused: %v", name, err)
		}
	}
}

// A name from an older home (saved before names were checked) is printed by the command
// line escaped, never raw: no ESC sequence or bidi override reaches the terminal.
func TestCLIPrintsOddNamesEscaped(t *testing.T) {
	home := t.TempDir()
	w := openStarted(t, home)
	odd := "old\x1b[2J\u202eboom"
	if _, err := w.currentTerm().Update(context.Background(), func(d *store.Doc) error {
		d.Workflows = append(d.Workflows, oneStep(odd, "fail", "true"))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	run := cliCmd(home, "run", odd, "--wait")
	list := cliCmd(home, "workflows")
	runs := cliCmd(home, "runs")
	for _, o := range []cliOut{run, list, runs} {
		if o.code != 0 {
			t.Fatalf("exit %d: %s %s", o.code, o.stdout, o.stderr)
		}
		if strings.ContainsAny(o.stdout+o.stderr, "\x1b\u202e") {
			t.Errorf("printed raw: %q", o.stdout+o.stderr)
		}
		if !strings.Contains(o.stdout, `"old\x1b[2J\u202eboom"`) {
			t.Errorf("the name is not printed escaped: %q", o.stdout)
		}
	}
}
