// Command baton runs a person's local workflows by hand and on schedules. Flags and
// wiring only: the core is in host, store and workflow; the window is in ui.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/signal"
	"syscall"

	"fyne.io/fyne/v2/app"

	"baton/host"
	"baton/host/cli"
	"baton/host/control"
	"baton/ui"
	_ "baton/ui/quietlocale" // no "Fyne error: Error parsing user locale C" under LANG=C.UTF-8
	"baton/workflow"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "0.1.0-dev"

func main() { os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == workflow.SuperviseArg { // a run's supervisor: no Fyne, no shell
		return workflow.SuperviseMainWith(args[1:], host.OpenSharedRun)
	}
	if len(args) > 0 && args[0] == "tick" {
		return tick(args[1:], stdout, stderr)
	}
	if len(args) > 0 && cli.IsCommand(args[0]) { // run, status, workflows, runs, logs, cancel
		return command(args, stdout, stderr)
	}
	fs, home, eo := newFlags("baton", stderr)
	headless := fs.Bool("headless", false, "no window: serve the JSON-lines control channel on stdin/stdout")
	showVersion := fs.Bool("version", false, "print the version and exit")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: baton [--home DIR|etcd://h1:2379,h2:2379/prefix] [--headless]\n%s       baton tick --once [--home DIR]\n       baton --version\n\nFlags:\n",
			cli.CommandUsage())
		fs.PrintDefaults()
	}
	if code, ok := parse(fs, args); !ok {
		return code
	}
	if *showVersion {
		fmt.Fprintf(stdout, "baton %s\n", version)
		return 0
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "baton: unexpected argument %q; see baton --help\n", fs.Arg(0))
		return 2
	}
	if !resolveHome(home, stderr) {
		return 1
	}
	logger := log.New(stderr, "baton: ", log.LstdFlags|log.Lmicroseconds)
	opts := host.Options{Logf: logger.Printf, Etcd: *eo}
	if *headless {
		stop := make(chan os.Signal, 1)
		signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
		if err := control.RunHeadless(*home, opts, stdin, stdout, stop); err != nil {
			fmt.Fprintf(stderr, "baton: %v\n", err)
			return 1
		}
		return 0
	}
	return runWindow(*home, opts, stderr)
}

func runWindow(home string, opts host.Options, stderr io.Writer) int {
	ui.StartMemory()
	w, err := host.Open(home, opts)
	if err != nil {
		fmt.Fprintf(stderr, "baton: %v\n", err)
		return 1
	}
	a := app.NewWithID("dev.baton.app")
	a.SetIcon(ui.Icon)
	ui.Version = version
	m := ui.New(a, w, ui.Options{})
	m.Watch()
	go func() {
		if err := w.Start(); err != nil {
			opts.Logf("%v", err)
		}
	}()
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
	go func() {
		// A signal closes the core gracefully (runs recorded, state.lock released) and
		// exits without tearing the window down: Fyne 2.7.1 can crash on a pointer event
		// that reaches a window while it is destroyed, and a signal needs no goodbye.
		<-stop
		m.Stop()
		_ = w.Close()
		os.Exit(0)
	}()
	m.Win.SetMaster()
	m.Win.ShowAndRun()
	m.Stop()
	_ = w.Close()
	return 0
}

// tick is `baton tick --once [--home DIR]`, for a cron, launchd or systemd driver.
func tick(args []string, stdout, stderr io.Writer) int {
	fs, home, eo := newFlags("baton tick", stderr)
	once := fs.Bool("once", false, "run what is due now, then exit (required)")
	if code, ok := parse(fs, args); !ok {
		return code
	}
	if !*once || fs.NArg() > 0 {
		fmt.Fprintf(stderr, "baton tick: usage: baton tick --once [--home DIR]\n")
		return 2
	}
	if !resolveHome(home, stderr) {
		return 1
	}
	logger := log.New(stderr, "baton tick: ", log.LstdFlags|log.Lmicroseconds)
	return host.TickOnce(*home, host.Options{Logf: logger.Printf, Etcd: *eo}, stdout)
}

// command is one of the command-line subcommands (cli.Command): a signal ends its wait.
func command(args []string, stdout, stderr io.Writer) int {
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
	logger := log.New(stderr, "baton "+args[0]+": ", log.LstdFlags|log.Lmicroseconds)
	return cli.Command(args, host.Options{Logf: logger.Printf}, stdout, stderr, stop)
}

// newFlags returns a flag set that reports to stderr, with the --home flag every command
// has and the flags of an etcd home (--etcd-cacert, --etcd-cert, --etcd-key, --lease,
// --local; the user and password only from BATON_ETCD_USER and BATON_ETCD_PASSWORD).
func newFlags(name string, stderr io.Writer) (*flag.FlagSet, *string, *host.EtcdOptions) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	home := fs.String("home", "", "home folder, or an etcd home etcd://host1:2379,host2:2379/prefix (default $BATON_HOME, else the user config folder/baton)")
	var eo host.EtcdOptions
	eo.Register(fs)
	return fs, home, &eo
}

// parse parses args; on failure it returns the exit code (0 for --help, 2 for a bad flag
// or an empty --home).
func parse(fs *flag.FlagSet, args []string) (int, bool) {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0, false
		}
		return 2, false
	}
	if cli.HomeFlagEmpty(fs) {
		fmt.Fprintf(fs.Output(), "%s: --home is empty: name a folder, or leave --home out for the default home\n", fs.Name())
		return 2, false
	}
	return 0, true
}

// resolveHome fills an empty --home with the default home, or says why there is none.
func resolveHome(home *string, stderr io.Writer) bool {
	if *home != "" {
		return true
	}
	h, err := host.DefaultHome()
	if err != nil {
		fmt.Fprintf(stderr, "baton: %v\n", err)
		return false
	}
	*home = h
	return true
}
