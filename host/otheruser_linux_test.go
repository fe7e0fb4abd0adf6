package host

// Another local user against the home: child processes run as uid 65534 (no account
// needed: SysProcAttr.Credential; we run as root) and try every way in through the files
// of a home whose modes were opened up, before and during a writer's life.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"baton/host/forward"
	"baton/store"
)

// asOther runs sh -c script as uid/gid 65534 in /, with stdin, and returns its output
// and error.
func asOther(script string, stdin []byte) (string, error) {
	cmd := exec.Command("/bin/sh", "-c", script)
	cmd.Dir = "/"
	cmd.Env = []string{"PATH=/usr/bin:/bin"}
	cmd.Stdin = bytes.NewReader(stdin)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// reachableBase returns a fresh folder that the other user can reach (its parents are
// opened for search); the home goes inside it.
func reachableBase(t *testing.T) string {
	t.Helper()
	base := t.TempDir()
	for _, d := range []string{base, filepath.Dir(base)} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return base
}

// evilRequest is a forwarded request file that adds workflow name, whose step would
// create mark: what another user would put in requests/.
func evilRequest(t *testing.T, name, mark string) (id string, body []byte) {
	t.Helper()
	id, err := forward.NewID()
	if err != nil {
		t.Fatal(err)
	}
	wf, _ := json.Marshal(map[string]any{"name": name, "max_concurrent": 1, "on_owner_lost": "fail",
		"steps": []any{map[string]any{"argv": []string{"touch", mark}}}})
	body, err = json.Marshal(forwardRequest{ID: id, Requester: store.Owner{Instance: "intruder", PID: 1},
		Request: Request{Op: "add_workflow", Workflow: wf}})
	if err != nil {
		t.Fatal(err)
	}
	return id, body
}

// openUp gives everyone every access to everything in home (chmod -R a+rwX).
func openUp(t *testing.T, home string) {
	t.Helper()
	if out, err := exec.Command("chmod", "-R", "a+rwX", home).CombinedOutput(); err != nil {
		t.Fatalf("chmod: %v: %s", err, out)
	}
}

// otherCannotRead fails if the other user can list, read or create anything in home.
func otherCannotRead(t *testing.T, home string) {
	t.Helper()
	var paths []string
	err := filepath.WalkDir(home, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		paths = append(paths, p)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) < 8 {
		t.Fatalf("only %d entries in the home: %v", len(paths), paths)
	}
	var script strings.Builder
	for _, p := range paths {
		q := shellQuote(p)
		// Each attempt prints OPENED only if it got in.
		fmt.Fprintf(&script, "if [ -d %s ]; then ls %s >/dev/null 2>&1 && echo OPENED %s; else cat %s >/dev/null 2>&1 && echo OPENED %s; fi\n", q, q, q, q, q)
	}
	for _, d := range []string{forward.RequestsDir, forward.RepliesDir, "runs", ""} {
		q := shellQuote(filepath.Join(home, d, "intruder.json"))
		fmt.Fprintf(&script, "echo x > %s 2>/dev/null && echo OPENED %s\n", q, q)
	}
	out, _ := asOther(script.String(), nil)
	if strings.Contains(out, "OPENED") {
		t.Fatalf("the other user got in:\n%s", out)
	}
}

// notApplied fails if workflow name is in the home's document (workflows.json or a frame
// of workflows.wal: both hold JSON) or mark exists. It reads the raw files: the store
// itself refuses to read them while others may write them.
func notApplied(t *testing.T, home, name, mark string) {
	t.Helper()
	for _, f := range []string{store.FileName, store.WALName} {
		b, err := os.ReadFile(filepath.Join(home, f))
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		if bytes.Contains(b, []byte(`"name":"`+name+`"`)) {
			t.Fatalf("the other user's request was applied: workflow %q is in %s", name, f)
		}
	}
	if _, err := os.Stat(mark); err == nil {
		t.Fatal("the other user's step ran")
	}
}

// securedHome makes a home in a folder the other user can reach, with a workflow whose
// environment holds a secret and a finished run (so runs/ holds a log), through writer
// window a, which it returns still open.
func securedHome(t *testing.T) (home, marks string, a *child) {
	t.Helper()
	base := reachableBase(t)
	home, marks = filepath.Join(base, "home"), filepath.Join(base, "marks")
	if err := os.Mkdir(marks, 0o777); err != nil {
		t.Fatal(err)
	}
	a = startChild(t, home)
	if a.initialRole() != "writer" {
		t.Fatal("a is not the writer")
	}
	a.ok(map[string]any{"op": "add_workflow", "workflow": map[string]any{"name": "secret", "max_concurrent": 1,
		"on_owner_lost": "fail", "steps": []any{map[string]any{"argv": []string{"sh", "-c", "echo private output"},
			"env": map[string]string{"API_TOKEN": "tok-very-secret"}}}}})
	run := a.ok(map[string]any{"op": "start_run", "workflow": "secret"})["run"].(string)
	a.waitEvent(0, 20*time.Second, eventIs("run", "run", run, "status", "succeeded"))
	return home, marks, a
}

// TestOtherUserBeforeWriter: a home whose modes were opened up (chmod -R a+rwX) while no
// window was open, and into whose requests/ the other user put a request: the window
// opens read-only, naming an entry and one command; from then on the other user reads
// nothing in the home and can put nothing there; the request is never applied, neither
// while the home is unsafe nor after the command, which makes the window the writer.
func TestOtherUserBeforeWriter(t *testing.T) {
	t.Parallel()
	needRoot(t)
	home, marks, a := securedHome(t)
	if err := a.close(); err != nil {
		t.Fatal(err)
	}
	// A run's private folder (an incremental schedule's keeps its next watermark there).
	private := filepath.Join(home, "runs", "r9-0000abcd")
	if err := os.Mkdir(private, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(private, "watermark.out"), []byte("tok-very-secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	openUp(t, home)
	mark := filepath.Join(marks, "evil")
	id, body := evilRequest(t, "evil", mark)
	// The attack is real: before Baton opens the home, the other user reads the secret and
	// puts a request in.
	if out, err := asOther("cat "+shellQuote(filepath.Join(home, store.FileName)), nil); err != nil || !strings.Contains(out, "tok-very-secret") {
		t.Fatalf("the test's opened-up home is not readable to the other user: %v %s", err, out)
	}
	if out, err := asOther("cat > "+shellQuote(forward.RequestPath(home, id, ".json")), body); err != nil {
		t.Fatalf("the other user could not put a request in the opened-up home: %v %s", err, out)
	}
	// A process of the other user's goes into a run's folder while it can, and waits there:
	// a folder closed above it later does not stop it reading what is inside.
	lurker := exec.Command("/bin/sh", "-c", `read go; for f in ./*; do cat "$f" >/dev/null 2>&1 && echo "OPENED $f"; done; ls . >/dev/null 2>&1 && echo "OPENED ."; echo done`)
	lurker.Dir = private
	lurker.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	lurkIn, err := lurker.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var lurkOut bytes.Buffer
	lurker.Stdout, lurker.Stderr = &lurkOut, &lurkOut
	if err := lurker.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = lurker.Process.Kill(); _ = lurker.Wait() })

	b := startChild(t, home)
	if role := b.initialRole(); role != "reader" {
		t.Fatalf("a window on an opened-up home is the %s", role)
	}
	st := b.ok(map[string]any{"op": "status"})
	problem := fmt.Sprint(st["problem"])
	if !strings.Contains(problem, home) || !strings.Contains(problem, "make it safe with: ") {
		t.Fatalf("status problem: %q", problem)
	}
	if r := b.do(addWF("mine", 1, "fail")); r["ok"] != false || r["code"] != "read_only" {
		t.Fatalf("a write in the unsafe home: %v", r)
	}
	otherCannotRead(t, home)
	notApplied(t, home, "evil", mark)
	lurkIn.Write([]byte("go\n"))
	lurkIn.Close()
	if err := lurker.Wait(); err != nil || !strings.Contains(lurkOut.String(), "done") {
		t.Fatalf("the process in the run's folder: %v %s", err, lurkOut.String())
	}
	if strings.Contains(lurkOut.String(), "OPENED") {
		t.Fatalf("a process of the other user's inside a run's folder read what it holds:\n%s", lurkOut.String())
	}

	runSafeCommand(t, problem)
	b.waitWriter(30 * time.Second)
	otherCannotRead(t, home)
	// Two forwarded writes answered one after the other: the writer's passes over
	// requests/ are sequential, so the pass that would have taken the other user's request
	// is over when the second is answered.
	c := startChild(t, home)
	c.initialRole()
	for _, n := range []string{"legit1", "legit2"} {
		r := addWF(n, 1, "fail")
		r["forward"] = true
		c.ok(r)
	}
	notApplied(t, home, "evil", mark)
}

// TestOtherUserDuringWriter: a writer's home is opened up while it writes, and the other
// user keeps putting requests in. The writer steps down (it applies nothing of theirs),
// takes every read access away, and says what is wrong; the other user then reads
// nothing. Made safe step by step (chmod only: the other user's request files stay, now
// in a private folder), the home is written again, and each request file of the other
// user is left in place, never applied, and audited once.
func TestOtherUserDuringWriter(t *testing.T) {
	t.Parallel()
	needRoot(t)
	home, marks, a := securedHome(t)
	otherCannotRead(t, home)
	mark := filepath.Join(marks, "evil")

	// The other user tries, in a loop, to put request files in while the owner opens up.
	drop := filepath.Join(filepath.Dir(home), "drop")
	if err := os.Mkdir(drop, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 20; i++ {
		id, b := evilRequest(t, "evil", mark)
		if err := os.WriteFile(filepath.Join(drop, id+".json"), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	intruder := exec.Command("/bin/sh", "-c", `end=$(( $(date +%s) + 20 )); while [ $(date +%s) -lt $end ]; do
  for f in "$1"/*.json; do cp "$f" "$2/" 2>/dev/null; done; done`, "sh", drop, filepath.Join(home, forward.RequestsDir))
	intruder.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	if err := intruder.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = intruder.Process.Kill(); _ = intruder.Wait() })

	from := a.nEvents()
	openUp(t, home)
	a.waitEvent(from, 30*time.Second, func(e map[string]any) bool {
		return e["event"] == "role" && e["role"] == "reader" && strings.Contains(fmt.Sprint(e["problem"]), "make it safe with: ")
	})
	otherCannotRead(t, home)
	notApplied(t, home, "evil", mark)

	// Step by step, as a person might: only the modes. A request file of the other user's
	// is in requests/ (one the loop put there, or this one, given away as theirs).
	id, body := evilRequest(t, "evil", mark)
	planted := forward.RequestPath(home, id, ".json")
	tmp := filepath.Join(filepath.Dir(home), id+".json")
	if err := os.WriteFile(tmp, body, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(tmp, nobody, nobody); err != nil {
		t.Fatal(err)
	}
	_ = intruder.Process.Kill()
	_ = intruder.Wait()
	if out, err := exec.Command("chmod", "-R", "go-rwx", home).CombinedOutput(); err != nil {
		t.Fatalf("chmod: %v: %s", err, out)
	}
	from = a.nEvents()
	a.waitEvent(from, 30*time.Second, eventIs("role", "role", "writer"))
	if err := os.Rename(tmp, planted); err != nil {
		t.Fatal(err)
	}
	c := startChild(t, home)
	c.initialRole()
	for _, n := range []string{"legit1", "legit2", "legit3"} {
		r := addWF(n, 1, "fail")
		r["forward"] = true
		c.ok(r)
	}
	notApplied(t, home, "evil", mark)
	if _, err := os.Stat(planted); err != nil {
		t.Fatalf("the other user's request file was not left in place: %v", err)
	}
	n := 0
	entries, _ := store.NewAudit(home).Read(0)
	for _, e := range entries {
		var u store.Unsafe
		if e.Kind == store.KindUnsafe && e.Decode(&u) == nil && u.Path == planted && strings.Contains(u.Action, "never applied") {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("the ignored request file is audited %d times, want once", n)
	}
	otherCannotRead(t, home)
}
