package workflow

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"baton/store"
)

func doc(wfs map[string]int, runs ...string) *store.Doc {
	d := &store.Doc{Schema: store.SchemaVersion}
	for name, lane := range wfs {
		d.Workflows = append(d.Workflows, store.Workflow{Name: name, MaxConcurrent: lane, OnOwnerLost: "fail",
			Steps: []store.Step{{Argv: []string{"true"}}}})
	}
	// runs: "id:workflow:status[:owner-instance]"
	for _, r := range runs {
		f := strings.Split(r, ":")
		run := store.Run{ID: f[0], Workflow: f[1], Status: f[2]}
		if len(f) > 3 {
			run.Owner = &store.Owner{PID: 100, Instance: f[3]}
			run.OwnerPID = 100
		}
		d.Runs = append(d.Runs, run)
	}
	return d
}

func ids(d *store.Doc, idx []int) []string {
	out := []string{}
	for _, i := range idx {
		out = append(out, d.Runs[i].ID)
	}
	return out
}

func TestStartableLaneOrder(t *testing.T) {
	cases := []struct {
		name string
		wfs  map[string]int
		runs []string
		want []string
	}{
		{"free lane starts the oldest", map[string]int{"a": 1}, []string{"1:a:queued", "2:a:queued"}, []string{"1"}},
		{"full lane starts nothing", map[string]int{"a": 1}, []string{"1:a:running", "2:a:queued"}, []string{}},
		{"lane of two", map[string]int{"a": 2}, []string{"1:a:running", "2:a:queued", "3:a:queued"}, []string{"2"}},
		{"lanes are per workflow", map[string]int{"a": 1, "b": 1}, []string{"1:a:running", "2:a:queued", "3:b:queued"}, []string{"3"}},
		{"finished runs free slots", map[string]int{"a": 1}, []string{"1:a:failed", "2:a:succeeded", "3:a:queued"}, []string{"3"}},
		{"deleted workflow never starts", map[string]int{"a": 1}, []string{"1:gone:queued"}, []string{}},
		{"queue order is document order", map[string]int{"a": 3}, []string{"5:a:queued", "2:a:queued", "9:a:queued", "1:a:queued"}, []string{"5", "2", "9"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := doc(c.wfs, c.runs...)
			if got := ids(d, Startable(d)); !reflect.DeepEqual(got, c.want) {
				t.Fatalf("startable %v, want %v", got, c.want)
			}
		})
	}
}

func TestClaimMarksOwner(t *testing.T) {
	d := doc(map[string]int{"a": 1}, "1:a:queued", "2:a:queued")
	me := store.Owner{PID: 7, Instance: "me"}
	got := Claim(d, me, time.Unix(10, 0))
	if len(got) != 1 || got[0].ID != "1" || d.Runs[0].Status != store.StatusRunning || d.Runs[0].OwnerPID != 7 || d.Runs[0].Attempt != 1 {
		t.Fatalf("claim: %+v / %+v", got, d.Runs[0])
	}
	if again := Claim(d, me, time.Unix(11, 0)); len(again) != 0 {
		t.Fatalf("claimed past the lane: %v", again)
	}
}

func TestReaperDecisions(t *testing.T) {
	d := doc(map[string]int{"f": 1, "q": 1},
		"1:f:running:dead", "2:q:running:dead", "3:f:running:alive", "4:f:queued", "5:f:succeeded:dead")
	d.Workflows[0].OnOwnerLost = "fail"
	d.Workflow("q").OnOwnerLost = "requeue"
	d.Runs = append(d.Runs, store.Run{ID: "6", Workflow: "f", Status: store.StatusRunning}, // no owner recorded
		store.Run{ID: "7", Workflow: "q", Status: store.StatusQueued})
	d.Schedules = []store.Schedule{{ID: "s", Lock: &store.RunLock{Run: "2"}}, {ID: "t", Lock: &store.RunLock{Run: "3"}}}
	alive := func(o store.Owner) (bool, string) { return o.Instance == "alive", "test evidence " + o.Instance }
	orphans := FindOrphans(d, alive, nil, false)
	got := map[string]string{}
	for _, o := range orphans {
		got[o.Run] = o.Action
	}
	want := map[string]string{"1": "failed", "2": "requeued", "6": "failed"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("orphans %v, want %v", got, want)
	}
	d.Run("1").Machine = "laptop" // an etcd home's run: a pid is named with its machine
	ApplyReap(d, orphans, store.Owner{}, time.Unix(20, 0), nil)
	if r := d.Run("1"); r.Status != store.StatusFailed || !strings.Contains(r.Error, "owner window pid 100 on machine laptop died") || !strings.Contains(r.Error, "test evidence dead") {
		t.Fatalf("failed run: %+v", r)
	}
	if r := d.Run("6"); strings.Contains(r.Error, "machine") {
		t.Fatalf("a run without a machine names one: %+v", r)
	}
	if r := d.Run("2"); r.Status != store.StatusQueued || r.Owner != nil {
		t.Fatalf("requeued run: %+v", r)
	}
	if r := d.Run("3"); r.Status != store.StatusRunning {
		t.Fatal("a live owner's run was reaped")
	}
	if d.Schedules[0].Lock != nil || d.Schedules[1].Lock == nil {
		t.Fatalf("schedule locks: %+v %+v", d.Schedules[0].Lock, d.Schedules[1].Lock)
	}
	// q's lane is free again and the re-queued run keeps its place ahead of run 7, queued
	// after it; f's lane stays full with the live owner's run 3, so run 4 waits.
	if got := ids(d, Startable(d)); !reflect.DeepEqual(got, []string{"2"}) {
		t.Fatalf("startable after reap: %v, want [2]", got)
	}
}

func TestWorkflowValidation(t *testing.T) {
	d := &store.Doc{Schema: store.SchemaVersion}
	bad := []struct {
		w    store.Workflow
		want string
	}{
		{store.Workflow{Name: "", Steps: []store.Step{{Argv: []string{"x"}}}}, "name"},
		{store.Workflow{Name: "a"}, "steps"},
		{store.Workflow{Name: "a", Steps: []store.Step{{Argv: []string{}}}}, "argv is empty"},
		{store.Workflow{Name: "a", OnOwnerLost: "explode", Steps: []store.Step{{Argv: []string{"x"}}}}, "on_owner_lost"},
		{store.Workflow{Name: "a", MaxConcurrent: -1, Steps: []store.Step{{Argv: []string{"x"}}}}, "max_concurrent"},
	}
	for _, c := range bad {
		err := AddWorkflow(d, c.w)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want an error naming %q", c.w, err, c.want)
		}
	}
	ok := store.Workflow{Name: "a", Steps: []store.Step{{Argv: []string{"x"}}}}
	if err := AddWorkflow(d, ok); err != nil {
		t.Fatal(err)
	}
	if err := AddWorkflow(d, ok); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Fatalf("duplicate: %v", err)
	}
}
