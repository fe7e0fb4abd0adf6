package host

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"baton/store"
	"baton/store/etcdhome"
	"baton/store/storetest/etcdtest"
	"baton/workflow"
	"baton/workflow/proc"
)

// Runs on an etcd home, with real processes: windows on "machines" (BATON_MACHINE, a
// local folder, a proxy the test can cut), run supervisors holding their own leases, a
// 3-member cluster. What each case checks is read from etcd itself.

// awaitRunIn waits until run id in etcd's document satisfies ok, and returns it.
func (v *etcdView) awaitRunIn(id string, timeout time.Duration, what string, ok func(r *store.Run) bool) store.Run {
	v.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		d := v.doc()
		if r := d.Run(id); r != nil && ok(r) {
			return r.Clone()
		}
		if time.Now().After(deadline) {
			v.t.Fatalf("run %s: %s: not within %s; runs %+v", id, what, timeout, d.Runs)
		}
		v.waitChange(d.Generation)
	}
}

// waitChange returns once the document's meta changed after generation gen was read, or
// after a second (a poll of the condition, not a pass/fail timer).
func (v *etcdView) waitChange(gen uint64) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	for range v.cli.Watch(ctx, v.h.Prefix()+"/doc/meta") {
		return
	}
}

// runState reads run id's attempt in etcd (alive key, journal, tail).
func (v *etcdView) runState(id string, attempt int) etcdhome.RunState {
	v.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	st, err := v.h.RunState(ctx, workflow.SharedRunKey(id, attempt))
	if err != nil {
		v.t.Fatal(err)
	}
	return st
}

// killRunsOf kills, at the end of a test, the supervisors and steps started from the
// local folder of m (their marker names it, not the etcd home).
func killRunsOf(t *testing.T, m *etcdMachine) {
	t.Cleanup(func() { proc.KillAll(nil, [][]string{{workflow.EnvHome + "=" + m.local}}, 5*time.Second) })
}

