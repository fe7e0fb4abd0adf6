package forward

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"baton/store"
)

// strict is a Decoder for the tests: no unknown field, nothing after the value. (The core
// gives a stricter one: host's decodeObject.)
func strict(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("trailing data")
	}
	return nil
}

// home returns a home with requests/ and replies/, as the core creates them.
func home(t *testing.T) string {
	h := t.TempDir()
	for _, d := range []string{RequestsDir, RepliesDir} {
		if err := os.Mkdir(filepath.Join(h, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	return h
}

type op struct {
	Op string `json:"op"`
}

var requester = store.Owner{PID: 7, Start: 1, Boot: "b", Instance: "i"}

// TestParseName: only the protocol's names are request names; temp files are not.
func TestParseName(t *testing.T) {
	id := strings.Repeat("0f", 16)
	for _, name := range []string{id + ".json", id + ".withdrawn", id + ".taken-x"} {
		if _, ok := ParseName(name); !ok {
			t.Errorf("%s: not a request name", name)
		}
	}
	if n, _ := ParseName(id + ".taken-inst.7.1.b"); n.ID != id || n.Claim != "inst.7.1.b" || n.Suffix != ".taken-inst.7.1.b" {
		t.Errorf("taken name parsed as %+v", n)
	}
	for _, name := range []string{id + ".taken-", id[1:] + ".json", strings.ToUpper(id) + ".json", id + ".tmp", ".baton-tmp-" + id + ".json-1-2"} {
		if _, ok := ParseName(name); ok {
			t.Errorf("%s: taken for a request name", name)
		}
	}
	if id, err := NewID(); err != nil || !ValidID(id) {
		t.Errorf("NewID() = %q, %v: not a valid id", id, err)
	}
	if inst, tag := SplitClaim(ClaimOf("inst", "7.1.b")); inst != "inst" || tag != "7.1.b" {
		t.Errorf("SplitClaim(ClaimOf) = %q, %q", inst, tag)
	}
}

// TestDecodeRequest: the envelope of a request file is untrusted input: one object, its
// own id, a requester, at most MaxFile bytes.
func TestDecodeRequest(t *testing.T) {
	id := strings.Repeat("0f", 16)
	good := `{"id":"` + id + `","requester":{"pid":7,"start":1,"boot":"b","instance":"i"},"request":{"op":"start_run"}}`
	fr, err := DecodeRequest[op](id, []byte(good), strict)
	if err != nil || fr.Request.Op != "start_run" || fr.Requester != requester {
		t.Fatalf("good request: %+v, %v", fr, err)
	}
	bad := map[string]string{
		"other id":     strings.Replace(good, id, strings.Repeat("1f", 16), 1),
		"no requester": strings.Replace(good, `"instance":"i"`, `"instance":""`, 1),
		"no pid":       strings.Replace(good, `"pid":7`, `"pid":0`, 1),
		"not object":   `["` + id + `"]`,
		"empty":        ``,
		"too large":    good + strings.Repeat(" ", MaxFile),
		"unknown":      strings.Replace(good, `"id"`, `"x":1,"id"`, 1), // the decoder's refusal is passed on
	}
	for what, s := range bad {
		fr, err := DecodeRequest[op](id, []byte(s), strict)
		if err == nil {
			t.Errorf("%s: accepted", what)
		}
		if fr == nil {
			t.Errorf("%s: nil request", what)
		}
	}
}

// TestClaimOrWithdraw: a request is claimed by one writer or withdrawn by its requester,
// never both, and a second writer cannot claim what the first took.
func TestClaimOrWithdraw(t *testing.T) {
	h := home(t)
	submit := func() Name {
		id, _ := NewID()
		if err := Submit(h, &Request[op]{ID: id, Requester: requester, Request: op{"start_run"}}); err != nil {
			t.Fatal(err)
		}
		names, err := Pending(h)
		if err != nil || len(names) != 1 || names[0].ID != id || names[0].Suffix != ".json" {
			t.Fatalf("pending after submit: %+v, %v", names, err)
		}
		return names[0]
	}
	n := submit()
	path, ok := Claim(h, n, "a.1.1.b")
	if !ok || filepath.Base(path) != n.ID+".taken-a.1.1.b" {
		t.Fatalf("claim: %q, %v", path, ok)
	}
	if _, ok := Claim(h, n, "b.2.1.b"); ok {
		t.Fatal("a second writer claimed a taken request")
	}
	if err := Withdraw(h, n.ID); err == nil {
		t.Fatal("a taken request was withdrawn")
	}
	names, _ := Pending(h)
	if again, ok := Claim(h, names[0], "a.1.1.b"); !ok || again != path {
		t.Fatalf("the claimer's own claim: %q, %v", again, ok)
	}
	if _, ok := Claim(h, names[0], "b.2.1.b"); !ok { // the core decided the claimer is gone
		t.Fatal("a claim of a gone writer could not be taken over")
	}
	_ = os.Remove(RequestPath(h, n.ID, ".taken-b.2.1.b"))

	n = submit()
	if err := Withdraw(h, n.ID); err != nil {
		t.Fatal(err)
	}
	if _, ok := Claim(h, n, "a.1.1.b"); ok {
		t.Fatal("a withdrawn request was claimed")
	}
	if left := ListDir(filepath.Join(h, RequestsDir)); len(left) != 0 {
		t.Fatalf("withdrawal left %v", left)
	}
	big := &Request[op]{ID: n.ID, Requester: requester, Request: op{strings.Repeat("x", MaxFile)}}
	if err := Submit(h, big); err == nil {
		t.Fatal("a request over MaxFile was written")
	}
}

// TestReply: a reply is read back strictly and turned into the reply or the refusal; the
// watch wakes the waiter for its id; Answered removes the reply and a dead writer's claim.
func TestReply(t *testing.T) {
	h := home(t)
	ctx := t.Context()
	rw, err := Watch(ctx, h)
	if err != nil {
		t.Fatal(err)
	}
	id, _ := NewID()
	changed, stop := rw.Await(id)
	defer stop()
	if rep, err := ReadReply(h, id, strict); rep != nil || !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("no reply yet: %v, %v", rep, err)
	}
	ok, err := OK(map[string]any{"generation": 3})
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = WriteReply(h, &Reply{ID: id, Requester: requester, WriterPID: 42, Outcome: ok}) }()
	rep, err := AwaitReply(ctx, changed, h, id, strict)
	if err != nil || rep == nil {
		t.Fatalf("await: %v, %v", rep, err)
	}
	m, refused, err := rep.Result()
	if err != nil || refused != nil || m["forwarded_to"] != 42 || m["generation"] != json.Number("3") || m["ok"] != nil {
		t.Fatalf("result %v, %v, %v", m, refused, err)
	}
	rep.Outcome = Refused("not_found", errors.New("no such workflow"))
	if _, refused, err := rep.Result(); err != nil || refused == nil || *refused != (Refusal{"not_found", "no such workflow"}) {
		t.Fatalf("refusal read as %v, %v", refused, err)
	}
	rep.Outcome = json.RawMessage(`null`)
	if _, _, err := rep.Result(); err == nil {
		t.Fatal("an outcome of null was taken")
	}
	claim := RequestPath(h, id, ".taken-a.1.1.b")
	if err := os.WriteFile(claim, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	Answered(h, id)
	if left := append(ListDir(filepath.Join(h, RequestsDir)), ListDir(filepath.Join(h, RepliesDir))...); len(left) != 0 {
		t.Fatalf("answered left %v", left)
	}
	if err := os.WriteFile(ReplyPath(h, id), []byte(`{"id":"`+id+`","extra":1}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadReply(h, id, strict); err == nil || errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a reply with an unknown field: %v", err)
	}
}

// TestSweep: replies and withdrawn requests go when their requester is dead or they name
// none; a live requester's stay, and so do new and claimed requests.
func TestSweep(t *testing.T) {
	h := home(t)
	dead, live := store.Owner{PID: 8, Instance: "dead"}, requester
	ids := make([]string, 6)
	for i := range ids {
		ids[i], _ = NewID()
	}
	write := func(path string, v any) {
		b, _ := json.Marshal(v)
		if err := os.WriteFile(path, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(ReplyPath(h, ids[0]), Reply{ID: ids[0], Requester: dead})
	write(ReplyPath(h, ids[1]), Reply{ID: ids[1], Requester: live})
	write(RequestPath(h, ids[2], ".withdrawn"), Request[op]{ID: ids[2], Requester: dead})
	write(RequestPath(h, ids[3], ".withdrawn"), Request[op]{ID: ids[3], Requester: live})
	write(RequestPath(h, ids[4], ".json"), Request[op]{ID: ids[4], Requester: dead})
	write(RequestPath(h, ids[5], ".taken-x"), Request[op]{ID: ids[5], Requester: dead})
	if err := os.WriteFile(ReplyPath(h, strings.Repeat("9", 32)), []byte("not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	Sweep(h, func(string) bool { return false }, func(o store.Owner) bool { return o == live })
	want := map[string]bool{
		filepath.Join(RepliesDir, ids[1]+".json"):       true,
		filepath.Join(RequestsDir, ids[3]+".withdrawn"): true,
		filepath.Join(RequestsDir, ids[4]+".json"):      true,
		filepath.Join(RequestsDir, ids[5]+".taken-x"):   true,
	}
	var left []string
	for _, d := range []string{RequestsDir, RepliesDir} {
		for _, p := range ListDir(filepath.Join(h, d)) {
			left = append(left, filepath.Join(d, filepath.Base(p)))
		}
	}
	if len(left) != len(want) {
		t.Fatalf("after the sweep: %v, want %v", left, want)
	}
	for _, p := range left {
		if !want[p] {
			t.Fatalf("after the sweep: %v, want %v", left, want)
		}
	}
}
