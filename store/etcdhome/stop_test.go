package etcdhome

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"baton/store"
)

// TestStoppedWriterNeverWritesAgain: a writer process stopped (SIGSTOP) past its lease,
// while another takes the home, then continued (SIGCONT), has its next save refused
// (ErrFenced) whatever it believes, even before the new writer saved anything; the new
// writer's save stands on the old writer's last.
func TestStoppedWriterNeverWritesAgain(t *testing.T) {
	ctx := testCtx(t)
	prefix := fmt.Sprintf("stop-%d", prefixes.Add(1))
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), envChildEndpoint+"="+shared.endpoint, envChildPrefix+"="+prefix,
		envChildMode+"=write-after-stop")
	cmd.Stderr = os.Stderr
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	out := bufio.NewReader(stdout)
	if line, err := out.ReadString('\n'); err != nil || strings.TrimSpace(line) != "saved" {
		t.Fatalf("child: %q %v", line, err)
	}
	if err := cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	h := openHome(t, shared.client(t), prefix, Options{Lease: 2 * time.Second})
	// Wins once the stopped writer's lease expired, and has not saved yet: the stopped
	// writer's document is still the newest, so only its lost epoch can refuse it.
	w := writer(t, h, ident("server", 20))
	if err := cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	io.WriteString(stdin, "save\n")
	line, err := out.ReadString('\n')
	if err != nil || strings.TrimSpace(line) != "fenced" {
		t.Fatalf("the continued writer's save: %q %v, want fenced", line, err)
	}
	doc, err := w.Update(ctx, addRuns(1, "new"))
	if err != nil {
		t.Fatal(err)
	}
	if doc.Run("old-0000") == nil || doc.Run("new-0000") == nil || doc.Run("late-0000") != nil {
		t.Fatalf("document after the stopped writer's try: %+v", doc.Runs)
	}
}

// runWriterChild wins the home over a 2 s lease, saves, says "saved", and on each line of
// stdin tries another save and says "ok" or "fenced".
func runWriterChild(endpoint, prefix string) {
	fail := func(err error) { fmt.Fprintln(os.Stderr, err); os.Exit(1) }
	cli, err := clientv3.New(clientv3.Config{Endpoints: []string{endpoint}, DialTimeout: 10 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		fail(err)
	}
	h, err := Open(cli, prefix, Options{Lease: 2 * time.Second})
	if err != nil {
		fail(err)
	}
	ctx := context.Background()
	term, err := h.Campaign(ctx, ident("laptop", os.Getpid()))
	if err != nil {
		fail(err)
	}
	if _, err := term.Load(ctx); err != nil {
		fail(err)
	}
	if _, err := term.Update(ctx, addRuns(1, "old")); err != nil {
		fail(err)
	}
	fmt.Println("saved")
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		_, err := term.Update(ctx, func(d *store.Doc) error { return addRuns(1, "late")(d) })
		switch {
		case err == nil:
			fmt.Println("ok")
		case isFenced(err):
			fmt.Println("fenced")
		default:
			fmt.Println("error", err)
		}
	}
	os.Exit(0)
}

func isFenced(err error) bool { return errors.Is(err, ErrFenced) }