// Not parallel (nor are the other etcd process tests): with 2 s leases they run alone,
// as beside parallel tests on a loaded machine they lost what they observe.
func TestEtcdRuns(t *testing.T) {
	c := etcdtest.StartCluster(t, 3)
	cli := etcdtest.Client(t, c.Endpoints()...)

	// A run on an etcd home: its supervisor holds its own lease and mirrors its journal;
	// the outcome is recorded, with the machine it ran on; the supervisor's alive key goes
	// with its end, its journal in etcd ends with the end record.
	t.Run("RunCompletes", func(t *testing.T) {
		v := newEtcdView(t, cli, "done")
		m := newEtcdMachine(t, c, "m1")
		killRunsOf(t, m)
		// The window reaches etcd with a user and password (the cluster has no auth: they
		// are accepted and unused); the run's step prints its whole environment.
		const password = "etcd-pw-never-in-a-step"
		a := startChild(t, m.home("done"), withEnv(EnvMachine+"="+m.name, "BATON_TEST_LOCAL="+m.local, "BATON_TEST_LEASE=2s",
			etcdhome.EnvUser+"=baton", etcdhome.EnvPassword+"="+password))
		if r := a.initialRole(); r != "writer" {
			t.Fatalf("first window: %s", r)
		}
		const secret = "s3cr3t-value-of-the-step"
		a.ok(map[string]any{"op": "add_workflow", "workflow": map[string]any{"name": "w", "max_concurrent": 1,
			"steps": []any{map[string]any{"name": "s", "argv": []string{"sh", "-c", "echo hello from the step $API_TOKEN; env"},
				"env": map[string]string{"API_TOKEN": secret}}}}})
		id := a.ok(map[string]any{"op": "start_run", "workflow": "w"})["run"].(string)
		r := v.awaitRunIn(id, 30*time.Second, "succeeded", func(r *store.Run) bool { return !r.Active() })
		if r.Status != store.StatusSucceeded || r.Machine != "m1" || r.Attempt != 1 {
			t.Fatalf("run: %+v", r)
		}
		t.Logf("a one-step run on an etcd home: %s from its claim to its recorded end", r.Ended.Sub(r.Started).Round(time.Millisecond))
		st := v.runState(id, 1)
		for deadline := time.Now().Add(30 * time.Second); st.Alive != nil; st = v.runState(id, 1) { // it revokes its lease as it exits
			if time.Now().After(deadline) {
				t.Fatalf("the supervisor's alive key is still there 30s after the run ended: %+v", st.Alive)
			}
			v.waitRunChange(id, 1, st.Rev)
		}
		j, err := workflow.FoldJournal("etcd", st.Journal)
		if err != nil || !j.Ended || j.Status != store.StatusSucceeded || len(j.Steps) != 1 {
			t.Fatalf("journal in etcd: %+v, %v (records %q)", j, err, st.Journal)
		}
		if !strings.Contains(string(st.LogTail), "hello from the step "+workflow.SecretMask) || strings.Contains(string(st.LogTail), secret) {
			t.Errorf("log tail in etcd (the step's output, its secret redacted): %q", st.LogTail)
		}
		// A run that ended well lost no lease, and says none; the etcd password (and the
		// user's variable) reach no step: neither the log nor its tail in etcd has them.
		logA, err := os.ReadFile(filepath.Join(m.local, "runs", id+".log"))
		if err != nil || !strings.Contains(string(logA), "hello from the step") {
			t.Fatalf("the run's log on m1: %v\n%s", err, logA)
		}
		for what, b := range map[string][]byte{"log": logA, "log tail in etcd": st.LogTail} {
			if strings.Contains(string(b), "lost its lease") {
				t.Errorf("the %s of a run that succeeded says it lost its lease:\n%s", what, b)
			}
			if strings.Contains(string(b), password) || strings.Contains(string(b), etcdhome.EnvUser) || strings.Contains(string(b), etcdhome.EnvPassword) {
				t.Errorf("the %s shows the etcd credentials:\n%s", what, b)
			}
		}
		if got := a.ok(map[string]any{"op": "snapshot"}); !strings.Contains(fmt.Sprint(got["runs"]), "machine:m1") {
			t.Errorf("the snapshot does not show the run's machine: %v", got["runs"])
		}
	})

	// The writer's machine is cut off mid-step: its supervisor cannot renew its lease and
	// kills its step before the lease can expire; the other machine takes over, sees the
	// lease go and re-queues the run (on_owner_lost requeue), whose second attempt runs
	// there. Both attempts write their times (one clock: the same real host) to one file:
	// the first attempt's last line comes before the second's first. The reverse control
	// turns the kill off (a test hook) and must see the attempts overlap.
	for _, killOff := range []bool{false, true} {
		name := "CutOffNoOverlap"
		if killOff {
			name = "CutOffReverseControlOverlaps"
		}
		t.Run(name, func(t *testing.T) { cutOffRun(t, c, cli, killOff, "requeue") })
	}
	// Nothing is acted on before it is durable in etcd: the machine is cut off while step 1
	// runs, step 1 then ends by itself; its end cannot reach etcd, nor step 2's start, so
	// step 2 never starts, and the supervisor, its lease lost, records why locally (this
	// once hung: Lost waited on a lock an Append held while etcd did not answer).
	t.Run("CutOffBetweenSteps", func(t *testing.T) { cutOffBetweenSteps(t, c, cli) })

	// The same under on_owner_lost fail: once the cut-off supervisor's lease is gone the
	// other machine records the run failed; no attempt follows.
	t.Run("CutOffFail", func(t *testing.T) { cutOffRun(t, c, cli, false, "fail") })

	// Machine A killed -9 whole mid-run (its window, the run's supervisor, the step and
	// what it left behind): B takes over after the lease and each policy does what it
	// says (adopt has no supervisor left to follow: failed).
	for _, policy := range []string{"fail", "requeue", "adopt"} {
		t.Run("MachineKill9/"+policy, func(t *testing.T) { machineLost(t, c, cli, false, policy, true) })
	}

	for _, policy := range []string{"fail", "requeue", "adopt"} {
		t.Run("SameMachineKill9/"+policy, func(t *testing.T) { sameMachinePolicy(t, c, cli, policy) })
	}

	// A schedule on an etcd home fires; its run lock holds across machines: the writer
	// on A is killed -9 while the schedule's run (on_owner_lost adopt) runs on A; B takes
	// over, adopts the run through etcd, and while it runs skips the occurrences that come
	// due (the lock); once it ends, the next occurrence runs on B. No two runs of the
	// schedule ever run at once (their times, from one clock, do not overlap).
	t.Run("ScheduleLockAcrossMachines", func(t *testing.T) { scheduleAcrossMachines(t, c, cli) })

	// `baton tick --once` on an etcd home with no window open: it takes the writer role,
	// runs the due occurrence to its end under a supervisor with its lease, and exits.
	t.Run("TickOnce", func(t *testing.T) {
		v := newEtcdView(t, cli, "tick")
		m := newEtcdMachine(t, c, "m1")
		killRunsOf(t, m)
		a := m.window(t, "tick", "2s")
		if r := a.initialRole(); r != "writer" {
			t.Fatalf("first window: %s", r)
		}
		a.ok(addWF("w", 1, "fail", "sh", "-c", "echo ticked"))
		a.ok(map[string]any{"op": "add_schedule", "schedule": map[string]any{"workflow": "w", "every": "1s"}})
		if err := a.close(); err != nil {
			t.Fatal(err)
		}
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) { // no window left in the election
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			_, _, err := v.h.Writer(ctx)
			cancel()
			if errors.Is(err, etcdhome.ErrNoWriter) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the closed window is still in the election 30s later: %v", err)
			}
		}
		due := v.doc().Schedules[0].NextDue
		time.Sleep(time.Until(due) + 50*time.Millisecond) // the occurrence is due: the condition is the clock's
		p := &tickProc{done: make(chan struct{})}
		p.cmd = exec.Command(os.Args[0], "-test.run=^$")
		p.cmd.Env = append(os.Environ(), "BATON_TEST_CHILD=tick", "BATON_TEST_HOME="+m.home("tick"),
			EnvMachine+"=m1", "BATON_TEST_LOCAL="+m.local, "BATON_TEST_LEASE=2s")
		p.cmd.Stdout = &p.out
		if err := p.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		go func() { _ = p.cmd.Wait(); close(p.done) }()
		t.Cleanup(p.kill9)
		code, out, _, exited := p.wait(60 * time.Second)
		if !exited || code != 0 || !strings.Contains(out, "succeeded") || strings.Contains(out, " 0 run(s)") {
			t.Fatalf("tick --once on an etcd home: exit %d (exited %v): %s", code, exited, out)
		}
		n := 0
		for _, r := range v.doc().Runs {
			if r.Schedule != "" && r.Owner != nil && r.Owner.PID == p.cmd.Process.Pid {
				n++
				if r.Status != store.StatusSucceeded || r.Machine != "m1" {
					t.Fatalf("the tick's run: %+v", r)
				}
			}
		}
		if n == 0 {
			t.Fatalf("no run of the tick in etcd; it said: %s", out)
		}
		t.Logf("tick --once: %s", strings.TrimSpace(out))
	})

	// Adopt across machines: the writer on machine A is killed -9 (no survivor on A); its
	// run's supervisor lives on. Machine B takes over after the lease, adopts the run
	// through etcd (its journal and lease) and records its end, once.
	t.Run("AdoptAcrossMachines", func(t *testing.T) { adoptAcross(t, c, cli, false) })
	// The same, and B cancels the adopted run: through etcd, its supervisor on ma ends it
	// cancelled, and B records that.
	t.Run("CancelAcrossMachines", func(t *testing.T) { adoptAcross(t, c, cli, true) })

	// A supervisor killed -9 (its window killed -9 first: nobody here reaps) cannot kill
	// its step, yet the step and a grandchild in its group are dead by the time its lease
	// is gone: a re-queued attempt elsewhere could never run beside them.
	t.Run("SupervisorKill9StepsDie", func(t *testing.T) { supervisorKill9(t, c, cli) })
}

