package host

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"baton/store"
	"baton/workflow"
)

// TestLockFileAttacked: state.lock removed or replaced while the writer holds it. A new
// window then locks the new file and becomes the writer; the old writer must refuse its
// next save and stop, and the reader that was waiting on the old file must not take over
// when the old writer lets it go: never two writers.
func TestLockFileAttacked(t *testing.T) {
	for _, how := range []string{"removed", "replaced"} {
		t.Run(how, func(t *testing.T) {
			t.Parallel()
			home := t.TempDir()
			a := startChild(t, home)
			if a.initialRole() != "writer" {
				t.Fatal("a is not the writer")
			}
			a.ok(addWF("before", 1, "fail"))
			b := startChild(t, home)
			if b.initialRole() != "reader" {
				t.Fatal("b is not a reader")
			}
			lock := filepath.Join(home, LockName)
			if how == "removed" {
				if err := os.Remove(lock); err != nil {
					t.Fatal(err)
				}
			} else {
				tmp := lock + ".new"
				if err := os.WriteFile(tmp, nil, 0o600); err != nil {
					t.Fatal(err)
				}
				if err := os.Rename(tmp, lock); err != nil {
					t.Fatal(err)
				}
			}
			// The writer checks state.lock before each save: it must refuse and stop. If b
			// already took over on the new file (its lock watcher opened the path after the
			// change), a's refresh-before-write meets b's higher epoch first: fenced.
			r := a.do(addWF("from-a", 1, "fail"))
			msg := fmt.Sprint(r["error"])
			if r["ok"] != false || r["code"] != "read_only" || !(strings.Contains(msg, LockName) || strings.Contains(msg, "fenced")) {
				t.Fatalf("the writer whose lock was %s still wrote: %v", how, r)
			}
			a.waitEvent(0, 5*time.Second, eventIs("role", "role", "reader"))
			// a let go of the old file. b was waiting on it: holding it proves nothing, so b
			// must wait on the file now at the path. A new window c races b for that file.
			c := startChild(t, home)
			c.initialRole()
			// a waits again too, with a new identity: any one of the three may win. Wait for
			// the first writer event among them, then count (and count again at the end).
			aFrom, _ := a.waitEvent(0, time.Second, eventIs("role", "role", "reader"))
			newWriters := func() []*child {
				var writers []*child
				for _, x := range []*child{a, b, c} {
					from := 0
					if x == a { // a was the writer before; count only a new term
						from = aFrom
					}
					for _, e := range x.eventsCopy()[from:] {
						if e["event"] == "role" && e["role"] == "writer" {
							writers = append(writers, x)
							break
						}
					}
				}
				return writers
			}
			var writers []*child
			for deadline := time.Now().Add(10 * time.Second); len(writers) == 0 && time.Now().Before(deadline); {
				writers = newWriters()
				time.Sleep(2 * time.Millisecond) // polling for the event, not a synchronisation
			}
			if len(writers) != 1 {
				t.Fatalf("%d windows became the writer after the lock file was %s (want exactly 1)", len(writers), how)
			}
			wr := writers[0]
			wr.ok(addWF("from-new-writer", 1, "fail"))
			for _, x := range []*child{a, b, c} {
				if x == wr {
					continue
				}
				if r := x.do(addWF("from-"+fmt.Sprint(x.pid), 1, "fail")); r["ok"] != false {
					t.Fatalf("window %d wrote beside writer %d: %v", x.pid, wr.pid, r)
				}
			}
			if again := newWriters(); len(again) != 1 {
				t.Fatalf("%d windows became the writer after the lock file was %s (want exactly 1)", len(again), how)
			}
			names := diskNames(readDisk(t, home))
			if contains(names, "from-a") || !contains(names, "from-new-writer") || !contains(names, "before") {
				t.Fatalf("disk: %v", names)
			}
		})
	}
}

