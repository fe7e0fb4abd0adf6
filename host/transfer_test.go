package host

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"baton/store"
	"baton/workflow"
)

// TestExportImportRoundTrip (issue 22, daily use 2): `baton export` writes the workflows
// with their schedules and retention, secret values left out; `baton import` of that
// file into another home adds them in one save (a dry run first says so and changes
// nothing), keeps the secret values that home has, and a second import changes nothing.
func TestExportImportRoundTrip(t *testing.T) {
	t.Parallel()
	src, dst := t.TempDir(), t.TempDir()
	ctx := context.Background()
	keep := 5
	a := openStarted(t, src)
	waitRole(t, a, RoleWriter)
	def := store.Workflow{Name: "backup", Retention: &store.Retention{KeepRuns: keep},
		Steps: []store.Step{{Argv: []string{"rsync", "-a", "src", "dst"}, Env: map[string]string{"API_TOKEN": "s3cret-value", "MODE": "fast"}}}}
	for _, w := range []store.Workflow{def, {Name: "other", Steps: []store.Step{{Argv: []string{"true"}}}}} {
		if _, err := a.Intents().AddWorkflow(ctx, w); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := a.Intents().AddSchedule(ctx, store.Schedule{Workflow: "backup", Every: store.Duration(time.Hour), Overlap: "skip"}); err != nil {
		t.Fatal(err)
	}
	a.Close()

	out, _, code := run3(src, "export", "backup")
	if code != 0 {
		t.Fatalf("export exit %d", code)
	}
	if strings.Contains(out, "s3cret-value") {
		t.Errorf("the export holds a secret value:\n%s", out)
	}
	f, err := ParseExport([]byte(out))
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Workflows) != 1 || f.Workflows[0].Name != "backup" || len(f.Schedules) != 1 || f.Workflows[0].Retention == nil {
		t.Fatalf("exported %+v", f)
	}
	if out, _, _ := run3(src, "export", "backup", "--secrets"); !strings.Contains(out, "s3cret-value") {
		t.Error("export --secrets left the secret out")
	}
	file := filepath.Join(t.TempDir(), "backup.json")
	if err := os.WriteFile(file, []byte(out), 0o600); err != nil {
		t.Fatal(err)
	}

	// The other home has backup already, with its own secret and a different command.
	b := openStarted(t, dst)
	waitRole(t, b, RoleWriter)
	old := def.Clone()
	old.Steps[0].Argv = []string{"rsync", "src", "dst"}
	old.Steps[0].Env["API_TOKEN"] = "dst-token-value"
	if _, err := b.Intents().AddWorkflow(ctx, old); err != nil {
		t.Fatal(err)
	}
	b.Close()
	before, err := store.ReadHome(dst)
	if err != nil {
		t.Fatal(err)
	}
	text, _, code := run3(dst, "import", file, "--dry-run")
	if code != 0 || !strings.Contains(text, "changes 1 workflow: backup") || !strings.Contains(text, "adds 1 schedule") {
		t.Errorf("dry run: exit %d, said %q", code, text)
	}
	if after, _ := store.ReadHome(dst); after.Generation != before.Generation {
		t.Error("the dry run saved")
	}
	text, _, code = run3(dst, "import", file)
	if code != 0 || !strings.Contains(text, "changed 1 workflow: backup") {
		t.Fatalf("import: exit %d, said %q", code, text)
	}
	after, err := store.ReadHome(dst)
	if err != nil {
		t.Fatal(err)
	}
	w := after.Workflow("backup")
	if w == nil || !slices.Equal(w.Steps[0].Argv, def.Steps[0].Argv) || w.Steps[0].Env["API_TOKEN"] != "dst-token-value" || len(after.Schedules) != 1 {
		t.Errorf("after the import: %+v, %d schedules", w, len(after.Schedules))
	}
	text, _, _ = run3(dst, "import", file)
	if !strings.Contains(text, "unchanged 1 workflow: backup") || strings.Contains(text, "schedule") {
		t.Errorf("a second import says %q", text)
	}
}

// TestImportConflictsChangeNothing: a name taken by another workflow ignoring case, a
// definition that is not valid and a schedule of a workflow in neither the file nor the
// home are each named, and nothing of the file is imported.
func TestImportConflictsChangeNothing(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	w := openStarted(t, home)
	waitRole(t, w, RoleWriter)
	ctx := context.Background()
	if _, err := w.Intents().AddWorkflow(ctx, store.Workflow{Name: "Report", Steps: []store.Step{{Argv: []string{"true"}}}}); err != nil {
		t.Fatal(err)
	}
	f := ExportFile{Format: ExportFormat, Workflows: []store.Workflow{
		{Name: "fine", Steps: []store.Step{{Argv: []string{"true"}}}},
		{Name: "report ", Steps: []store.Step{{Argv: []string{"true"}}}},
		{Name: "empty"},
	}, Schedules: []ExportSchedule{{Workflow: "ghost", Every: store.Duration(time.Hour)}}}
	gen := w.Snapshot().Generation
	p, err := w.Intents().Import(ctx, f)
	if !errors.Is(err, ErrImportConflict) || len(p.Conflicts) != 3 {
		t.Fatalf("import: %v, conflicts %q", err, p.Conflicts)
	}
	for _, want := range []string{"report", "empty", "ghost"} {
		if !strings.Contains(strings.Join(p.Conflicts, "\n"), want) {
			t.Errorf("no conflict names %q: %q", want, p.Conflicts)
		}
	}
	if d := w.Snapshot(); d.Generation != gen || d.Workflow("fine") != nil {
		t.Error("a conflicting import saved part of the file")
	}
	// Without the conflicts, the file goes in whole, in one save.
	f.Workflows, f.Schedules[0].Workflow = f.Workflows[:1], "fine"
	p, err = w.Intents().Import(ctx, f)
	if err != nil || !slices.Equal(p.Add, []string{"fine"}) || p.Schedules != 1 {
		t.Fatalf("import: %v, %+v", err, p)
	}
	if d := w.Snapshot(); d.Generation != gen+1 || d.Workflow("fine") == nil || len(d.Schedules) != 1 {
		t.Errorf("the import took %d saves (want 1); workflows %d, schedules %d", d.Generation-gen, len(d.Workflows), len(d.Schedules))
	}
	if _, err := Export(w.Snapshot(), []string{"nope"}, false); !errors.Is(err, workflow.ErrNotFound) {
		t.Errorf("export of a missing workflow: %v", err)
	}
	if _, err := ParseExport([]byte(`{"workflows": []}`)); !errors.Is(err, ErrExportFormat) {
		t.Errorf("a file without the format: %v", err)
	}
}

// run3 runs a command on home and returns its stdout, stderr and exit code.
func run3(home string, args ...string) (string, string, int) {
	o := cliCmd(home, args...)
	return o.stdout, o.stderr, o.code
}
