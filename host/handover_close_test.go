package host

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"
)

// A window that closes while it hands over (a command leaves as soon as its writer term
// ends) still lets its runs' owner go before state.lock: the window handed over to adopts
// them. Before, the identity went only with Close, after its term's goroutines, which may
// be after the lock: the new writer found the owner alive, left the run, and later failed
// it as a dead owner's (seen by TestCLIRunHandsOver under load, once in many runs).
func TestHandOverWhileClosingAdoptsTheRuns(t *testing.T) {
	home := t.TempDir()
	g := gate(t, t.TempDir())
	a := openStarted(t, home)
	if a.Role() != RoleWriter {
		t.Fatalf("a is %v", a.Role())
	}
	ctx := context.Background()
	def, _ := json.Marshal(oneStep("gated", "fail", "sh", "-c", "read x < "+g))
	if _, err := Call(ctx, a, &Request{Op: "add_workflow", Workflow: def}); err != nil {
		t.Fatal(err)
	}
	rep, err := Call(ctx, a, &Request{Op: "start_run", Workflow: json.RawMessage(`"gated"`)})
	if err != nil {
		t.Fatal(err)
	}
	run := fmt.Sprint(rep["run"])
	b := openStarted(t, home)
	// Close waits for a's term goroutines; one more holds it, so Close cannot let the
	// identity go before the hand-over frees state.lock (the interleaving of the failure).
	a.termWG.Add(1)
	closing := make(chan struct{})
	hooks.handOver = func(w *Core) {
		if w != a {
			return
		}
		go func() { a.Close(); close(closing) }()
		for deadline := time.Now().Add(10 * time.Second); a.Role() != RoleClosed; {
			if time.Now().After(deadline) {
				t.Error("a did not start closing")
				return
			}
			time.Sleep(time.Millisecond)
		}
	}
	t.Cleanup(func() { hooks.handOver = nil })
	if _, err := Call(ctx, b, &Request{Op: "request_write"}); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); b.Role() != RoleWriter; {
		if time.Now().After(deadline) {
			t.Fatalf("b did not become the writer: %v", b.Role())
		}
		time.Sleep(time.Millisecond)
	}
	b.mu.Lock()
	adopted := b.last.Adopted
	b.mu.Unlock()
	a.termWG.Done()
	<-closing
	var ids []string
	for _, o := range adopted {
		ids = append(ids, o.Run)
	}
	if !slices.Contains(ids, run) {
		t.Fatalf("the window handed over to adopted %v, not the running run %s", ids, run)
	}
	<-openGate(g)
}