// supervisorKill9: see TestEtcdRuns/SupervisorKill9StepsDie.
func supervisorKill9(t *testing.T, c *etcdtest.Cluster, cli *clientv3.Client) {
	v := newEtcdView(t, cli, "sk9")
	m := newEtcdMachine(t, c, "m1")
	killRunsOf(t, m)
	a := m.window(t, "sk9", "2s")
	if r := a.initialRole(); r != "writer" {
		t.Fatalf("first window: %s", r)
	}
	dir := t.TempDir()
	a.ok(addWF("w", 1, "adopt", "sh", "-c", "sleep 1000 & echo $! > "+dir+"/gc.tmp; mv "+dir+"/gc.tmp "+dir+"/gc; "+
		"echo $$ > "+dir+"/step.tmp; mv "+dir+"/step.tmp "+dir+"/step; wait"))
	id := a.ok(map[string]any{"op": "start_run", "workflow": "w"})["run"].(string)
	var pids [2]int
	var starts [2]uint64
	for i, name := range []string{"step", "gc"} {
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) { // the step writes it
			b, err := os.ReadFile(filepath.Join(dir, name))
			if err == nil {
				pids[i], _ = strconv.Atoi(strings.TrimSpace(string(b)))
				starts[i], _ = proc.Start(pids[i])
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the step did not write its %s pid within 30s", name)
			}
		}
	}
	st := v.runState(id, 1)
	if st.Alive == nil {
		t.Fatalf("the run's supervisor holds no lease: %+v", st)
	}
	a.kill9()
	if err := syscall.Kill(st.Alive.Owner.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(60 * time.Second); st.Alive != nil; st = v.runState(id, 1) { // its lease expires
		if time.Now().After(deadline) {
			t.Fatalf("the killed supervisor's lease is still there 60s later")
		}
		v.waitRunChange(id, 1, st.Rev)
	}
	for i, what := range []string{"step", "grandchild in the step's group"} {
		if proc.Alive(pids[i], starts[i]) {
			t.Errorf("the %s (pid %d) outlived its supervisor's lease", what, pids[i])
		}
	}
}

