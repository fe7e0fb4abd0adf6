package cli_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"baton/host"
	"baton/host/cli"
	"baton/store"
	"baton/store/etcdhome"
	"baton/store/storetest/etcdtest"
	"baton/workflow"
	"baton/workflow/proc"
)

// `baton migrate` against a real 3-member etcd cluster (etcdtest: each member its own
// process), real folder homes made by real windows and runs, and a real window process
// holding state.lock.

// TestMain runs the tests, or makes the test binary an etcd member, a run's supervisor,
// a window that holds its home's writer lock (BATON_TEST_CHILD=window), or a command
// (BATON_TEST_CHILD=cli, its arguments in BATON_TEST_CLI_ARGS as a JSON array).
// noMachineEnv makes a child (BATON_TEST_CHILD=cli) hide every name of its machine
// before it runs its command (hideMachine, Linux only): no BATON_MACHINE, an empty
// /etc/machine-id, an empty hostname. The test starts it in mount and UTS namespaces of
// its own, so nothing outside it changes.
const noMachineEnv = "BATON_TEST_NO_MACHINE"

func TestMain(m *testing.M) {
	etcdtest.RunMemberIfAsked()
	if len(os.Args) > 1 && os.Args[1] == workflow.SuperviseArg {
		os.Exit(workflow.SuperviseMain(os.Args[2:]))
	}
	if os.Getenv(noMachineEnv) != "" {
		hideMachine()
	}
	switch os.Getenv("BATON_TEST_CHILD") {
	case "window":
		os.Exit(windowChild(os.Getenv("BATON_TEST_HOME")))
	case "cli":
		var args []string
		if err := json.Unmarshal([]byte(os.Getenv("BATON_TEST_CLI_ARGS")), &args); err != nil || len(args) == 0 {
			fmt.Fprintf(os.Stderr, "BATON_TEST_CLI_ARGS: %v\n", err)
			os.Exit(2)
		}
		os.Exit(cli.Command(args, host.Options{}, os.Stdout, os.Stderr, make(chan os.Signal)))
	}
	os.Exit(m.Run())
}

// windowChild opens a window on home, becomes its writer, says "writer <pid>" and stays
// until stdin ends.
func windowChild(home string) int {
	w, err := host.Open(home, host.Options{NoScheduler: true})
	if err == nil {
		err = w.Start()
	}
	if err == nil && w.Role() != host.RoleWriter {
		err = fmt.Errorf("the window is %s, not the writer", w.Role())
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Printf("writer %d\n", os.Getpid())
	_, _ = io.Copy(io.Discard, os.Stdin)
	_ = w.Close()
	return 0
}

// startWindow starts a window process on home and returns once it is the writer; it ends
// when the test does.
func startWindow(t *testing.T, home string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "BATON_TEST_CHILD=window", "BATON_TEST_HOME="+home)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = stdin.Close(); _ = cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if !strings.HasPrefix(line, "writer ") {
		t.Fatalf("the window process did not become the writer: %q, %v", line, err)
	}
	return cmd
}

