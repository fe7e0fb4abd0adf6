package host

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"baton/store"
	"baton/workflow"
)

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
		for _, line := range []string{ // as the control channel (host/control) answers a line
			`{"id":1,"op":"add_workflow","workflow":{"name":` + string(raw) + `,"steps":[{"argv":["true"]}]}}`,
			`{"id":2,"op":"rename_workflow","workflow":"good","name":` + string(raw) + `}`,
		} {
			req, err := ParseRequest([]byte(line))
			if err != nil {
				t.Fatalf("%s: %v", line, err)
			}
			rep, err := Call(ctx, a, req)
			if r := Reply(req.ID, rep, err); r["code"] != "invalid" || !strings.Contains(r["error"].(string), "name") {
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
	t.Parallel()
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