// sameMachinePolicy: two windows on one machine; the writer is killed -9 mid-step and
// the survivor takes over at once (its instance lock proves the death). fail: the run is
// killed and failed; requeue: killed, and its second attempt runs to its end; adopt: the
// run goes on and the survivor records its end. Attempt 1's step blocks on a gate the
// test opens once the policy was applied; a killed step never gets to write its line.
func sameMachinePolicy(t *testing.T, c *etcdtest.Cluster, cli *clientv3.Client, policy string) {
	prefix := "same-" + policy
	v := newEtcdView(t, cli, prefix)
	m := newEtcdMachine(t, c, "m1")
	killRunsOf(t, m)
	dir := t.TempDir()
	gate, first, out, pidFile := filepath.Join(dir, "gate"), filepath.Join(dir, "first"), filepath.Join(dir, "out"), filepath.Join(dir, "pid")
	step := fmt.Sprintf(`if [ -e %[2]s ]; then echo attempt2 >> %[3]s; exit 0; fi; touch %[2]s; echo $$ > %[4]s; while [ ! -e %[1]s ]; do sleep 0.02; done; echo attempt1 >> %[3]s`, gate, first, out, pidFile)
	a := m.window(t, prefix, "30s")
	if r := a.initialRole(); r != "writer" {
		t.Fatalf("first window: %s", r)
	}
	a.ok(addWF("w", 1, policy, "sh", "-c", step))
	b := m.window(t, prefix, "30s")
	if r := b.initialRole(); r != "reader" {
		t.Fatalf("second window: %s", r)
	}
	id := a.ok(map[string]any{"op": "start_run", "workflow": "w"})["run"].(string)
	waitStepStarted(t, v, id, 1)
	var pid int
	var start uint64
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(5 * time.Millisecond) { // polls a condition
		bs, err := os.ReadFile(pidFile)
		pid, _ = strconv.Atoi(strings.TrimSpace(string(bs)))
		if start, _ = proc.Start(pid); err == nil && pid > 0 && start > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("attempt 1's step did not say its pid within 30s")
		}
	}
	from := b.nEvents()
	a.kill9()
	writerEventSince(t, b, from, 15*time.Second, "the same machine's survivor must take over at once")
	var r store.Run
	switch policy {
	case "fail":
		r = v.awaitRunIn(id, 30*time.Second, "failed", func(r *store.Run) bool { return !r.Active() })
	case "requeue":
		r = v.awaitRunIn(id, 30*time.Second, "attempt 2 ended", func(r *store.Run) bool { return r.Attempt == 2 && !r.Active() })
	case "adopt":
		v.awaitRunIn(id, 30*time.Second, "adopted", func(r *store.Run) bool { return r.Owner != nil && r.Owner.PID == b.pid })
	}
	if policy != "adopt" { // recorded only once its processes were killed
		if proc.Alive(pid, start) {
			t.Fatalf("%s: attempt 1's step pid %d is alive after the run was settled", policy, pid)
		}
	}
	if err := os.WriteFile(gate, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if policy == "adopt" {
		r = v.awaitRunIn(id, 30*time.Second, "ended", func(r *store.Run) bool { return !r.Active() })
	}
	want := map[string]string{"fail": store.StatusFailed, "requeue": store.StatusSucceeded, "adopt": store.StatusSucceeded}[policy]
	if r.Status != want || r.Machine != "m1" {
		t.Fatalf("%s: run %+v, want %s", policy, r, want)
	}
	got, _ := os.ReadFile(out)
	wantOut := map[string]string{"fail": "", "requeue": "attempt2\n", "adopt": "attempt1\n"}[policy]
	if string(got) != wantOut {
		t.Fatalf("%s: the steps wrote %q, want %q", policy, got, wantOut)
	}
	if r2 := v.doc().Run(id); r2.Status != r.Status || !r2.Ended.Equal(r.Ended) {
		t.Fatalf("the run changed after its end was recorded: %+v", r2)
	}
}

