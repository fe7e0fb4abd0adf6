package host_test

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"syscall"
	"testing"

	"baton/host"
	"baton/host/cli"
	"baton/host/control"
	"baton/store/storetest/etcdtest"
	"baton/workflow"
)

// TestMain runs the tests, or makes the test binary one of the processes the
// multi-process tests start (child_test.go): a run's supervisor, a headless window
// (BATON_TEST_CHILD=headless, on the control channel), `baton tick --once` (tick) or a command of the command
// line (cli). It is in the external test package because package host/cli imports host:
// host's own tests run a command as a child process, as a script does.
func TestMain(m *testing.M) {
	// a member of an etcd test cluster (etcd_proc_test.go)
	etcdtest.RunMemberIfAsked()
	if len(os.Args) > 1 && os.Args[1] == workflow.SuperviseArg { // a run's supervisor
		os.Exit(workflow.SuperviseMainWith(os.Args[2:], host.OpenSharedRun))
	}
	switch os.Getenv("BATON_TEST_CHILD") {
	case "headless":
		os.Exit(headlessChild())
	case "tick":
		os.Exit(host.TickChild())
	case "cli":
		os.Exit(commandChild())
	}
	flag.Parse()
	parallelByDefault()
	os.Exit(m.Run())
}

// parallelByDefault lets four parallel tests run at once (twice the CPUs, if more) unless
// -parallel is given. The default, GOMAXPROCS, suits tests that compute; these mostly wait
// on their child processes, leases and clocks (the package uses about a quarter of two
// CPUs with two at a time), so on a 2-CPU machine the default left the CPUs idle for
// minutes. Tests that need the process to themselves are not parallel and never overlap.
func parallelByDefault() {
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if !given {
		_ = flag.Set("test.parallel", strconv.Itoa(max(4, 2*runtime.GOMAXPROCS(0))))
	}
}

// headlessChild serves the control channel on stdin and stdout until stdin ends, a
// shutdown request or SIGTERM.
func headlessChild() int {
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM)
	if err := control.RunHeadless(os.Getenv("BATON_TEST_HOME"), host.ChildOptions(), os.Stdin, os.Stdout, stop); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// commandChild runs the command BATON_TEST_CLI_ARGS (a JSON array of its arguments), with
// the zero Options; no signal ever comes.
func commandChild() int {
	var args []string
	if err := json.Unmarshal([]byte(os.Getenv("BATON_TEST_CLI_ARGS")), &args); err != nil || len(args) == 0 {
		fmt.Fprintf(os.Stderr, "BATON_TEST_CLI_ARGS: %v\n", err)
		return 2
	}
	return cli.Command(args, host.Options{}, os.Stdout, os.Stderr, make(chan os.Signal))
}
