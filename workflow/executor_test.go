package workflow

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"baton/store"
	"baton/workflow/proc"
)

type rig struct {
	t    *testing.T
	home string
	st   *store.Store
	eng  *Engine
}

func newRig(t *testing.T) *rig {
	home := t.TempDir()
	st := store.New(home, store.Options{})
	st.Reload()
	st.BeginEpoch()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	me := store.Owner{PID: os.Getpid(), Instance: "test"}
	r := &rig{t: t, home: home, st: st}
	r.eng = NewEngine(ctx, st.Update, me, home, nil)
	// After the engine stops (cleanups run last first), the store's term ends, and with it
	// its checkpoint timer: a checkpoint firing while the test's folder is removed wrote a
	// temp file into it (1 in 5 under load).
	t.Cleanup(st.EndEpoch)
	t.Cleanup(func() { r.eng.Stop("test over") })
	return r
}

func (r *rig) add(w store.Workflow) {
	r.t.Helper()
	if _, err := r.st.Update(func(d *store.Doc) error { return AddWorkflow(d, w) }); err != nil {
		r.t.Fatal(err)
	}
}

func (r *rig) start(name string) string {
	r.t.Helper()
	var id string
	if _, err := r.st.Update(func(d *store.Doc) error {
		run, err := Enqueue(d, name, "", time.Now())
		id = run.ID
		return err
	}); err != nil {
		r.t.Fatal(err)
	}
	if _, err := r.eng.Kick(); err != nil {
		r.t.Fatal(err)
	}
	return id
}

func (r *rig) wait(id string, timeout time.Duration) store.Run {
	r.t.Helper()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		d, _ := r.st.View()
		if run := d.Run(id); run != nil && !run.Active() {
			return *run
		}
		time.Sleep(5 * time.Millisecond)
	}
	r.t.Fatalf("run %s did not finish in %s", id, timeout)
	return store.Run{}
}

func TestExecutorRunsStepsInOrderWithLog(t *testing.T) {
	r := newRig(t)
	r.add(store.Workflow{Name: "w", Steps: []store.Step{
		{Argv: []string{"sh", "-c", "echo one"}},
		{Argv: []string{"printf", "%s|", "$(id)", "\"; rm -rf ~ #"}},
	}})
	run := r.wait(r.start("w"), 30*time.Second)
	if run.Status != store.StatusSucceeded || *run.ExitCode != 0 {
		t.Fatalf("run: %+v", run)
	}
	log, _ := os.ReadFile(run.Log)
	// argv is passed as given, never through a shell.
	if !strings.Contains(string(log), "one") || !strings.Contains(string(log), `$(id)|"; rm -rf ~ #|`) {
		t.Fatalf("log: %q", log)
	}
}

func TestExecutorFailureNamesStepAndCode(t *testing.T) {
	r := newRig(t)
	r.add(store.Workflow{Name: "w", Steps: []store.Step{{Name: "boom", Argv: []string{"sh", "-c", "exit 3"}}, {Argv: []string{"true"}}}})
	run := r.wait(r.start("w"), 30*time.Second)
	if run.Status != store.StatusFailed || *run.ExitCode != 3 || !strings.Contains(run.Error, "step 1 (boom) exited with code 3") || run.Step != 0 {
		t.Fatalf("run: %+v", run)
	}
}

func TestExecutorMissingProgram(t *testing.T) {
	r := newRig(t)
	r.add(store.Workflow{Name: "w", Steps: []store.Step{{Argv: []string{"/no/such/program"}}}})
	run := r.wait(r.start("w"), 30*time.Second)
	if run.Status != store.StatusFailed || !strings.Contains(run.Error, "cannot start") {
		t.Fatalf("run: %+v", run)
	}
}

func TestExecutorTimeoutKillsGroup(t *testing.T) {
	r := newRig(t)
	dir := t.TempDir()
	// The grandchild's pid is written whole (a rename) or not at all. A second is ample for
	// the shell to get that far; a timeout that came first leaves nothing to check, and the
	// run is tried again (never more than 3 times).
	r.add(store.Workflow{Name: "w", Steps: []store.Step{{Argv: []string{"sh", "-c",
		"sleep 60 & echo $! > " + dir + "/gc.tmp; mv " + dir + "/gc.tmp " + dir + "/gc; sleep 60"}, Timeout: store.Duration(time.Second)}}})
	for try := 1; ; try++ {
		run := r.wait(r.start("w"), 30*time.Second)
		if run.Status != store.StatusFailed || !strings.Contains(run.Error, "timed out after 1s") {
			t.Fatalf("run: %+v", run)
		}
		b, err := os.ReadFile(filepath.Join(dir, "gc"))
		if err != nil {
			if try == 3 {
				t.Fatalf("in %d runs the step never started its grandchild within its 1s: %v", try, err)
			}
			continue
		}
		if gc, _ := strconv.Atoi(strings.TrimSpace(string(b))); gc == 0 || proc.Alive(gc, 0) {
			t.Fatalf("grandchild %q outlived the timed-out step", b)
		}
		return
	}
}