func TestNetworkFilesystemDetection(t *testing.T) {
	for magic, want := range map[int64]string{0x6969: "NFS", 0xFF534D42: "SMB/CIFS", 0xFE534D42: "SMB2/3",
		0x517B: "SMB", 0x65735546: "FUSE", 0x01021997: "9P", 0x00C36400: "Ceph"} {
		if got, ok := networkFilesystem(magic); !ok || got != want {
			t.Errorf("magic 0x%X: %q %v, want %q", magic, got, ok, want)
		}
	}
	for _, local := range []int64{0xEF53 /* ext4 */, 0x58465342 /* xfs */, 0x9123683E /* btrfs */, 0x01021994 /* tmpfs */, 0x794C7630 /* overlay */} {
		if name, ok := networkFilesystem(local); ok {
			t.Errorf("local magic 0x%X taken for %s", local, name)
		}
	}
	home := t.TempDir()
	if w := filesystemWarning(home); w != "" {
		t.Fatalf("local temp folder warned: %s", w)
	}
	// A window on an NFS home says so in its status and its role events.
	hooks.statfs = func(string) (int64, error) { return 0x6969, nil }
	defer func() { hooks.statfs = nil }()
	w, err := Open(home, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	sub := w.Subscribe()
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(w.Warning(), "NFS") || !strings.Contains(w.Warning(), "single-writer guarantee does not hold") {
		t.Fatalf("warning: %q", w.Warning())
	}
	for e := range sub.C {
		if e.Kind == EventRole {
			if !strings.Contains(e.Problem, "NFS") {
				t.Fatalf("role event without the warning: %+v", e)
			}
			break
		}
	}
	rep, err := Call(context.Background(), w, &Request{Op: "status"}) // as the control channel answers it
	if line, _ := json.Marshal(Reply(json.RawMessage("1"), rep, err)); !strings.Contains(string(line), `"warning":"the home folder`) {
		t.Fatalf("status reply lacks the warning: %s", line)
	}
}

// goodHome makes a home with generations 1..3 (workflows a and b) and closes its window,
// so workflows.prev.json holds generation 2.
func goodHome(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	w := openStarted(t, home)
	for _, n := range []string{"a", "b"} {
		if _, err := w.Intents().AddWorkflow(context.Background(), store.Workflow{Name: n, Steps: []store.Step{{Argv: []string{"true"}}}}); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	return home
}

// TestHostileWorkflowsFile: each broken or hostile workflows.json is refused with a clear
// message; the file is kept untouched; the window stays useful read-only and points at
// workflows.prev.json; restoring that file makes the window the writer again.
func TestHostileWorkflowsFile(t *testing.T) {
	cases := []struct{ name, content, want string }{
		{"truncated", `{"schema":1,"generation":3,"epoch":1,"workflows":[{"name":"a"`, "not valid JSON"},
		{"not json", "#!/bin/sh\nrm -rf ~\n", "not valid JSON"},
		{"newer schema", `{"schema":9,"generation":1,"epoch":1,"hologram":{}}`, "upgrade Baton"},
		{"duplicate key", `{"schema":1,"generation":4,"generation":1,"epoch":1,"workflows":[],"runs":[]}`, `duplicate key "generation"`},
		{"case variant", `{"schema":1,"Schema":2,"generation":4,"epoch":1,"workflows":[],"runs":[]}`, `keys "schema" and "Schema"`},
		{"unknown field", `{"schema":1,"generation":4,"epoch":1,"workflows":[],"runs":[],"extra":1}`, `unknown field "extra"`},
		{"huge", `{"schema":1,"generation":4,"epoch":1,"workflows":[],"runs":[]}` + strings.Repeat(" ", 70000), "over the cap"},
		{"run id escapes the home", `{"schema":1,"generation":4,"epoch":1,"workflows":[{"name":"w","max_concurrent":1,"on_owner_lost":"fail","steps":[{"argv":["true"]}]}],"runs":[{"id":"../../escape","workflow":"w","status":"queued","step":0,"steps":1,"seq":1,"created":"2026-01-01T00:00:00Z"}]}`, "path separator"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			home := goodHome(t)
			path := filepath.Join(home, store.FileName)
			if err := os.WriteFile(path, []byte(tc.content), 0o600); err != nil {
				t.Fatal(err)
			}
			w, err := Open(home, Options{MaxSize: 64 << 10})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { w.Close() })
			if err := w.Start(); err != nil {
				t.Fatal(err)
			}
			st := w.Status()
			if st.Role != RoleReader || !strings.Contains(st.Problem, tc.want) || !strings.Contains(st.Problem, store.PrevName) {
				t.Fatalf("status: role %s, problem %q; want read-only naming %q and %s", st.Role, st.Problem, tc.want, store.PrevName)
			}
			_, err = w.Intents().AddWorkflow(context.Background(), store.Workflow{Name: "x", Steps: []store.Step{{Argv: []string{"true"}}}})
			if !errors.Is(err, ErrReadOnly) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("write over a bad file: %v", err)
			}
			if got, _ := os.ReadFile(path); string(got) != tc.content {
				t.Fatal("the bad file was changed")
			}
			if _, err := w.Intents().Audit(0); err != nil { // still useful read-only
				t.Fatal(err)
			}
			_ = w.Snapshot()
			if _, err := os.Stat(filepath.Join(filepath.Dir(home), "escape")); err == nil {
				t.Fatal("something was written outside the home")
			}
			// Restore the previous generation as the message says: the window takes over.
			prev, err := os.ReadFile(filepath.Join(home, store.PrevName))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path+".restore", prev, 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(path+".restore", path); err != nil {
				t.Fatal(err)
			}
			waitRole(t, w, RoleWriter)
			if w.Snapshot().Workflow("a") == nil {
				t.Fatal("restored generation lacks workflow a")
			}
		})
	}
}