// waitStepStarted waits until the etcd journal of run id's attempt shows a step started.
func waitStepStarted(t *testing.T, v *etcdView, id string, attempt int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		st := v.runState(id, attempt)
		if j, err := workflow.FoldJournal("etcd", st.Journal); err == nil && len(j.Steps) > 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("run %s attempt %d: no step started in etcd's journal within 30s: %q", id, attempt, st.Journal)
		}
		v.waitRunChange(id, attempt, st.Rev)
	}
}

// waitRunChange returns once a key of the run's attempt changed after rev, or after a
// second.
func (v *etcdView) waitRunChange(id string, attempt int, rev int64) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_ = v.h.WatchRun(ctx, workflow.SharedRunKey(id, attempt), func(st etcdhome.RunState) bool { return st.Rev <= rev })
}

func cutOffRun(t *testing.T, c *etcdtest.Cluster, cli *clientv3.Client, killOff bool, policy string) {
	machineLost(t, c, cli, killOff, policy, false)
}

// machineLost: machine A's writer runs a step, then A is lost, cut off (kill false) or
// killed -9 whole (kill: its window and every process of its runs), and machine B takes over once A's leases are gone and applies the run's
// policy: fail and adopt (its supervisor is gone: nothing to adopt) record it failed,
// requeue runs attempt 2 on B, never beside attempt 1 (times from one clock).
func machineLost(t *testing.T, c *etcdtest.Cluster, cli *clientv3.Client, killOff bool, policy string, kill bool) {
	prefix := "cut-" + policy
	if killOff {
		prefix = "cutrev"
	}
	if kill {
		prefix = "kill-" + policy
	}
	v := newEtcdView(t, cli, prefix)
	ma, mb := newEtcdMachine(t, c, "ma"), newEtcdMachine(t, c, "mb")
	killRunsOf(t, ma)
	killRunsOf(t, mb)
	dir := t.TempDir()
	times, first := filepath.Join(dir, "times"), filepath.Join(dir, "first")
	// Attempt 1 ticks until killed, and so does a grandchild of it that left its process
	// group (setsid: only the run's markers find it); attempt 2 writes its start, ticks a
	// while, ends.
	step := fmt.Sprintf(`if [ -e %[2]s ]; then echo "2 start $(date +%%s%%N)" >> %[1]s; i=0; while [ $i -lt 40 ]; do echo "2 tick $(date +%%s%%N)" >> %[1]s; sleep 0.02; i=$((i+1)); done; exit 0; fi
touch %[2]s; setsid sh -c 'while :; do echo "1 tick $(date +%%s%%N)" >> %[1]s; sleep 0.02; done' &
while :; do echo "1 tick $(date +%%s%%N)" >> %[1]s; sleep 0.02; done`, times, first)
	env := []string{}
	if killOff {
		env = append(env, "BATON_TEST_LEASE_KILL_OFF=1") // workflow/hooks_on.go
	}
	a := startChild(t, ma.home(prefix), withEnv(append(env, EnvMachine+"=ma", "BATON_TEST_LOCAL="+ma.local, "BATON_TEST_LEASE=2s")...))
	if r := a.initialRole(); r != "writer" {
		t.Fatalf("first window: %s", r)
	}
	a.ok(addWF("w", 1, policy, "sh", "-c", step))
	b := mb.window(t, prefix, "2s")
	if r := b.initialRole(); r != "reader" {
		t.Fatalf("second window: %s", r)
	}
	id := a.ok(map[string]any{"op": "start_run", "workflow": "w"})["run"].(string)
	waitStepStarted(t, v, id, 1)
	// The journal says the step started before the step runs: wait for its first tick, so
	// that attempt 1 ran before machine A is lost (on a loaded machine it may not have).
	waitUntil(t, "attempt 1's first tick", func() bool {
		data, _ := os.ReadFile(times)
		return bytes.Contains(data, []byte("1 tick "))
	})
	from := b.nEvents()
	if kill {
		st := v.runState(id, 1)
		if st.Alive == nil {
			t.Fatalf("the run's supervisor holds no lease: %+v", st)
		}
		// The whole machine dies: its window, and every process of its runs (their
		// marker names its local folder): supervisors, steps, what steps left behind.
		// The supervisor goes before its step: a machine dies at once, and a supervisor
		// that outlived its step by a moment would record the step killed.
		a.kill9()
		if err := syscall.Kill(st.Alive.Owner.PID, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		proc.KillAll(nil, [][]string{{workflow.EnvHome + "=" + ma.local}}, 5*time.Second)
	} else {
		ma.proxy.Cut()
		t.Cleanup(ma.proxy.Join)
	}
	writerEventSince(t, b, from, 30*time.Second, "machine B must take over once A's lease expired")
	if policy == "fail" || policy == "adopt" {
		r := v.awaitRunIn(id, 60*time.Second, "failed", func(r *store.Run) bool { return !r.Active() })
		// Recorded at the takeover (its lease already gone) or by the follower (when it went).
		if r.Status != store.StatusFailed || r.Attempt != 1 ||
			!(strings.Contains(r.Error, "died without recording the end") || strings.Contains(r.Error, "lost its lease")) {
			t.Fatalf("the cut-off machine's run under fail: %+v", r)
		}
		if st := v.runState(id, 1); st.Alive != nil {
			t.Fatalf("recorded failed while its supervisor's lease lives: %+v", st.Alive)
		}
		return
	}
	r := v.awaitRunIn(id, 60*time.Second, "attempt 2 ended on mb", func(r *store.Run) bool {
		return r.Attempt == 2 && !r.Active()
	})
	if r.Status != store.StatusSucceeded || r.Machine != "mb" {
		t.Fatalf("attempt 2: %+v", r)
	}
	last1, start2 := readTimes(t, times)
	logA, _ := os.ReadFile(filepath.Join(ma.local, "runs", id+".log"))
	if !killOff && !kill { // the cut-off supervisor said why, in its log and its local journal
		j, err := workflow.ReadJournal(ma.local, id)
		if err != nil || !j.Ended || j.Status != store.StatusFailed || !strings.Contains(j.Error, "lost its lease") ||
			!strings.Contains(string(logA), "lost its lease") {
			t.Errorf("attempt 1's local record on ma: journal %+v (%v); log:\n%s", j, err, logA)
		}
	}
	overlap := last1 >= start2
	t.Logf("attempt 1's last tick %d ns, attempt 2's start %d ns: gap %s (kill before expiry off: %v)",
		last1, start2, time.Duration(start2-last1), killOff)
	switch {
	case !killOff && overlap:
		t.Fatalf("attempt 1 on the cut-off machine still ran when attempt 2 started: last tick %d >= start %d", last1, start2)
	case killOff && !overlap:
		t.Fatalf("reverse control: with the kill before expiry off, the attempts should overlap, but attempt 1's last tick %d < attempt 2's start %d", last1, start2)
	}
}

// readTimes returns attempt 1's last tick and attempt 2's start from the times file.
func readTimes(t *testing.T, path string) (last1, start2 int64) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) != 3 {
			continue
		}
		ns, err := strconv.ParseInt(fs[2], 10, 64)
		if err != nil {
			continue
		}
		switch {
		case fs[0] == "1" && ns > last1:
			last1 = ns
		case fs[0] == "2" && fs[1] == "start" && start2 == 0:
			start2 = ns
		}
	}
	if last1 == 0 || start2 == 0 {
		t.Fatalf("times file %s lacks attempt 1's ticks or attempt 2's start", path)
	}
	return last1, start2
}

