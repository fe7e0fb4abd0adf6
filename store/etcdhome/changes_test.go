package etcdhome

import (
	"reflect"
	"slices"
	"testing"

	clientv3 "go.etcd.io/etcd/client/v3"

	"baton/store"
)

// TestSaveWritesExactlyTheDocument: saves that add, change and remove items (a run, a
// workflow, a schedule), one after a conflict's re-read among them, leave under the
// prefix exactly the keys of the document a fresh term loads, and that document is the
// last one saved.
func TestSaveWritesExactlyTheDocument(t *testing.T) {
	ctx := testCtx(t)
	h := newHome(t, Options{})
	a := writer(t, h, ident("laptop", 10))
	steps := []func(*store.Doc) error{
		addRuns(5, "r"),
		func(d *store.Doc) error { d.Runs = slices.Delete(d.Runs, 1, 3); return nil }, // two runs go
		func(d *store.Doc) error {
			d.Runs[0].Status = store.StatusRunning
			d.Schedules = append(d.Schedules, store.Schedule{ID: "s", Workflow: "wf", Cron: "* * * * *"})
			return nil
		},
		func(d *store.Doc) error { d.Schedules = nil; return addRuns(2, "q")(d) },
		func(d *store.Doc) error { d.Runs = d.Runs[:1]; return nil },
	}
	var last *store.Doc
	for i, fn := range steps {
		if i == 3 { // another term's save under a: a's next save conflicts, re-reads, retries
			if err := a.Resign(ctx); err != nil {
				t.Fatal(err)
			}
			b := writer(t, h, ident("server", 20))
			if _, err := b.Update(ctx, func(d *store.Doc) error { d.Runs[1].Step = 7; return nil }); err != nil {
				t.Fatal(err)
			}
			if err := b.Resign(ctx); err != nil {
				t.Fatal(err)
			}
			a = writer(t, h, ident("laptop", 11))
		}
		d, err := a.Update(ctx, fn)
		if err != nil {
			t.Fatalf("save %d: %v", i, err)
		}
		last = d
		checkExactKeys(t, h, d)
	}
	if err := a.Resign(ctx); err != nil {
		t.Fatal(err)
	}
	got, err := writer(t, h, ident("other", 30)).Load(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, last) {
		t.Fatalf("loaded\n%+v\nwant\n%+v", got, last)
	}
}

// checkExactKeys fails unless the keys under <prefix>/doc/ are exactly meta and d's items.
func checkExactKeys(t *testing.T, h *Home, d *store.Doc) {
	t.Helper()
	resp, err := h.cli.Get(testCtx(t), h.docPfx(), clientv3.WithPrefix(), clientv3.WithKeysOnly())
	if err != nil {
		t.Fatal(err)
	}
	var have, want []string
	for _, kv := range resp.Kvs {
		have = append(have, string(kv.Key[len(h.docPfx()):]))
	}
	want = append(want, "meta")
	set := setName(0)
	for _, w := range d.Workflows {
		want = append(want, set+"/"+itemKey(kindWorkflow, w.Name))
	}
	for _, s := range d.Schedules {
		want = append(want, set+"/"+itemKey(kindSchedule, s.ID))
	}
	for _, r := range d.Runs {
		want = append(want, set+"/"+itemKey(kindRun, r.ID))
	}
	slices.Sort(want)
	if !slices.Equal(have, want) {
		t.Fatalf("generation %d: keys %q, want %q", d.Generation, have, want)
	}
}
