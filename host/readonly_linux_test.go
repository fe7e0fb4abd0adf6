package host

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gofrs/flock"
)

// readOnlyView bind-mounts src read-only at a new folder and returns it (unmounted at
// cleanup). It needs root: the test is skipped, saying so, without it.
func readOnlyView(t *testing.T, src string) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root to mount a read-only view of a home (mount --bind, remount ro)")
	}
	dst := filepath.Join(t.TempDir(), "ro")
	if err := os.Mkdir(dst, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount(src, dst, "", syscall.MS_BIND, ""); err != nil {
		t.Fatalf("bind mount %s: %v", dst, err)
	}
	t.Cleanup(func() { _ = syscall.Unmount(dst, syscall.MNT_DETACH) })
	if err := syscall.Mount("", dst, "", syscall.MS_REMOUNT|syscall.MS_BIND|syscall.MS_RDONLY, ""); err != nil {
		t.Fatalf("remount %s read-only: %v", dst, err)
	}
	if err := os.WriteFile(filepath.Join(dst, "probe"), nil, 0o600); !errors.Is(err, syscall.EROFS) {
		t.Fatalf("%s is not read-only: %v", dst, err)
	}
	return dst
}

// A home on a read-only file system (a backup snapshot, an image) can be read: status,
// workflows, runs and logs work and exit 0; a window opens read-only and says the file
// system is read-only; its liveness file goes to a private runtime folder (locked for its
// life, removed at its close), and nothing of it lands in the home. Through the read-only
// view a reader still finds the evidence of a writer working on the writable path.
func TestReadOnlyHomeCanBeRead(t *testing.T) {
	t.Parallel()
	src := t.TempDir()
	seedWorkflows(t, src, oneStep("hello", "fail", "sh", "-c", "echo hello from the run"))
	if o := cliCmd(src, "run", "hello", "--wait"); o.code != 0 {
		t.Fatalf("run: %d %s %s", o.code, o.stdout, o.stderr)
	}
	ro := readOnlyView(t, src)
	runtime := t.TempDir()
	xdg := "XDG_RUNTIME_DIR=" + runtime // every process from here on: commands and windows
	runtimeCmd := func(home string, args ...string) cliOut {
		var out lockedBuf
		return <-cliStartEnv(&out, []string{xdg}, append(args, "--home", home))
	}

	for _, args := range [][]string{{"status"}, {"workflows"}, {"runs"}, {"logs", "r1"}, {"status", "--json"}} {
		o := runtimeCmd(ro, args...)
		if o.code != 0 {
			t.Fatalf("%v on a read-only home: exit %d, %s %s", args, o.code, o.stdout, o.stderr)
		}
		want := map[string]string{"status": "read-only file system", "workflows": "hello", "runs": "r1", "logs": "hello from the run"}[args[0]]
		if !strings.Contains(o.stdout, want) {
			t.Errorf("%v: %q lacks %q", args, o.stdout, want)
		}
	}

	for _, args := range [][]string{{"run", "hello"}, {"cancel", "r1"}} {
		if o := runtimeCmd(ro, args...); o.code != 1 || !strings.Contains(o.stderr, "read-only file system") {
			t.Errorf("%v on a read-only home: exit %d, %q; want 1 saying the file system is read-only", args, o.code, o.stderr)
		}
	}

	rd := startChild(t, ro, withEnv(xdg))
	if role := rd.initialRole(); role != "reader" {
		t.Fatalf("window on a read-only home: role %s", role)
	}
	st := rd.ok(map[string]any{"op": "status"})
	if p, _ := st["problem"].(string); !strings.Contains(p, "read-only file system") || !strings.Contains(p, "only reads") {
		t.Fatalf("status problem %q does not say the file system is read-only", p)
	}
	for _, op := range []map[string]any{addWF("new", 1, "fail", "true"), {"op": "request_write"}} {
		r := rd.do(op)
		if r["code"] != "read_only" || !strings.Contains(r["error"].(string), "read-only file system") {
			t.Errorf("%v on a read-only home: %v", op["op"], r)
		}
	}
	if names := rd.snapshot().names(); !contains(names, "hello") {
		t.Fatalf("snapshot of a read-only home: %v", names)
	}
	inst := st["instance"].(string)
	priv, _ := filepath.Glob(filepath.Join(runtime, "baton", "instances-*", inst+".lock"))
	if len(priv) != 1 {
		t.Fatalf("no private liveness file for instance %s under %s", inst, runtime)
	}
	if fi, err := os.Stat(filepath.Dir(priv[0])); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("private folder: %v %v", fi, err)
	}
	if ok, _ := flock.New(priv[0], flock.SetFlag(os.O_RDONLY)).TryLock(); ok {
		t.Fatal("the private liveness file is not locked while its window lives")
	}

	// A writer on the writable path: the read-only window follows its saves, and a
	// command through the read-only view finds it alive by its instance lock.
	wr := startChild(t, src, withEnv(xdg))
	if role := wr.initialRole(); role != "writer" {
		t.Fatalf("writer: %s", role)
	}
	from := rd.nEvents()
	wr.ok(addWF("added", 1, "fail", "true"))
	rd.waitEvent(from, 20*time.Second, func(e map[string]any) bool { return e["event"] == "changed" })
	if names := rd.snapshot().names(); !contains(names, "added") {
		t.Fatalf("the read-only window did not follow the writer: %v", names)
	}
	if o := runtimeCmd(ro, "status", "--json"); !strings.Contains(o.stdout, `"pid": `+strconv.Itoa(wr.pid)) {
		t.Fatalf("status through the read-only view does not find the live writer %d: %s", wr.pid, o.stdout)
	}
	wr.kill9()
	if o := runtimeCmd(ro, "status", "--json"); !strings.Contains(o.stdout, `"writer": null`) {
		t.Fatalf("status through the read-only view after the writer died: %s", o.stdout)
	}

	if err := rd.close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(priv[0]); !os.IsNotExist(err) {
		t.Fatalf("the private liveness file outlived its window: %v", err)
	}
	if _, err := os.Stat(filepath.Join(src, InstancesDir, inst+".lock")); !os.IsNotExist(err) {
		t.Fatalf("the read-only window left a file in the home: %v", err)
	}
}
