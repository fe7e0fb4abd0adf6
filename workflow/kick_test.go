package workflow

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"baton/store"
)

// enqueue queues a run of workflow name and reports its id in *id.
func enqueue(name string, id *string) func(*store.Doc) error {
	return func(d *store.Doc) error {
		run, err := Enqueue(d, name, "", time.Now())
		*id = run.ID
		return err
	}
}

// TestKickWithOneSave: a run queued through KickWith is claimed in the same save (one
// generation) and runs; a failing change saves and starts nothing; after Stop the change
// alone is saved and the run stays queued.
func TestKickWithOneSave(t *testing.T) {
	r := newRig(t)
	r.add(store.Workflow{Name: "w", Steps: []store.Step{{Argv: []string{"true"}}}})
	before, _ := r.st.View()
	var id string
	d, ids, err := r.eng.KickWith(r.st.Update, enqueue("w", &id))
	if err != nil {
		t.Fatal(err)
	}
	if d.Generation != before.Generation+1 || len(ids) != 1 || ids[0] != id || d.Run(id).Status != store.StatusRunning {
		t.Fatalf("generation %d → %d, started %v, run %+v; want one save that queued and claimed %s", before.Generation, d.Generation, ids, d.Run(id), id)
	}
	if run := r.wait(id, 30*time.Second); run.Status != store.StatusSucceeded {
		t.Fatalf("run %+v", run)
	}
	now, _ := r.st.View()
	if _, _, err := r.eng.KickWith(r.st.Update, enqueue("nope", &id)); err == nil {
		t.Fatal("a run of an unknown workflow was queued")
	}
	if after, _ := r.st.View(); after.Generation != now.Generation {
		t.Fatalf("a failed change was saved: generation %d → %d", now.Generation, after.Generation)
	}
	r.eng.Stop("test")
	d, ids, err = r.eng.KickWith(r.st.Update, enqueue("w", &id))
	if err != nil || len(ids) != 0 || d.Run(id).Status != store.StatusQueued {
		t.Fatalf("after Stop: %v, started %v, run %+v; want it queued only", err, ids, d.Run(id))
	}
}

// BenchmarkRunStartSaves measures, within one process (a store, an engine with its spare),
// queueing a run → its step's process running: "two_saves" queues it in one save and
// claims it in a second (Kick), as start_run does today; "one_save" does both in one
// (KickWith).
func BenchmarkRunStartSaves(b *testing.B) {
	for _, one := range []bool{false, true} {
		b.Run(map[bool]string{false: "two_saves", true: "one_save"}[one], func(b *testing.B) {
			home, gates := b.TempDir(), b.TempDir()
			st := store.New(home, store.Options{})
			st.Reload()
			st.BeginEpoch()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			e := NewEngine(ctx, st.Update, store.Owner{PID: os.Getpid(), Instance: "bench"}, home, nil)
			defer e.Stop("bench over")
			gated := store.Step{Argv: []string{"sh", "-c", `while [ ! -e "$0/$BATON_RUN_ID" ]; do sleep 0.005; done`, gates}}
			if _, err := st.Update(func(d *store.Doc) error {
				return AddWorkflow(d, store.Workflow{Name: "gated", Steps: []store.Step{gated}})
			}); err != nil {
				b.Fatal(err)
			}
			<-e.spares.refill()
			var lat []time.Duration
			for b.Loop() {
				var id string
				t0 := time.Now()
				var err error
				if one {
					_, _, err = e.KickWith(st.Update, enqueue("gated", &id))
				} else if _, err = st.Update(enqueue("gated", &id)); err == nil {
					_, err = e.Kick()
				}
				if err != nil {
					b.Fatal(err)
				}
				spec := Spec{Home: home, RunID: id}
				lat = append(lat, svStepStarted(b, spec, 0).Steps[0].Started.Sub(t0))
				if err := os.WriteFile(filepath.Join(gates, id), nil, 0o600); err != nil {
					b.Fatal(err)
				}
				for d, _ := st.View(); d.Run(id).Active(); d, _ = st.View() {
					time.Sleep(time.Millisecond) // the store has no event to wait on
				}
				<-e.spares.refill() // the next run finds the spare ready, as a person's would
			}
			reportPercentiles(b, lat, "")
		})
	}
}