// seedHome makes a folder home as a person would: two workflows, a schedule, five runs
// (some archived: the document keeps one finished run per workflow), an audit log.
func seedHome(t *testing.T) string {
	t.Helper()
	home := filepath.Join(t.TempDir(), "home")
	w, err := host.Open(home, host.Options{NoScheduler: true, KeepFinished: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { proc.KillAll(nil, [][]string{{workflow.EnvHome + "=" + home}}, 5*time.Second) })
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, def := range []store.Workflow{
		{Name: "hello", Steps: []store.Step{{Name: "say", Argv: []string{"sh", "-c", "echo hello from $BATON_RUN_ID"}}}},
		{Name: "nightly backup", Steps: []store.Step{{Argv: []string{"true"}}}},
	} {
		if _, err := w.Intents().AddWorkflow(ctx, def); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := w.Intents().AddSchedule(ctx, store.Schedule{Workflow: "nightly backup", Every: store.Duration(time.Hour), Paused: true}); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 5; i++ {
		r, _, err := w.Intents().StartRun(ctx, "hello", fmt.Sprintf("task %d", i))
		if err != nil {
			t.Fatal(err)
		}
		waitFor(t, "run "+r.ID+" to end", func() bool {
			got, ended, err := w.RunState(r.ID)
			return err == nil && ended && got.Status == store.StatusSucceeded
		})
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return home
}

// startWriter starts window w and waits until it is the writer (on an etcd home it
// campaigns in the background).
func startWriter(t *testing.T, w *host.Core, what string) {
	t.Helper()
	if err := w.Start(); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	waitFor(t, what+" to become the writer", func() bool { return w.Role() == host.RoleWriter })
}

// waitFor waits for cond, generously (a loaded machine), failing the test if it never holds.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// etcdURL is the etcd home prefix on cluster c.
func etcdURL(c *etcdtest.Cluster, prefix string) string {
	var hps []string
	for _, ep := range c.Endpoints() {
		hps = append(hps, strings.TrimPrefix(ep, "http://"))
	}
	return "etcd://" + strings.Join(hps, ",") + "/" + prefix
}

type result struct {
	code           int
	stdout, stderr string
	report         struct {
		From, To  string
		DryRun    bool `json:"dry_run"`
		Moved     []struct{ What, Note, To string }
		SourceSum string `json:"source_checksum"`
		TargetSum string `json:"target_checksum"`
	}
}

// migrate runs `baton migrate args...` as the command line does.
func migrate(t *testing.T, args ...string) result {
	t.Helper()
	var out, errb bytes.Buffer
	var r result
	r.code = cli.Command(append([]string{"migrate"}, args...), host.Options{}, &out, &errb, make(chan os.Signal))
	r.stdout, r.stderr = out.String(), errb.String()
	if slicesContains(args, "--json") && r.code == 0 {
		if err := json.Unmarshal(out.Bytes(), &r.report); err != nil {
			t.Fatalf("migrate --json printed %q: %v", r.stdout, err)
		}
	}
	t.Logf("baton migrate %s: exit %d\n%s%s", strings.Join(args, " "), r.code, r.stdout, r.stderr)
	return r
}

func slicesContains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// treeSum is every file under dir (names, modes and contents; state.lock's content
// aside, never written), so a test can say a folder did not change.
func treeSum(t *testing.T, dir string) string {
	t.Helper()
	h := sha256.New()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		fmt.Fprintf(h, "%s %v %d\n", rel, fi.Mode(), fi.Size())
		if fi.Mode().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			h.Write(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// prefixKeys lists every key under prefix, straight from the cluster.
func prefixKeys(t *testing.T, cli *clientv3.Client, prefix string) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	resp, err := cli.Get(ctx, "/"+prefix+"/", clientv3.WithPrefix(), clientv3.WithKeysOnly())
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, kv := range resp.Kvs {
		keys = append(keys, string(kv.Key))
	}
	return keys
}

// etcdDoc reads the document under prefix straight from the cluster.
func etcdDoc(t *testing.T, cli *clientv3.Client, prefix string) *store.Doc {
	t.Helper()
	h, err := etcdhome.Open(cli, prefix, etcdhome.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	d, err := h.ReadDoc(ctx)
	if err != nil || d == nil {
		t.Fatalf("read %s from etcd: %v, %v", prefix, d, err)
	}
	return d
}

// sameContent fails unless a and b hold the same workflows, schedules and runs (by id,
// status, task, exit code and log file name) at the same generation.
func sameContent(t *testing.T, what string, a, b *store.Doc) {
	t.Helper()
	type runView struct{ ID, Status, Task, Log string }
	view := func(d *store.Doc) string {
		var runs []runView
		for _, r := range d.Runs {
			runs = append(runs, runView{r.ID, r.Status, r.Task, filepath.Base(r.Log)})
		}
		b, _ := json.Marshal(map[string]any{"gen": d.Generation, "home": d.Home, "seq": d.Seq, "workflows": d.Workflows, "schedules": d.Schedules, "runs": runs})
		return string(b)
	}
	if va, vb := view(a), view(b); va != vb {
		t.Fatalf("%s: content differs:\n%s\n%s", what, va, vb)
	}
}

// auditEntries reads the audit log of dir, its kinds in order.
func auditKinds(t *testing.T, dir string) []string {
	t.Helper()
	es, err := store.NewAudit(dir).Read(0)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, e := range es {
		kinds = append(kinds, e.Kind)
	}
	return kinds
}

func archivedIDs(t *testing.T, dir string) []string {
	t.Helper()
	seq, _, err := store.NewArchive(dir, 0).Runs()
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for r := range seq {
		ids = append(ids, r.ID)
	}
	return ids
}

// TestMigrateRoundTrip moves a folder home into etcd and back into a new folder: the
// checksum of the content is the same at each step (and the source's never changes), the
// workflows, schedules, runs, archive, audit and run logs all arrive, and both homes open
// and work afterwards.
func TestMigrateRoundTrip(t *testing.T) {
	c := etcdtest.StartCluster(t, 3)
	etcd := etcdtest.Client(t, c.Endpoints()...)
	src := seedHome(t)
	srcDoc, err := store.ReadHome(src)
	if err != nil {
		t.Fatal(err)
	}
	if len(archivedIDs(t, src)) == 0 || len(srcDoc.Schedules) != 1 || len(srcDoc.Workflows) != 2 {
		t.Fatalf("the seed home has no archive, or not its workflows and schedule: %+v", srcDoc)
	}
	before := treeSum(t, src)
	url, local := etcdURL(c, "team-a"), t.TempDir()

	dry := migrate(t, "--from", src, "--to", url, "--local", local, "--dry-run", "--json")
	if dry.code != 0 || !dry.report.DryRun || dry.report.SourceSum == "" || dry.report.TargetSum != "" {
		t.Fatalf("dry run: exit %d, %+v", dry.code, dry.report)
	}
	text := migrate(t, "--from", src, "--to", url, "--local", local, "--dry-run")
	for _, want := range []string{"would move document: generation", "would move archive:", "would move audit: audit.log",
		"would move logs: runs/", "checksum of the source " + src + ": " + dry.report.SourceSum, "nothing was changed (--dry-run)"} {
		if text.code != 0 || !strings.Contains(text.stdout, want) {
			t.Fatalf("the dry run's text does not say %q: exit %d\n%s", want, text.code, text.stdout)
		}
	}
	if keys := prefixKeys(t, etcd, "team-a"); len(keys) != 0 {
		t.Fatalf("a dry run wrote keys: %v", keys)
	}
	if ents, _ := os.ReadDir(local); len(ents) != 0 {
		t.Fatalf("a dry run wrote into the local folder: %v", ents)
	}

	// folder -> etcd
	one := migrate(t, "--from", src, "--to", url, "--local", local, "--json")
	if one.code != 0 {
		t.Fatalf("folder -> etcd: exit %d: %s", one.code, one.stderr)
	}
	if one.report.SourceSum != one.report.TargetSum || one.report.SourceSum != dry.report.SourceSum {
		t.Fatalf("folder -> etcd: checksums %s (source) %s (target) %s (dry run)", one.report.SourceSum, one.report.TargetSum, dry.report.SourceSum)
	}
	if got := treeSum(t, src); got != before {
		t.Fatal("the source folder changed")
	}
	mid := etcdDoc(t, etcd, "team-a")
	sameContent(t, "folder -> etcd", srcDoc, mid)
	for _, r := range mid.Runs {
		if filepath.Dir(r.Log) != filepath.Join(local, "runs") {
			t.Fatalf("run %s's log is %s, not in the local folder's runs/", r.ID, r.Log)
		}
		if b, err := os.ReadFile(r.Log); err != nil || !strings.Contains(string(b), "hello from "+r.ID) {
			t.Fatalf("run %s's log did not come along: %q, %v", r.ID, b, err)
		}
	}
	if a, b := archivedIDs(t, src), archivedIDs(t, local); strings.Join(a, ",") != strings.Join(b, ",") {
		t.Fatalf("archive: %v moved as %v", a, b)
	}
	srcKinds := auditKinds(t, src)
	if got := auditKinds(t, local); strings.Join(got, ",") != strings.Join(append(srcKinds, cli.KindMigration), ",") {
		t.Fatalf("audit: %v moved as %v", srcKinds, got)
	}

	// etcd -> a new folder
	back := filepath.Join(t.TempDir(), "back")
	two := migrate(t, "--from", url, "--local", local, "--to", back, "--json")
	if two.code != 0 {
		t.Fatalf("etcd -> folder: exit %d: %s", two.code, two.stderr)
	}
	if two.report.SourceSum != two.report.TargetSum || two.report.SourceSum != one.report.SourceSum {
		t.Fatalf("etcd -> folder: checksums %s (source) %s (target), first step %s", two.report.SourceSum, two.report.TargetSum, one.report.SourceSum)
	}
	if got := etcdDoc(t, etcd, "team-a"); got.Generation != mid.Generation {
		t.Fatalf("the etcd source changed: generation %d, was %d", got.Generation, mid.Generation)
	}
	backDoc, err := store.ReadHome(back)
	if err != nil {
		t.Fatal(err)
	}
	sameContent(t, "etcd -> folder", srcDoc, backDoc)
	if a, b := archivedIDs(t, src), archivedIDs(t, back); strings.Join(a, ",") != strings.Join(b, ",") {
		t.Fatalf("archive: %v came back as %v", a, b)
	}
	if got := auditKinds(t, back); strings.Join(got, ",") != strings.Join(append(srcKinds, cli.KindMigration, cli.KindMigration), ",") {
		t.Fatalf("audit: %v came back as %v", srcKinds, got)
	}

	// Both homes work: the folder's window writes and runs (its log in its own runs/);
	// the etcd home's takes over and writes.
	w, err := host.Open(back, host.Options{NoScheduler: true})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	startWriter(t, w, "a window on the migrated folder")
	r, _, err := w.Intents().StartRun(context.Background(), "hello", "after the move")
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "a run on the migrated folder", func() bool {
		got, ended, err := w.RunState(r.ID)
		return err == nil && ended && got.Status == store.StatusSucceeded
	})
	if b, err := os.ReadFile(filepath.Join(back, "runs", r.ID+".log")); err != nil || !strings.Contains(string(b), "hello from") {
		t.Fatalf("the new run's log: %q, %v", b, err)
	}
	e, err := host.Open(url, host.Options{NoScheduler: true, Etcd: host.EtcdOptions{Local: local}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	startWriter(t, e, "a window on the migrated etcd home")
	if _, err := e.Intents().AddWorkflow(context.Background(), store.Workflow{Name: "added on etcd", Steps: []store.Step{{Argv: []string{"true"}}}}); err != nil {
		t.Fatal(err)
	}
	if d := etcdDoc(t, etcd, "team-a"); d.Workflow("added on etcd") == nil || d.Workflow("hello") == nil {
		t.Fatalf("the etcd home after a save: %+v", d.Workflows)
	}
}

// refused checks a refused migrate: exit 1, and stderr says each of want.
func refused(t *testing.T, r result, want ...string) {
	t.Helper()
	if r.code != 1 {
		t.Fatalf("migrate was not refused: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, w := range want {
		if !strings.Contains(r.stderr, w) {
			t.Fatalf("the refusal does not say %q:\n%s", w, r.stderr)
		}
	}
}

// emptyDir fails unless dir is missing or empty.
func emptyDir(t *testing.T, what, dir string) {
	t.Helper()
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Fatalf("%s was written: %v", what, ents)
	}
}

// TestMigrateRefusesNonEmptyTarget: a key under the etcd prefix, a file of Baton's in the
// etcd home's local folder, a home in the target folder: each refused, named, and nothing
// written on either side.
func TestMigrateRefusesNonEmptyTarget(t *testing.T) {
	c := etcdtest.StartCluster(t, 3)
	etcd := etcdtest.Client(t, c.Endpoints()...)
	src := seedHome(t)
	before := treeSum(t, src)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	// a key under the prefix
	if _, err := etcd.Put(ctx, "/team-b/left-behind", "x"); err != nil {
		t.Fatal(err)
	}
	local := t.TempDir()
	refused(t, migrate(t, "--from", src, "--to", etcdURL(c, "team-b"), "--local", local), "not empty", "/team-b/left-behind")
	if keys := prefixKeys(t, etcd, "team-b"); len(keys) != 1 {
		t.Fatalf("keys under the prefix after the refusal: %v", keys)
	}
	emptyDir(t, "the local folder", local)

	// the local folder of an empty prefix holds an audit log
	if err := os.WriteFile(filepath.Join(local, store.AuditName), []byte("{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	refused(t, migrate(t, "--from", src, "--to", etcdURL(c, "team-c"), "--local", local), "not empty", filepath.Join(local, store.AuditName))
	if keys := prefixKeys(t, etcd, "team-c"); len(keys) != 0 {
		t.Fatalf("keys under the prefix after the refusal: %v", keys)
	}
	if b, _ := os.ReadFile(filepath.Join(local, store.AuditName)); string(b) != "{}\n" {
		t.Fatalf("the local folder's audit log was written: %q", b)
	}

	// a folder that is a home already
	if r := migrate(t, "--from", src, "--to", etcdURL(c, "team-d"), "--local", t.TempDir()); r.code != 0 {
		t.Fatalf("folder -> etcd: %s", r.stderr)
	}
	other := seedHome(t)
	otherSum := treeSum(t, other)
	refused(t, migrate(t, "--from", etcdURL(c, "team-d"), "--local", t.TempDir(), "--to", other), "not empty", filepath.Join(other, store.FileName))
	if got := treeSum(t, other); got != otherSum {
		t.Fatal("the target folder changed")
	}
	if got := treeSum(t, src); got != before {
		t.Fatal("the source folder changed")
	}
}

// TestMigrateRefusesWriterOnSource: a window process that holds the source's state.lock
// makes migrate refuse, naming its pid; once it closed, the same migrate goes through.
func TestMigrateRefusesWriterOnSource(t *testing.T) {
	c := etcdtest.StartCluster(t, 3)
	etcd := etcdtest.Client(t, c.Endpoints()...)
	src := seedHome(t)
	win := startWindow(t, src)
	url, local := etcdURL(c, "team-a"), t.TempDir()
	refused(t, migrate(t, "--from", src, "--to", url, "--local", local), "in use", fmt.Sprintf("window pid %d", win.Process.Pid), host.LockName)
	if keys := prefixKeys(t, etcd, "team-a"); len(keys) != 0 {
		t.Fatalf("keys under the prefix after the refusal: %v", keys)
	}
	emptyDir(t, "the local folder", local)

	// The etcd home, once moved, has a writer too: migrate refuses to take it out.
	if err := win.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = win.Wait()
	if r := migrate(t, "--from", src, "--to", url, "--local", local); r.code != 0 {
		t.Fatalf("with the window gone: exit %d: %s", r.code, r.stderr)
	}
	e, err := host.Open(url, host.Options{NoScheduler: true, Etcd: host.EtcdOptions{Local: local}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	startWriter(t, e, "a window on the etcd home")
	back := filepath.Join(t.TempDir(), "back")
	refused(t, migrate(t, "--from", url, "--local", local, "--to", back), "in use", fmt.Sprintf("window pid %d", os.Getpid()))
	emptyDir(t, "the target folder", back)
}

// TestMigrateRefusesDamagedSource: a damaged workflows.json, and a damaged document under
// an etcd prefix, are refused; neither the source nor the target changes.
func TestMigrateRefusesDamagedSource(t *testing.T) {
	c := etcdtest.StartCluster(t, 3)
	etcd := etcdtest.Client(t, c.Endpoints()...)
	src := seedHome(t)
	doc := filepath.Join(src, store.FileName)
	b, err := os.ReadFile(doc)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(doc, b[:len(b)/2], 0o600); err != nil { // cut in half
		t.Fatal(err)
	}
	before := treeSum(t, src)
	url, local := etcdURL(c, "team-a"), t.TempDir()
	refused(t, migrate(t, "--from", src, "--to", url, "--local", local), "cannot be read", store.FileName)
	if got := treeSum(t, src); got != before {
		t.Fatal("the damaged source changed")
	}
	if keys := prefixKeys(t, etcd, "team-a"); len(keys) != 0 {
		t.Fatalf("keys under the prefix after the refusal: %v", keys)
	}
	emptyDir(t, "the local folder", local)

	// an etcd document whose meta names a workflow that is not there
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	meta := `{"doc":{"schema":1,"generation":3,"epoch":1,"seq":0,"workflows":null,"runs":null,"schedules":null},"set":"s0000000000000000","workflows":["wf/gone"],"schedules":[],"runs":[]}`
	if _, err := etcd.Put(ctx, "/team-z/doc/meta", meta); err != nil {
		t.Fatal(err)
	}
	back := filepath.Join(t.TempDir(), "back")
	refused(t, migrate(t, "--from", etcdURL(c, "team-z"), "--local", t.TempDir(), "--to", back), "cannot be read", "wf/gone")
	emptyDir(t, "the target folder", back)
	if resp, err := etcd.Get(ctx, "/team-z/", clientv3.WithPrefix()); err != nil || len(resp.Kvs) != 1 || string(resp.Kvs[0].Value) != meta {
		t.Fatalf("the damaged etcd source changed: %v, %v", resp, err)
	}
}

// TestMigrateRefusesRunningRun: a run still running under its supervisor (an "adopt" run
// its window left going) is named, and nothing moves.
func TestMigrateRefusesRunningRun(t *testing.T) {
	c := etcdtest.StartCluster(t, 3)
	etcd := etcdtest.Client(t, c.Endpoints()...)
	src := seedHome(t)
	w, err := host.Open(src, host.Options{NoScheduler: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := w.Intents().AddWorkflow(ctx, store.Workflow{Name: "long", OnOwnerLost: "adopt", Steps: []store.Step{{Argv: []string{"sleep", "600"}}}}); err != nil {
		t.Fatal(err)
	}
	r, _, err := w.Intents().StartRun(ctx, "long", "")
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the run's supervisor", func() bool { return workflow.SupervisionOf(src, r.ID).Alive })
	if err := w.Close(); err != nil { // an adopt run outlives its window
		t.Fatal(err)
	}
	url, local := etcdURL(c, "team-a"), t.TempDir()
	refused(t, migrate(t, "--from", src, "--to", url, "--local", local), "still running", r.ID, "supervisor is alive")
	if keys := prefixKeys(t, etcd, "team-a"); len(keys) != 0 {
		t.Fatalf("keys under the prefix after the refusal: %v", keys)
	}
	emptyDir(t, "the local folder", local)
}

// TestMigrateBadFlags: usage errors exit 2 and touch nothing.
func TestMigrateBadFlags(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	for _, args := range [][]string{
		{},
		{"--from", a},
		{"--to", "etcd://127.0.0.1:1/p"},
		{"--from", a, "--to", b},
		{"--from", "etcd://127.0.0.1:1/p", "--to", "etcd://127.0.0.1:1/q"},
		{"--from", a, "--to", "etcd://127.0.0.1:1/p", "--home", a},
		{"--from", a, "--to", "etcd://127.0.0.1:1/p", "--local", ""},
		{"--from", a, "--to", "etcd://127.0.0.1:1/p", "extra"},
		{"--from", a, "--to", "etcd://127.0.0.1:1/p", "--no-such-flag"},
	} {
		if r := migrate(t, args...); r.code != 2 {
			t.Fatalf("migrate %v: exit %d, want 2 (usage)", args, r.code)
		}
	}
	emptyDir(t, "the folder", dir)

	// the etcd home's local folder inside the folder home, or around it
	src := seedHome(t)
	before := treeSum(t, src)
	for _, local := range []string{filepath.Join(src, "runs"), filepath.Dir(src)} {
		refused(t, migrate(t, "--from", src, "--to", "etcd://127.0.0.1:1/p", "--local", local), "overlap")
	}
	if got := treeSum(t, src); got != before {
		t.Fatal("the source folder changed")
	}
}

// crashMigrate runs `baton migrate args...` as a child process killed -9 at failpoint.
func crashMigrate(t *testing.T, failpoint string, args ...string) {
	t.Helper()
	b, _ := json.Marshal(append([]string{"migrate"}, args...))
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "BATON_TEST_CHILD=cli", "BATON_TEST_CLI_ARGS="+string(b), "BATON_FAILPOINTS="+failpoint)
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ProcessState.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("migrate was not killed at %s: %v\n%s", failpoint, err, out)
	}
}

// TestMigrateCrashBeforeDocument: a migrate killed -9 after it copied the files and
// before the document leaves no half home: the etcd target has no document, the folder
// target is refused as damaged by every reader; a second migrate into either is refused
// as not empty; the source is unchanged.
func TestMigrateCrashBeforeDocument(t *testing.T) {
	c := etcdtest.StartCluster(t, 3)
	etcd := etcdtest.Client(t, c.Endpoints()...)
	src := seedHome(t)
	before := treeSum(t, src)
	url, local := etcdURL(c, "team-a"), t.TempDir()
	crashMigrate(t, "migrate.before-document", "--from", src, "--to", url, "--local", local, "--lease", "2s")
	if got := treeSum(t, src); got != before {
		t.Fatal("the source folder changed")
	}
	if h, err := etcdhome.Open(etcd, "team-a", etcdhome.Options{}); err != nil {
		t.Fatal(err)
	} else if d, err := h.ReadDoc(context.Background()); d != nil || err != nil {
		t.Fatalf("the crashed migrate left a document in etcd: %v, %v", d, err)
	}
	waitFor(t, "the dead migrate's election key to go with its lease", func() bool { return len(prefixKeys(t, etcd, "team-a")) == 0 })
	if _, err := os.Stat(filepath.Join(local, store.AuditName)); err != nil {
		t.Fatalf("the crash came before the files were copied: %v", err)
	}
	refused(t, migrate(t, "--from", src, "--to", url, "--local", local), "not empty", filepath.Join(local, store.AuditName))

	// the other way: a good etcd home into a folder
	localB := t.TempDir()
	if r := migrate(t, "--from", src, "--to", etcdURL(c, "team-b"), "--local", localB); r.code != 0 {
		t.Fatalf("folder -> etcd: %s", r.stderr)
	}
	back := filepath.Join(t.TempDir(), "back")
	crashMigrate(t, "migrate.before-document", "--from", etcdURL(c, "team-b"), "--local", localB, "--to", back, "--lease", "2s")
	waitFor(t, "the dead migrate's election key to go with its lease", func() bool {
		for _, k := range prefixKeys(t, etcd, "team-b") {
			if strings.HasPrefix(k, "/team-b/writer/") {
				return false
			}
		}
		return true
	})
	if _, err := store.ReadHome(back); !errors.Is(err, store.ErrDamaged) {
		t.Fatalf("the half-made folder reads as %v, want damage", err)
	}
	refused(t, migrate(t, "--from", etcdURL(c, "team-b"), "--local", localB, "--to", back), "not empty", store.AuditName)
}
