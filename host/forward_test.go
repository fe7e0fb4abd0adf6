package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gofrs/flock"

	"baton/host/forward"
	"baton/store"
	"baton/workflow"
)

// Forwarding inside one process: two windows on one home, the real files and watches.

func wfJSON(name string) json.RawMessage {
	return json.RawMessage(fmt.Sprintf(`{"name":%q,"max_concurrent":1,"on_owner_lost":"fail","steps":[{"name":"s","argv":["true"]}]}`, name))
}

// forwardFiles lists what is left in requests/ and replies/.
func forwardFiles(home string) []string {
	var out []string
	for _, dir := range []string{forward.RequestsDir, forward.RepliesDir} {
		for _, p := range forward.ListDir(filepath.Join(home, dir)) {
			out = append(out, filepath.Join(dir, filepath.Base(p)))
		}
	}
	return out
}

// waitNoForwardFiles waits until requests/ and replies/ are empty.
func waitNoForwardFiles(t testing.TB, home string, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for len(forwardFiles(home)) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("forwarding files left behind: %v", forwardFiles(home))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestForwardInProcess: a reader's write with Forward is applied by the writer, recorded
// in Applied with its id, answered with forwarded_to, and leaves no file; without Forward
// the reader still refuses; the writer's refusal comes back with its code.
func TestForwardInProcess(t *testing.T) {
	home := t.TempDir()
	a := openStarted(t, home)
	b := openStarted(t, home)
	if a.Role() != RoleWriter || b.Role() != RoleReader {
		t.Fatalf("roles %v, %v", a.Role(), b.Role())
	}
	ctx := context.Background()
	if _, err := Call(ctx, b, &Request{Op: "add_workflow", Workflow: wfJSON("plain")}); !errors.Is(err, ErrReadOnly) {
		t.Fatalf("a write without forward from a reader: %v, want read_only", err)
	}
	rep, err := Call(ctx, b, &Request{Op: "add_workflow", Workflow: wfJSON("fw"), Forward: true})
	if err != nil {
		t.Fatal(err)
	}
	if rep["forwarded_to"] != os.Getpid() {
		t.Fatalf("reply %v does not name the writer", rep)
	}
	d := a.Snapshot()
	if d.Workflow("fw") == nil || d.Workflow("plain") != nil {
		t.Fatalf("writer's document: workflows %v", d.Workflows)
	}
	if len(d.Applied) != 1 || !forward.ValidID(d.Applied[0].ID) {
		t.Fatalf("Applied = %+v, want the one forwarded request", d.Applied)
	}
	_, err = Call(ctx, b, &Request{Op: "start_run", Workflow: json.RawMessage(`"nope"`), Forward: true})
	var fe *ForwardedError
	if !errors.As(err, &fe) || fe.Code != "not_found" || !errors.Is(err, workflow.ErrNotFound) || ErrorCode(err) != "not_found" {
		t.Fatalf("forwarded start_run of an unknown workflow: %v", err)
	}
	if d := a.Snapshot(); len(d.Applied) != 2 || !strings.Contains(string(d.Applied[1].Reply), "not_found") {
		t.Fatalf("the refusal is not recorded before it is answered: %+v", d.Applied)
	}
	waitNoForwardFiles(t, home, 5*time.Second)
}

// TestForwardWithdrawnWhenNoWriter: with nobody writing, a forwarded request times out
// with a conflict that says it was withdrawn, and the window that becomes the writer later
// never applies it.
func TestForwardWithdrawnWhenNoWriter(t *testing.T) {
	home := t.TempDir()
	hold := flock.New(filepath.Join(home, LockName)) // a writer that never answers
	if ok, err := hold.TryLock(); err != nil || !ok {
		t.Fatalf("hold state.lock: %v %v", ok, err)
	}
	b := openStarted(t, home)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	_, err := Call(ctx, b, &Request{Op: "add_workflow", Workflow: wfJSON("late"), Forward: true})
	if !errors.Is(err, workflow.ErrConflict) || !strings.Contains(err.Error(), "withdrawn") {
		t.Fatalf("forward with no writer: %v, want a conflict saying it was withdrawn", err)
	}
	if left := forwardFiles(home); len(left) > 0 {
		t.Fatalf("a withdrawn request left %v", left)
	}
	sub := b.Subscribe()
	_ = hold.Unlock()
	for b.Role() != RoleWriter {
		<-sub.C
	}
	if _, err := Call(context.Background(), b, &Request{Op: "add_workflow", Workflow: wfJSON("after")}); err != nil {
		t.Fatal(err)
	}
	if d := b.Snapshot(); d.Workflow("late") != nil || len(d.Applied) != 0 {
		t.Fatalf("a withdrawn request was applied: %v, applied %+v", d.Workflows, d.Applied)
	}
}

// TestRecordForwardedAppliesOnce: (forward.Recording, called by Term.Update) the id is looked for in the save that would apply the
// request again: a second apply changes nothing and says forward.ErrAlreadyApplied, and a failed
// change records nothing.
func TestRecordForwardedAppliesOnce(t *testing.T) {
	w := openStarted(t, t.TempDir())
	rec := &forward.Record{ID: strings.Repeat("ab", 16), At: time.Now()}
	ctx := forward.WithRecord(context.Background(), rec)
	def := func(name string) store.Workflow {
		return store.Workflow{Name: name, MaxConcurrent: 1, OnOwnerLost: "fail", Steps: []store.Step{{Argv: []string{"true"}}}}
	}
	if _, err := w.Intents().AddWorkflow(ctx, store.Workflow{Name: "bad"}); err == nil {
		t.Fatal("an invalid workflow was added")
	}
	if d := w.Snapshot(); len(d.Applied) != 0 {
		t.Fatalf("a failed change was recorded: %+v", d.Applied)
	}
	if _, err := w.Intents().AddWorkflow(ctx, def("first")); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Intents().AddWorkflow(ctx, def("second")); !errors.Is(err, forward.ErrAlreadyApplied) {
		t.Fatalf("second apply of one request: %v, want forward.ErrAlreadyApplied", err)
	}
	d := w.Snapshot()
	if d.Workflow("second") != nil || len(d.Applied) != 1 || d.Applied[0].ID != rec.ID {
		t.Fatalf("after two applies: workflows %v, applied %+v", d.Workflows, d.Applied)
	}
	var out map[string]any
	if err := json.Unmarshal(d.Applied[0].Reply, &out); err != nil || out["ok"] != true || out["generation"] != float64(d.Generation) {
		t.Fatalf("recorded outcome %s (err %v), want ok at generation %d", d.Applied[0].Reply, err, d.Generation)
	}
}

// TestForwardedReplyIsTheRecordedOne: the reply a requester gets from the writer that
// applies its request is the outcome recorded in Applied, which a later writer answers
// with (one builder, writeReply): for each write, with the run or schedule it added.
func TestForwardedReplyIsTheRecordedOne(t *testing.T) {
	home := t.TempDir()
	a := openStarted(t, home)
	b := openStarted(t, home)
	if a.Role() != RoleWriter || b.Role() != RoleReader {
		t.Fatalf("roles %v, %v", a.Role(), b.Role())
	}
	ctx := context.Background()
	for _, req := range []*Request{
		{Op: "add_workflow", Workflow: wfJSON("fw")},
		{Op: "start_run", Workflow: json.RawMessage(`"fw"`)},
		{Op: "add_schedule", Schedule: json.RawMessage(`{"workflow": "fw", "every": "1h"}`)},
		{Op: "add_schedule", Schedule: json.RawMessage(`{"workflow": "fw", "every": "1h", "paused": true}`)},
		{Op: "delete_workflow", Workflow: json.RawMessage(`"none"`)},
	} {
		req.Forward = true
		rep, err := Call(ctx, b, req)
		var fe *ForwardedError
		if err != nil && !errors.As(err, &fe) {
			t.Fatalf("%s: %v", req.Op, err)
		}
		d := a.Snapshot()
		var recorded map[string]any
		dec := json.NewDecoder(strings.NewReader(string(d.Applied[len(d.Applied)-1].Reply)))
		dec.UseNumber()
		if err := dec.Decode(&recorded); err != nil {
			t.Fatal(err)
		}
		if fe != nil { // a refusal: recorded as answered
			if recorded["ok"] != false || recorded["code"] != fe.Code || recorded["error"] != fe.Msg {
				t.Fatalf("%s: answered %v, recorded %v", req.Op, fe, recorded)
			}
			continue
		}
		delete(rep, "forwarded_to")
		delete(recorded, "ok")
		if fmt.Sprint(rep) != fmt.Sprint(recorded) {
			t.Fatalf("%s: answered %v, recorded %v", req.Op, rep, recorded)
		}
		if req.Op == "start_run" && rep["run"] == nil || req.Op == "add_schedule" && rep["schedule"] == nil {
			t.Fatalf("%s: reply %v names nothing it added", req.Op, rep)
		}
	}
}

// TestDecodeForwardRequest: the request file is untrusted input.
func TestDecodeForwardRequest(t *testing.T) {
	id := strings.Repeat("0f", 16)
	good := fmt.Sprintf(`{"id":%q,"requester":{"pid":7,"start":1,"boot":"b","instance":"i"},"request":{"op":"start_run","workflow":"w","forward":true}}`, id)
	fr, err := decodeForwardRequest(id, []byte(good))
	if err != nil || fr.Request.Op != "start_run" || fr.Request.Forward || fr.Requester.PID != 7 {
		t.Fatalf("good request: %+v, %v", fr, err)
	}
	bad := map[string]string{
		"unknown field":     strings.Replace(good, `"op"`, `"zz":1,"op"`, 1),
		"unknown top field": strings.Replace(good, `"id"`, `"x":1,"id"`, 1),
		"trailing data":     good + `{}`,
		"other id":          strings.Replace(good, id, strings.Repeat("1f", 16), 1),
		"no requester":      strings.Replace(good, `"instance":"i"`, `"instance":""`, 1),
		"read op":           strings.Replace(good, `"start_run"`, `"snapshot"`, 1),
		"request_write":     strings.Replace(good, `"start_run"`, `"request_write"`, 1),
		"wrong type":        strings.Replace(good, `"pid":7`, `"pid":"7"`, 1),
		"not json":          "not json",
		"too large":         good + strings.Repeat(" ", maxForwardFile),
	}
	for what, s := range bad {
		if _, err := decodeForwardRequest(id, []byte(s)); err == nil {
			t.Errorf("%s: accepted", what)
		}
	}
}

// TestMalformedRequestAnswered: a request file that does not decode is answered with an
// invalid reply, never applied, and the writer goes on serving.
func TestMalformedRequestAnswered(t *testing.T) {
	home := t.TempDir()
	a := openStarted(t, home)
	b := openStarted(t, home)
	id := strings.Repeat("c3", 16)
	if err := store.WriteFileAtomic(forward.RequestPath(home, id, ".json"), []byte(`{"id":"`+id+`","request":{"op":"start_run"},"extra":1}`), nil); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		if _, err := os.Stat(forward.RequestPath(home, id, ".json")); errors.Is(err, os.ErrNotExist) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the writer did not take the malformed request")
		}
		time.Sleep(10 * time.Millisecond)
	}
	// Answered (the claim goes), and the reply, which names no window, is removed as
	// abandoned at once.
	waitNoForwardFiles(t, home, 5*time.Second)
	if _, err := Call(context.Background(), b, &Request{Op: "add_workflow", Workflow: wfJSON("next"), Forward: true}); err != nil {
		t.Fatalf("the writer stopped serving after a malformed request: %v", err)
	}
	if d := a.Snapshot(); len(d.Applied) != 1 {
		t.Fatalf("Applied %+v, want only the good request", d.Applied)
	}
}

// TestForwardedReplyIsSeenAtOnce: once a forwarded call returns, the requester's own view
// holds the change the writer saved before answering, whether or not its watch brought it
// (here it has none: the window is open but not started).
func TestForwardedReplyIsSeenAtOnce(t *testing.T) {
	home := t.TempDir()
	a := openStarted(t, home)
	b, err := Open(home, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	g, err := a.Intents().AddWorkflow(context.Background(), store.Workflow{Name: "seen", Steps: []store.Step{{Argv: []string{"true"}}}})
	if err != nil {
		t.Fatal(err)
	}
	if b.Snapshot().Workflow("seen") != nil {
		t.Fatal("the requester saw the change before the reply: the test proves nothing")
	}
	rep := &forward.Reply{ID: "r", WriterPID: os.Getpid(), Outcome: json.RawMessage(fmt.Sprintf(`{"ok":true,"generation":%d}`, g))}
	if _, err := b.resultSeen(rep); err != nil {
		t.Fatal(err)
	}
	if d := b.Snapshot(); d.Workflow("seen") == nil || d.Generation < g {
		t.Fatalf("after the reply the requester's view is generation %d without the change, want %d", d.Generation, g)
	}
}