// TestHomeRefusesUnsafeEntries: an entry of the home that is a symlink, a FIFO, owned by
// another user or writable by others makes the window read-only: nothing is written, the
// problem names the entry and gives one command, the refusal is audited, and running
// that command makes the home safe (the window then writes, unless the entry was the
// document itself, now gone). An entry readable by others has that access taken away
// at once, audited, and the window writes.
func TestHomeRefusesUnsafeEntries(t *testing.T) {
	t.Parallel()
	outside := filepath.Join(t.TempDir(), "target")
	if err := os.WriteFile(outside, []byte("precious"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, e := range homeEntries {
		attacks := []string{"symlink", "other owner", "world-writable", "group-readable"}
		if !e.dir {
			attacks = append(attacks, "fifo")
		}
		for _, attack := range attacks {
			t.Run(e.name+"/"+attack, func(t *testing.T) {
				home := goodHome(t)
				p := filepath.Join(home, e.name)
				mk := func(mode os.FileMode) error { // the entry as it is, or made
					if _, err := os.Lstat(p); err != nil {
						if e.dir {
							err = os.Mkdir(p, 0o700)
						} else {
							err = os.WriteFile(p, nil, 0o600)
						}
						if err != nil {
							return err
						}
					}
					return os.Chmod(p, mode)
				}
				if attack == "symlink" || attack == "fifo" {
					if err := os.RemoveAll(p); err != nil {
						t.Fatal(err)
					}
				}
				var err error
				switch attack {
				case "symlink":
					err = os.Symlink(outside, p)
				case "other owner":
					if os.Geteuid() != 0 {
						t.Skip("needs root to give a file away")
					}
					if err = mk(0o700); err == nil {
						err = os.Lchown(p, 54321, 54321)
					}
				case "world-writable":
					err = mk(0o777)
				case "group-readable":
					err = mk(0o750)
				case "fifo":
					err = syscall.Mkfifo(p, 0o600)
				}
				if err != nil {
					t.Fatal(err)
				}
				w, err := Open(home, Options{})
				if err != nil && attack == "symlink" && e.dir && !errors.Is(err, ErrUnsafeHome) {
					t.Fatalf("Open with symlink %s: %v", e.name, err)
				}
				if err != nil && attack == "symlink" && e.dir {
					// A folder every window creates its files in: not even a reader can open.
					if !strings.Contains(err.Error(), p) {
						t.Fatalf("Open with symlink %s: %v", e.name, err)
					}
					runSafeCommand(t, err.Error())
					w = openStarted(t, home)
					waitRole(t, w, RoleWriter)
					return
				}
				if err != nil {
					t.Fatalf("Open with %s %s: %v", attack, e.name, err)
				}
				t.Cleanup(func() { w.Close() })
				if err := w.Start(); err != nil {
					t.Fatal(err)
				}
				if attack == "group-readable" {
					waitRole(t, w, RoleWriter)
					if fi, err := os.Lstat(p); err != nil || fi.Mode().Perm()&0o077 != 0 {
						t.Fatalf("%s: %v %v, want access of group and others taken away", p, fi.Mode(), err)
					}
					wantAudit(t, home, p, "took read access away")
					return
				}
				st := w.Status()
				if st.Role != RoleReader || !strings.Contains(st.Problem, p) || !strings.Contains(st.Problem, "make it safe with: ") {
					t.Fatalf("status: role %s, problem %q", st.Role, st.Problem)
				}
				_, err = w.Intents().AddWorkflow(context.Background(), store.Workflow{Name: "x", Steps: []store.Step{{Argv: []string{"true"}}}})
				if !errors.Is(err, ErrReadOnly) || !strings.Contains(err.Error(), p) {
					t.Fatalf("write in an unsafe home: %v", err)
				}
				if e.name != store.AuditName && e.name != store.AuditName+".1" {
					wantAudit(t, home, p, "read-only")
				}
				if b, _ := os.ReadFile(outside); string(b) != "precious" {
					t.Fatal("the symlink target outside the home was changed")
				}
				runSafeCommand(t, st.Problem)
				if e.name == store.FileName && (attack == "symlink" || attack == "fifo") {
					waitSafe(t, w) // the command removed the document: what follows is not this test's
					return
				}
				if e.name == store.WALName && (attack == "symlink" || attack == "fifo") {
					// The command removed the log, which may have held acknowledged saves:
					// the home is now damaged, refused until `baton recover` (store's
					// TestDamageMatrix covers what follows).
					waitSafe(t, w)
					deadline := time.Now().Add(30 * time.Second)
					for st := w.Status(); st.Role == RoleWriter || !strings.Contains(st.Problem, "baton recover"); st = w.Status() {
						if st.Role == RoleWriter || time.Now().After(deadline) {
							t.Fatalf("the log removed: role %s, problem %q; want a reader pointing to baton recover", st.Role, st.Problem)
						}
						time.Sleep(5 * time.Millisecond) // polling a condition, not a synchronisation
					}
					return
				}
				waitRole(t, w, RoleWriter)
				if _, err := w.Intents().AddWorkflow(context.Background(), store.Workflow{Name: "x", Steps: []store.Step{{Argv: []string{"true"}}}}); err != nil {
					t.Fatalf("write once the home is safe: %v", err)
				}
			})
		}
	}
	if b, _ := os.ReadFile(outside); string(b) != "precious" {
		t.Fatal("the symlink target outside the home was changed")
	}
}

// wantAudit fails unless the audit log of home has an unsafe record for path whose
// action says want.
func wantAudit(t *testing.T, home, path, want string) {
	t.Helper()
	entries, err := store.NewAudit(home).Read(0)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		var u store.Unsafe
		if e.Kind == store.KindUnsafe && e.Decode(&u) == nil && u.Path == path && strings.Contains(u.Action, want) {
			return
		}
	}
	t.Fatalf("no unsafe record for %s saying %q in the audit log: %v", path, want, entries)
}

// runSafeCommand runs the one command a problem gives to make the home safe.
func runSafeCommand(t *testing.T, problem string) {
	t.Helper()
	_, cmd, ok := strings.Cut(problem, "make it safe with: ")
	if !ok {
		t.Fatalf("no command in %q", problem)
	}
	if out, err := exec.Command("sh", "-c", cmd).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v: %s", cmd, err, out)
	}
}