func TestExecutorLaneAndCancel(t *testing.T) {
	r := newRig(t)
	r.add(store.Workflow{Name: "w", MaxConcurrent: 1, Steps: []store.Step{{Argv: []string{"sleep", "60"}}}})
	a := r.start("w")
	b := r.start("w")
	d, _ := r.st.View()
	if d.Run(a).Status != store.StatusRunning || d.Run(b).Status != store.StatusQueued {
		t.Fatalf("lane of 1: %s %s", d.Run(a).Status, d.Run(b).Status)
	}
	if !r.eng.Cancel(a, "by test") {
		t.Fatal("engine does not own the running run")
	}
	if run := r.wait(a, 30*time.Second); run.Status != store.StatusCancelled || run.Error != "by test" {
		t.Fatalf("cancelled run: %+v", run)
	}
	// The freed slot starts the queued run.
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		d, _ := r.st.View()
		if d.Run(b).Status == store.StatusRunning {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatal("queued run did not start after the slot was freed")
}

// A cancel asked while the run is being started (after the engine looked for a cancel,
// before the supervisor runs) still ends the run at once: it must not be lost with the
// files of a previous attempt.
func TestCancelWhileStartingIsNotLost(t *testing.T) {
	r := newRig(t)
	r.add(store.Workflow{Name: "w", Steps: []store.Step{{Argv: []string{"sleep", "60"}}}})
	asked := make(chan bool, 1)
	hooks.cancelLooked = func(id string) { asked <- r.eng.Cancel(id, "while starting") }
	t.Cleanup(func() { hooks.cancelLooked = nil })
	a := r.start("w")
	if !<-asked {
		t.Fatal("engine does not own the run it is starting")
	}
	if run := r.wait(a, 30*time.Second); run.Status != store.StatusCancelled || run.Error != "while starting" {
		t.Fatalf("run cancelled while starting: %+v", run)
	}
}

// A cancel recorded only in the document (a schedule's overrun or replace, decided while
// the engine did not follow the run yet) reaches the supervisor with its reason.
func TestCancelInTheDocumentReachesTheRun(t *testing.T) {
	r := newRig(t)
	r.add(store.Workflow{Name: "w", Steps: []store.Step{{Argv: []string{"sleep", "60"}}}})
	marked := make(chan error, 1)
	hooks.cancelLooked = func(id string) {
		_, err := r.st.Update(func(d *store.Doc) error {
			run := d.Run(id)
			run.CancelRequested, run.CancelReason = true, "cancelled by schedule s1: past max_runtime"
			return nil
		})
		marked <- err
	}
	t.Cleanup(func() { hooks.cancelLooked = nil })
	a := r.start("w")
	if err := <-marked; err != nil {
		t.Fatal(err)
	}
	if run := r.wait(a, 30*time.Second); run.Status != store.StatusCancelled || run.Error != "cancelled by schedule s1: past max_runtime" {
		t.Fatalf("run cancelled in the document: %+v", run)
	}
}

func TestRedactorSplitsAndFlushes(t *testing.T) {
	for _, chunks := range [][]string{{"a secret b"}, {"a sec", "ret b"}, {"a s", "e", "cret", " b"}, {"secretsecret"}, {"x", "secre"}} {
		var out strings.Builder
		r := &redactor{w: &out, secrets: secretValues(map[string]string{"MY_TOKEN": "secret", "OTHER": "nope"})}
		for _, c := range chunks {
			r.Write([]byte(c))
		}
		r.Flush()
		joined := strings.Join(chunks, "")
		want := strings.ReplaceAll(joined, "secret", SecretMask)
		if out.String() != want {
			t.Errorf("%q -> %q, want %q", chunks, out.String(), want)
		}
	}
	for name, secret := range map[string]bool{"API_TOKEN": true, "db_password": true, "AwsSecretKey": true, "ssh_key": true, "PATH": false, "HOME": false} {
		if IsSecretName(name) != secret {
			t.Errorf("IsSecretName(%q) = %v", name, !secret)
		}
	}
}