func scheduleAcrossMachines(t *testing.T, c *etcdtest.Cluster, cli *clientv3.Client) {
	v := newEtcdView(t, cli, "sched")
	ma, mb := newEtcdMachine(t, c, "ma"), newEtcdMachine(t, c, "mb")
	killRunsOf(t, ma)
	killRunsOf(t, mb)
	dir := t.TempDir()
	gate, first, times := filepath.Join(dir, "gate"), filepath.Join(dir, "first"), filepath.Join(dir, "times")
	step := fmt.Sprintf(`echo "start $(date +%%s%%N)" >> %[3]s; if [ ! -e %[2]s ]; then touch %[2]s; while [ ! -e %[1]s ]; do sleep 0.02; done; fi; echo "end $(date +%%s%%N)" >> %[3]s`, gate, first, times)
	a := ma.window(t, "sched", "2s")
	if r := a.initialRole(); r != "writer" {
		t.Fatalf("first window: %s", r)
	}
	a.ok(addWF("w", 1, "adopt", "sh", "-c", step))
	b := mb.window(t, "sched", "2s")
	if r := b.initialRole(); r != "reader" {
		t.Fatalf("second window: %s", r)
	}
	sc := a.ok(map[string]any{"op": "add_schedule", "schedule": map[string]any{"workflow": "w", "every": "1s", "overlap": "skip"}})
	t.Logf("schedule: %v", sc)
	var r1 store.Run
	for deadline := time.Now().Add(30 * time.Second); r1.ID == ""; {
		d := v.doc()
		for _, r := range d.Runs {
			if r.Schedule != "" && r.Status == store.StatusRunning {
				r1 = r.Clone()
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no scheduled run within 30s: %+v", d.Runs)
		}
		if r1.ID == "" {
			v.waitChange(d.Generation)
		}
	}
	if r1.Machine != "ma" {
		t.Fatalf("the first scheduled run: %+v", r1)
	}
	waitStepStarted(t, v, r1.ID, 1)
	from := b.nEvents()
	a.kill9()
	writerEventSince(t, b, from, 30*time.Second, "machine B must take over once A's lease expired")
	// B's scheduler passes occurrences due after the takeover while run 1 holds the lock.
	skippedAfter := time.Now().Add(2 * time.Second)
	for deadline := time.Now().Add(30 * time.Second); ; {
		d := v.doc()
		if len(d.Schedules) != 1 {
			t.Fatalf("schedules: %+v", d.Schedules)
		}
		if d.Schedules[0].LastDue.After(skippedAfter) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("B's scheduler did not pass an occurrence within 30s: %+v", d.Schedules[0])
		}
		v.waitChange(d.Generation)
	}
	d := v.doc()
	for _, r := range d.Runs {
		if r.Schedule != "" && r.ID != r1.ID {
			t.Fatalf("a second run of the schedule while run %s holds its lock: %+v", r1.ID, r)
		}
	}
	if r := d.Run(r1.ID); r.Status != store.StatusRunning || r.Owner == nil || r.Owner.PID != b.pid {
		t.Fatalf("run 1 is not adopted by B: %+v", r)
	}
	if err := os.WriteFile(gate, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); ; {
		d := v.doc()
		var onB bool
		for _, r := range d.Runs {
			onB = onB || (r.Schedule != "" && r.Machine == "mb" && r.Status == store.StatusSucceeded)
		}
		if onB {
			if r := d.Run(r1.ID); r.Status != store.StatusSucceeded {
				t.Fatalf("run 1: %+v", r)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no scheduled run succeeded on mb within 30s: %+v", d.Runs)
		}
		v.waitChange(d.Generation)
	}
	checkNoOverlap(t, times)
}

// checkNoOverlap fails if two runs' start/end intervals in the times file overlap
// (start and end lines alternate while runs never overlap).
func checkNoOverlap(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := "start"
	n := 0
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if !strings.HasPrefix(line, want+" ") {
			t.Fatalf("runs of the schedule overlap: %q where a %q line was due:\n%s", line, want, b)
		}
		if want == "start" {
			want = "end"
		} else {
			want, n = "start", n+1
		}
	}
	t.Logf("%d runs of the schedule, none beside another", n)
}