// waitSafe waits until window w finds its home safe.
func waitSafe(t *testing.T, w *Core) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for w.unsafeHome() != nil {
		if time.Now().After(deadline) {
			t.Fatalf("the home is still unsafe: %v", w.unsafeHome())
		}
		time.Sleep(time.Millisecond) // polling a condition, not a synchronisation
	}
}

// TestHomePrivateWhateverTheUmask: with umask 0, every folder Baton creates in the home is
// 0700 and every file 0600.
func TestHomePrivateWhateverTheUmask(t *testing.T) {
	old := syscall.Umask(0)
	home := filepath.Join(t.TempDir(), "fresh")
	marks := t.TempDir()
	a := startChild(t, home) // inherits umask 0
	syscall.Umask(old)
	a.initialRole()
	a.ok(addWF("w", 1, "fail", "sh", "-c", "echo hello; touch "+marks+"/ran"))
	run := a.ok(map[string]any{"op": "start_run", "workflow": "w"})["run"].(string)
	a.waitEvent(0, 10*time.Second, eventIs("run", "run", run, "status", "succeeded"))
	a.ok(addWF("w2", 1, "fail"))
	b := startChild(t, home)
	b.initialRole()
	if err := a.close(); err != nil {
		t.Fatal(err)
	}
	b.waitWriter(10 * time.Second)
	if err := b.close(); err != nil {
		t.Fatal(err)
	}
	seen := 0
	err := filepath.WalkDir(home, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		want := os.FileMode(0o600)
		if fi.IsDir() {
			want = 0o700
		}
		if fi.Mode().Perm() != want || fi.Mode()&os.ModeSymlink != 0 {
			t.Errorf("%s: mode %v, want %v", p, fi.Mode(), want)
		}
		seen++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if seen < 8 {
		t.Fatalf("only %d entries checked", seen)
	}
}

// TestSecretsNeverLeak: the value of an env variable named like a secret appears in no
// reply, event, run log, audit entry or error, while the step still gets the real value.
func TestSecretsNeverLeak(t *testing.T) {
	home, marks := t.TempDir(), t.TempDir()
	secrets := map[string]string{"API_TOKEN": "tok-7f3a9c", "db_password": "hunter2-pw", "AwsSecretKey": "AKIA-s3cr3t", "ssh_key": "k3y-value"}
	env := map[string]string{"PLAIN": "visible-value"}
	for k, v := range secrets {
		env[k] = v
	}
	a := startChild(t, home)
	a.initialRole()
	// The step prints its secrets in pieces and whole, and fails naming one.
	script := `printf 'tok-7f'; printf '3a9c\n'; echo "pw=$db_password key=$AwsSecretKey $ssh_key $PLAIN";
echo "$API_TOKEN" > ` + marks + `/seen; echo "$API_TOKEN" >&2; exit 3`
	a.ok(map[string]any{"op": "add_workflow", "workflow": map[string]any{"name": "leaky", "max_concurrent": 1,
		"on_owner_lost": "fail", "steps": []any{map[string]any{"argv": []string{"sh", "-c", script}, "env": env}}}})
	run := a.ok(map[string]any{"op": "start_run", "workflow": "leaky"})["run"].(string)
	a.waitEvent(0, 10*time.Second, eventIs("run", "run", run, "status", "failed"))
	if b, _ := os.ReadFile(filepath.Join(marks, "seen")); strings.TrimSpace(string(b)) != "tok-7f3a9c" {
		t.Fatalf("the step did not get the real secret: %q", b)
	}
	snap := a.ok(map[string]any{"op": "snapshot"})
	// A client sends the masked definition back: the real values are kept.
	var wf map[string]any
	for _, x := range snap["workflows"].([]any) {
		wf = x.(map[string]any)
	}
	a.ok(map[string]any{"op": "update_workflow", "workflow": wf})
	if d := readDisk(t, home); d.Workflow("leaky").Steps[0].Env["API_TOKEN"] != "tok-7f3a9c" {
		t.Fatalf("update with the masked value lost the secret: %v", d.Workflow("leaky").Steps[0].Env)
	}
	a.do(map[string]any{"op": "cancel_run", "run": run})
	a.do(map[string]any{"op": "history"})
	a.do(map[string]any{"op": "audit"})
	a.do(map[string]any{"op": "start_run", "workflow": "tok-7f3a9c"}) // an error naming it is the caller's own
	r := readDisk(t, home).Run(run)
	logText, _ := os.ReadFile(r.Log)
	if !strings.Contains(string(logText), "visible-value") || !strings.Contains(string(logText), workflow.SecretMask) {
		t.Fatalf("log does not look redacted: %q", logText)
	}
	audit, _ := os.ReadFile(filepath.Join(home, store.AuditName))
	a.mu.Lock()
	var replies bytes.Buffer
	for id, rep := range a.replies {
		if id == fmt.Sprintf("q%d", a.nextID) { // the start_run that named the secret itself
			continue
		}
		b, _ := json.Marshal(rep)
		replies.Write(b)
	}
	for _, e := range a.events {
		b, _ := json.Marshal(e)
		replies.Write(b)
	}
	a.mu.Unlock()
	if !strings.Contains(replies.String(), workflow.SecretMask) || !strings.Contains(replies.String(), "visible-value") {
		t.Fatalf("snapshot does not show masked secrets: %s", replies.String())
	}
	for k, v := range secrets {
		for where, text := range map[string]string{"run log": string(logText), "audit log": string(audit),
			"replies and events": replies.String(), "run error": r.Error} {
			if strings.Contains(text, v) {
				t.Errorf("value of %s appears in the %s", k, where)
			}
		}
	}
}

// needRoot skips a test that needs to run processes as another user.
func needRoot(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root: the other user's processes are started with SysProcAttr.Credential uid 65534")
	}
}

// nobody is the uid (and gid) other-user tests run their processes as.
const nobody = 65534
