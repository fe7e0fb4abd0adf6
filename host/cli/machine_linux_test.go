package cli_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"baton/host"
	"baton/store/storetest/etcdtest"
)

// hideMachine is the child's part of noMachineEnv; it exits 3 when it cannot.
func hideMachine() {
	_ = os.Unsetenv(host.EnvMachine)
	err := syscall.Mount("/dev/null", "/etc/machine-id", "", syscall.MS_BIND, "")
	if errors.Is(err, syscall.ENOENT) {
		err = nil // no /etc/machine-id: hidden already
	}
	if err == nil {
		err = syscall.Sethostname(nil)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "hide the machine's names: %v\n", err)
		os.Exit(3)
	}
}

// TestMigrateNeedsAMachineID: on a machine with no name at all (no BATON_MACHINE, no
// /etc/machine-id, no hostname) a migrate into an etcd home refuses, naming BATON_MACHINE,
// as a window does, rather than taking the home's writer lock as machine "": nothing is
// written under the prefix and the source does not change.
func TestMigrateNeedsAMachineID(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root: the child hides /etc/machine-id and the hostname in namespaces of its own")
	}
	c := etcdtest.StartCluster(t, 1)
	etcd := etcdtest.Client(t, c.Endpoints()...)
	src := seedHome(t)
	before := treeSum(t, src)
	url, local := etcdURL(c, "nameless"), t.TempDir()

	args, _ := json.Marshal([]string{"migrate", "--from", src, "--to", url, "--local", local})
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "BATON_TEST_CHILD=cli", "BATON_TEST_CLI_ARGS="+string(args), noMachineEnv+"=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Unshareflags: syscall.CLONE_NEWNS | syscall.CLONE_NEWUTS}
	out, err := cmd.CombinedOutput()
	t.Logf("baton migrate with no machine id: %v\n%s", err, out)
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() == 3 {
		t.Fatalf("migrate with no machine id: want a refusal, got %v: %s", err, out)
	}
	if !strings.Contains(string(out), host.EnvMachine) {
		t.Fatalf("the refusal does not say to set %s: %s", host.EnvMachine, out)
	}
	if keys := prefixKeys(t, etcd, "nameless"); len(keys) != 0 {
		t.Fatalf("keys under the prefix after the refusal: %v", keys)
	}
	if treeSum(t, src) != before {
		t.Fatal("the source changed")
	}
}