// adoptAcross: the writer on A is killed -9 (no survivor on A); its run's supervisor lives
// on. B takes over after the lease, adopts the run through etcd, and records its end
// once; with cancel, B cancels it first.
func adoptAcross(t *testing.T, c *etcdtest.Cluster, cli *clientv3.Client, cancel bool) {
	prefix := "adopt"
	if cancel {
		prefix = "adoptcancel"
	}
	v := newEtcdView(t, cli, prefix)
	ma, mb := newEtcdMachine(t, c, "ma"), newEtcdMachine(t, c, "mb")
	killRunsOf(t, ma)
	killRunsOf(t, mb)
	gate := filepath.Join(t.TempDir(), "go")
	a := ma.window(t, prefix, "2s")
	if r := a.initialRole(); r != "writer" {
		t.Fatalf("first window: %s", r)
	}
	a.ok(addWF("w", 1, "adopt", "sh", "-c", "while [ ! -e "+gate+" ]; do sleep 0.02; done; echo released"))
	b := mb.window(t, prefix, "2s")
	if r := b.initialRole(); r != "reader" {
		t.Fatalf("second window: %s", r)
	}
	id := a.ok(map[string]any{"op": "start_run", "workflow": "w"})["run"].(string)
	waitStepStarted(t, v, id, 1)
	from := b.nEvents()
	a.kill9()
	writerEventSince(t, b, from, 30*time.Second, "machine B must take over once A's writer lease expired")
	r := v.awaitRunIn(id, 30*time.Second, "adopted by B", func(r *store.Run) bool {
		return r.Owner != nil && r.Owner.PID == b.pid
	})
	if r.Status != store.StatusRunning || r.Machine != "ma" {
		t.Fatalf("adopted run: %+v", r)
	}
	if st := v.runState(id, 1); st.Alive == nil || st.Alive.Machine != "ma" {
		t.Fatalf("the supervisor on ma does not hold its lease: %+v", st)
	}
	if cancel {
		b.ok(map[string]any{"op": "cancel_run", "run": id})
		r = v.awaitRunIn(id, 30*time.Second, "ended", func(r *store.Run) bool { return !r.Active() })
		if r.Status != store.StatusCancelled || r.Attempt != 1 {
			t.Fatalf("the adopted run, cancelled from B: %+v", r)
		}
		return
	}
	if err := os.WriteFile(gate, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	r = v.awaitRunIn(id, 30*time.Second, "ended", func(r *store.Run) bool { return !r.Active() })
	if r.Status != store.StatusSucceeded || r.Attempt != 1 {
		t.Fatalf("the adopted run's end, recorded by B: %+v", r)
	}
	// baton logs on machine B: the log is on ma; the tail comes from etcd, saying where
	// the whole log is.
	var lb lockedBuf
	res := <-cliStart(&lb, []string{"logs", id, "--home", mb.home(prefix), "--local", mb.local})
	if res.code != 0 || !strings.Contains(res.stdout, "released") || !strings.Contains(res.stderr, "machine ma") {
		t.Fatalf("baton logs on another machine: %+v", res)
	}
	gen := v.doc().Generation
	b.ok(addWF("after", 1, "fail")) // a save after the end: the run is not changed again
	if r2 := v.doc().Run(id); r2.Status != r.Status || !r2.Ended.Equal(r.Ended) || v.doc().Generation != gen+1 {
		t.Fatalf("the run changed after its end was recorded: %+v", r2)
	}
}

func cutOffBetweenSteps(t *testing.T, c *etcdtest.Cluster, cli *clientv3.Client) {
	v := newEtcdView(t, cli, "steps")
	m := newEtcdMachine(t, c, "ma")
	killRunsOf(t, m)
	dir := t.TempDir()
	gate, marker := filepath.Join(dir, "gate"), filepath.Join(dir, "step2")
	a := m.window(t, "steps", "2s")
	if r := a.initialRole(); r != "writer" {
		t.Fatalf("first window: %s", r)
	}
	a.ok(map[string]any{"op": "add_workflow", "workflow": map[string]any{"name": "w", "max_concurrent": 1, "steps": []any{
		map[string]any{"name": "one", "argv": []string{"sh", "-c", "while [ ! -e " + gate + " ]; do sleep 0.02; done"}},
		map[string]any{"name": "two", "argv": []string{"touch", marker}},
	}}})
	id := a.ok(map[string]any{"op": "start_run", "workflow": "w"})["run"].(string)
	waitStepStarted(t, v, id, 1)
	m.proxy.Cut()
	t.Cleanup(m.proxy.Join)
	if err := os.WriteFile(gate, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	var j workflow.Journal
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) { // polls a condition
		var err error
		if j, err = workflow.ReadJournal(m.local, id); err == nil && j.Ended {
			break
		}
		if time.Now().After(deadline) {
			logA, _ := os.ReadFile(filepath.Join(m.local, "runs", id+".log"))
			t.Fatalf("the cut-off supervisor did not end within 30s: %+v, %v; its log:\n%s", j, err, logA)
		}
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("step 2 ran although its start could not be made durable in etcd")
	}
	started2 := len(j.Steps) > 1 && j.Steps[1].PID != 0
	if j.Status != store.StatusFailed || !strings.Contains(j.Error, "lost its lease") || started2 {
		t.Fatalf("the local journal of the cut-off run: %+v", j)
	}
}
