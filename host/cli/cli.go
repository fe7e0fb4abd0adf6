// Package cli is the command line: baton run, status, workflows, runs, logs, cancel,
// recover, export, import and migrate (Command), for people (aligned columns, durations as people
// write them) and scripts (--json: one JSON document on stdout). Each command opens a
// host.Core on the home like any other window, so it works whether or not one is open:
//
//   - status, workflows, runs and logs only read. Their window is opened and never
//     started: it reads workflows.json, the archive and the logs, never tries state.lock
//     and never starts a run.
//   - run and cancel start their window as tick --once does (no scheduler). With a writer
//     open it is a reader and forwards the write to the writer (Request.Forward); with none
//     it becomes the writer through the same BecomeWriter.
//
// A command that became the writer leaves only when closing its window would cancel
// nothing (settle). Closing a writer cancels its running runs, except those whose workflow
// says on_owner_lost "adopt", and a run started from the command line must outlive the
// command. Leaving such a run to its supervisor would not do: the next writer's takeover
// kills and fails a run whose owner is dead unless its workflow says "adopt". So `baton run
// W` with no window open stays, as the writer, until the runs its close would cancel have
// ended; "adopt" runs are left going for the next writer to adopt. While it stays it is a
// full writer: it answers forwarded requests, and a window that asks to write gets a
// hand-over (adopting the runs), after which the command leaves at once.
//
// It speaks to the core through host's exported surface only: Open, Start and Close,
// Status and Snapshot, Intents, Call for a request that may be forwarded, and the
// command's own few (RunState, LiveWriter, FindRun, Settle; host/runs.go). Nothing here
// links Fyne.
package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/fsnotify/fsnotify"

	"baton/host"
	"baton/store"
	"baton/store/etcdhome"
	"baton/workflow"
)

// Exit codes of Command.
const (
	exitOK          = 0
	exitFail        = 1   // the command failed, or the run it waited for did not succeed
	exitUsage       = 2   // bad arguments
	exitInterrupted = 130 // a signal ended the wait
)

// logTailLines is how much of a run's log `baton run --wait` prints.
const logTailLines = 20

// followPoll is how often a follow looks again when no file event came (a folder created
// after the watch began is not watched until then).
const followPoll = 500 * time.Millisecond

// command is one subcommand: its usage line, its own flags and its body.
type command struct {
	usage string
	args  int // positional arguments it takes
	flags func(fs *flag.FlagSet, c *cli)
	do    func(c *cli, args []string) int
}

var commands = map[string]command{
	"run": {"baton run WORKFLOW [--task T] [--wait] [--json] [--home DIR]", 1, func(fs *flag.FlagSet, c *cli) {
		fs.StringVar(&c.task, "task", "", "a label for this run")
		fs.BoolVar(&c.wait, "wait", false, "follow the run to its end; exit 0 if it succeeded, else 1")
	}, (*cli).run},
	"status":    {"baton status [--json] [--home DIR]", 0, nil, (*cli).status},
	"workflows": {"baton workflows [--json] [--home DIR]", 0, nil, (*cli).workflows},
	"runs": {"baton runs [--workflow W] [--status S] [--limit N] [--json] [--home DIR]", 0, func(fs *flag.FlagSet, c *cli) {
		fs.StringVar(&c.workflow, "workflow", "", "only the runs of this workflow")
		fs.StringVar(&c.runStatus, "status", "", "only runs with this status: queued, running, succeeded, failed or cancelled")
		fs.IntVar(&c.limit, "limit", 20, "at most this many runs, newest first")
	}, (*cli).runs},
	"logs": {"baton logs RUN [--follow] [--json] [--home DIR]", 1, func(fs *flag.FlagSet, c *cli) {
		fs.BoolVar(&c.follow, "follow", false, "keep printing the log until the run ends")
	}, (*cli).logs},
	"cancel": {"baton cancel RUN [--json] [--home DIR]", 1, nil, (*cli).cancel},
	"recover": {"baton recover [--dry-run] [--json] [--home DIR]", 0, func(fs *flag.FlagSet, c *cli) {
		fs.BoolVar(&c.dryRun, "dry-run", false, "only say what would be restored; change nothing")
	}, (*cli).recover},
	"export": {"baton export [WORKFLOW...] [--secrets] [--home DIR] > file.json", -1, func(fs *flag.FlagSet, c *cli) {
		fs.BoolVar(&c.secrets, "secrets", false, "include secret environment values (left empty by default)")
	}, (*cli).export},
	"import": {"baton import FILE [--dry-run] [--json] [--home DIR]", 1, func(fs *flag.FlagSet, c *cli) {
		fs.BoolVar(&c.dryRun, "dry-run", false, "only say what the import would add, change or conflict with")
	}, (*cli).importFile},
	"migrate": {"baton migrate --from SRC --to DST [--dry-run] [--json] [--local DIR] [--etcd-cacert F …]", 0, migrateFlags, (*cli).migrate},
}

// IsCommand reports whether name is a command-line subcommand (Command serves it).
func IsCommand(name string) bool { _, ok := commands[name]; return ok }

// CommandUsage is the usage lines of every subcommand, one per line.
func CommandUsage() string {
	var b strings.Builder
	for _, name := range []string{"run", "status", "workflows", "runs", "logs", "cancel", "recover", "export", "import", "migrate"} {
		fmt.Fprintf(&b, "       %s\n", commands[name].usage)
	}
	return b.String()
}

// cli is one command being run.
type cli struct {
	name           string // "baton run"
	usage          string
	opts           host.Options
	ctx            context.Context // ends on a signal
	stdout, stderr io.Writer

	home, task, workflow, runStatus string
	json, wait, follow              bool
	secrets, dryRun                 bool // export; import and recover
	limit                           int
	mig                             *migrateOpts // migrate's --from and --to
}

// Command runs the subcommand args[0] with its arguments and returns the exit code: 0
// done, 1 failed (or the run waited for did not succeed), 2 bad arguments, 130 a signal
// on stop ended a wait. Results go to stdout, errors and notes to stderr.
func Command(args []string, opts host.Options, stdout, stderr io.Writer, stop <-chan os.Signal) int {
	cmd, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "baton: unknown command %q\n", args[0])
		return exitUsage
	}
	c := &cli{name: "baton " + args[0], usage: cmd.usage, opts: opts, stdout: stdout, stderr: stderr}
	fs := flag.NewFlagSet(c.name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&c.home, "home", "", "home folder (default $BATON_HOME, else the user config folder/baton)")
	fs.BoolVar(&c.json, "json", false, "print one JSON document, for scripts")
	c.opts.Etcd.Register(fs) // --etcd-cacert, --etcd-cert, --etcd-key, --lease, --local
	if cmd.flags != nil {
		cmd.flags(fs, c)
	}
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: %s\n\nFlags:\n", cmd.usage)
		fs.PrintDefaults()
	}
	pos, err := parseMixed(fs, args[1:])
	switch {
	case errors.Is(err, flag.ErrHelp):
		return exitOK
	case err != nil:
		return exitUsage // the flag package said what is wrong
	case cmd.args >= 0 && len(pos) != cmd.args: // -1: any number
		return c.usageError(fmt.Sprintf("want %d argument(s), got %d", cmd.args, len(pos)))
	case HomeFlagEmpty(fs):
		return c.usageError("--home is empty: name a folder, or leave --home out for the default home")
	}
	if c.home == "" {
		if c.home, err = host.DefaultHome(); err != nil {
			return c.fail(err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-stop:
			cancel()
		case <-ctx.Done():
		}
	}()
	c.ctx = ctx
	return cmd.do(c, pos)
}

// HomeFlagEmpty reports whether the parsed flag set fs was given --home with an empty
// value (a usage error: it does not mean the default home).
func HomeFlagEmpty(fs *flag.FlagSet) (empty bool) {
	fs.Visit(func(f *flag.Flag) {
		if f.Name == "home" && f.Value.String() == "" {
			empty = true
		}
	})
	return empty
}

// parseMixed parses flags that may come before, between or after the positional
// arguments (`baton run hello --wait`), which the flag package alone stops at.
func parseMixed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if len(args) > len(rest) && args[len(args)-len(rest)-1] == "--" {
			return append(pos, rest...), nil // everything after "--" is positional
		}
		pos, args = append(pos, rest[0]), rest[1:]
	}
}

func knownStatus(s string) bool {
	switch s {
	case store.StatusQueued, store.StatusRunning, store.StatusSucceeded, store.StatusFailed, store.StatusCancelled:
		return true
	}
	return false
}

func (c *cli) usageError(msg string) int {
	fmt.Fprintf(c.stderr, "%s: %s\nusage: %s\n", c.name, msg, c.usage)
	return exitUsage
}

// fail reports err (on stdout as {"error", "code"} with --json, else on stderr) and
// returns exitFail.
func (c *cli) fail(err error) int {
	if c.json {
		c.printJSON(map[string]string{"error": err.Error(), "code": host.ErrorCode(err)})
	} else {
		fmt.Fprintf(c.stderr, "%s: %v\n", c.name, err)
	}
	return exitFail
}

func (c *cli) printJSON(v any) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		b, _ = json.Marshal(map[string]string{"error": err.Error(), "code": "internal"})
	}
	_, _ = c.stdout.Write(append(b, '\n'))
}

// table prints rows as aligned columns, the first row being the header.
func (c *cli) table(rows [][]string) {
	tw := tabwriter.NewWriter(c.stdout, 0, 0, 2, ' ', 0)
	for _, r := range rows {
		fmt.Fprintln(tw, strings.Join(r, "\t"))
	}
	_ = tw.Flush()
}

// open opens a window on the home. A window that only reads is not started (see the top
// of this file). A started one has no scheduler and takes state.lock only if it is free
// now: a command never becomes the writer half-way, when the writer it forwarded to
// dies (a run it follows is then told by its journal, and the next window to write
// reaps or adopts it).
func (c *cli) open(start bool) (*host.Core, error) {
	opts := c.opts
	opts.NoScheduler, opts.NoWait = true, true
	opts.MustExist = true // a command never makes a home: there is nothing in a new one to read, run or cancel
	w, err := host.Open(c.home, opts)
	if err != nil || !start {
		return w, err
	}
	if err := w.Start(); err != nil {
		w.Close()
		return nil, err
	}
	return w, nil
}

// openToRead opens a window that only reads and fails if workflows.json cannot be read.
func (c *cli) openToRead() (*host.Core, error) {
	w, err := c.open(false)
	if err != nil {
		return nil, err
	}
	if err := w.Unreadable(); err != nil {
		w.Close()
		return nil, err
	}
	return w, nil
}

// runResult is what run, cancel and logs print with --json.
type runResult struct {
	ID          string `json:"id"`
	Workflow    string `json:"workflow"`
	Status      string `json:"status"`
	Error       string `json:"error,omitempty"`
	ExitCode    *int   `json:"exit_code,omitempty"`
	DurationMS  int64  `json:"duration_ms,omitempty"`
	Log         string `json:"log,omitempty"`      // the log file
	LogTail     string `json:"log_tail,omitempty"` // run --wait: its last lines
	Output      string `json:"output,omitempty"`   // logs: the whole log
	ForwardedTo int    `json:"forwarded_to,omitempty"`
	Machine     string `json:"machine,omitempty"` // an etcd home: the machine the run ran on
	// LogCut: the log could not be written whole (a full disk): how much it kept, and why.
	LogCut *store.LogCut `json:"log_cut,omitempty"`
}

func resultOf(r *store.Run, home string) runResult {
	return runResult{ID: r.ID, Workflow: r.Workflow, Status: r.Status, Error: r.Error, ExitCode: r.ExitCode,
		DurationMS: r.Duration(time.Now()).Milliseconds(), Log: host.RunLogPath(r, home), LogCut: r.LogCut, Machine: r.Machine}
}

// runNote is what the command line says of a run beside its status: its error and, when
// its log was cut, how and why ("log cut at 12.3 KiB: no space left on device").
func runNote(r *store.Run) string {
	var notes []string
	if r.Machine != "" { // an etcd home: where it runs
		notes = append(notes, "on machine "+r.Machine)
	}
	if r.Error != "" {
		notes = append(notes, r.Error)
	}
	if r.LogCut != nil {
		notes = append(notes, r.LogCut.String())
	}
	return strings.Join(notes, "; ")
}

// run is `baton run WORKFLOW [--task T] [--wait]`.
func (c *cli) run(args []string) int {
	w, err := c.open(true)
	if err == nil {
		err = w.CannotWrite()
	}
	if err != nil {
		return c.fail(err)
	}
	defer w.Close()
	reply, err := host.Call(c.ctx, w, &host.Request{Op: "start_run", Name: args[0], Task: c.task, Forward: true})
	if err != nil {
		return c.fail(err)
	}
	res := runResult{ID: fmt.Sprint(reply["run"]), Workflow: args[0], Status: fmt.Sprint(reply["status"]),
		ForwardedTo: host.ForwardedTo(reply)}
	switch {
	case !c.json:
		fmt.Fprintf(c.stdout, "run %s of %s %s%s\n", res.ID, shown(res.Workflow), res.Status, sentTo(res.ForwardedTo))
	case !c.wait:
		c.printJSON(res)
	}
	code := exitOK
	if c.wait {
		code = c.waitFor(w, res.ID, res.ForwardedTo)
	}
	if s := c.settle(w); s != exitOK && code == exitOK {
		code = s
	}
	return code
}

// waitFor follows run id to its end, prints its log tail and outcome, and returns 0 if it
// succeeded, else 1 (130 if interrupted). forwardedTo is the writer that started it.
func (c *cli) waitFor(w *host.Core, id string, forwardedTo int) int {
	r, err := c.awaitEnd(w, id, nil)
	if err != nil {
		if errors.Is(err, context.Canceled) {
			fmt.Fprintf(c.stderr, "%s: interrupted while waiting for run %s\n", c.name, id)
			return exitInterrupted
		}
		return c.fail(err)
	}
	res := resultOf(&r, w.Home())
	res.ForwardedTo = forwardedTo
	res.LogTail = tail(res.Log, logTailLines)
	if c.json {
		c.printJSON(res)
	} else {
		fmt.Fprint(c.stdout, res.LogTail)
		fmt.Fprintf(c.stdout, "run %s of %s %s after %s\n", r.ID, shown(r.Workflow), r.Status, human(r.Duration(time.Now())))
		if r.LogCut != nil {
			fmt.Fprintf(c.stderr, "%s: run %s: %s\n", c.name, r.ID, r.LogCut)
		}
	}
	if r.Status == store.StatusSucceeded {
		return exitOK
	}
	if !c.json {
		fmt.Fprintf(c.stderr, "%s: run %s of %s %s: %s\n", c.name, r.ID, shown(r.Workflow), r.Status, shown(orNone(r.Error, "no reason recorded")))
	}
	return exitFail
}

func sentTo(pid int) string {
	if pid == 0 {
		return ""
	}
	return fmt.Sprintf(" (sent to the writer, pid %d)", pid)
}

// cancel is `baton cancel RUN`.
func (c *cli) cancel(args []string) int {
	w, err := c.open(true)
	if err == nil {
		err = w.CannotWrite()
	}
	if err != nil {
		return c.fail(err)
	}
	defer w.Close()
	r, err := w.FindRun(args[0])
	if err != nil {
		return c.fail(err)
	}
	reply, err := host.Call(c.ctx, w, &host.Request{Op: "cancel_run", Run: r.ID, Forward: true})
	if err != nil {
		return c.fail(err)
	}
	res := runResult{ID: r.ID, Workflow: r.Workflow, Status: store.StatusCancelled, ForwardedTo: host.ForwardedTo(reply)}
	if c.json {
		c.printJSON(res)
	} else {
		fmt.Fprintf(c.stdout, "run %s of %s cancelled%s\n", r.ID, shown(r.Workflow), sentTo(res.ForwardedTo))
	}
	return c.settle(w)
}

// settle keeps a command that became the writer until closing its window would cancel
// nothing (see the top of this file; Core.Settle). It returns 0, 1 if queued runs could
// not be started, or 130 if a signal ended the wait (the close then cancels what still
// runs, as closing any window does).
func (c *cli) settle(w *host.Core) int {
	interrupted, err := w.Settle(c.ctx, func(going []string) {
		fmt.Fprintf(c.stderr, "%s: no window is open, so this command stays the writer until %s %s "+
			"(a window opened meanwhile takes over with \"Make this window the writer\"); Ctrl-C cancels %s\n",
			c.name, strings.Join(going, ", "), plural(len(going), "ends", "end"), plural(len(going), "it", "them"))
	})
	switch {
	case interrupted:
		return exitInterrupted
	case err != nil:
		fmt.Fprintf(c.stderr, "%s: %v\n", c.name, err)
		return exitFail
	}
	return exitOK
}

// awaitEnd blocks until run id has ended and returns it as it ended. It looks again each
// time something changes in the home or its runs folder, calling each (if set) with the
// run as it stands. The document says when a run ended; while no writer is alive to
// record it, the run's journal says so (a run left going by a window that closed). A run
// that nobody can ever record (its owner and its supervisor are gone, no writer lives) is
// an error. ctx ending (a signal) returns context.Canceled.
func (c *cli) awaitEnd(w *host.Core, id string, each func(r *store.Run)) (store.Run, error) {
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return store.Run{}, fmt.Errorf("watch %s: %w", w.Home(), err)
	}
	defer fw.Close()
	if err := fw.Add(w.Home()); err != nil {
		return store.Run{}, fmt.Errorf("watch %s: %w", w.Home(), err)
	}
	runsDir, watchingRuns := filepath.Join(w.Home(), "runs"), false
	poll := time.NewTicker(followPoll)
	defer poll.Stop()
	for {
		if !watchingRuns {
			watchingRuns = fw.Add(runsDir) == nil
		}
		r, ended, err := w.RunState(id)
		if each != nil && err == nil {
			each(&r)
		}
		if err != nil || ended {
			return r, err
		}
		select {
		case <-fw.Events:
		case <-fw.Errors:
		case <-poll.C:
		case <-c.ctx.Done():
			return r, context.Canceled
		}
	}
}

// statusResult is what status prints with --json.
type statusResult struct {
	Home       string       `json:"home"`
	Writer     *store.Owner `json:"writer"` // null when no window writes
	Epoch      uint64       `json:"epoch"`
	Generation uint64       `json:"generation"`
	Running    int          `json:"running"`
	Queued     int          `json:"queued"`
	Warnings   []string     `json:"warnings"`
}

// status is `baton status`: who writes and since when, the epoch and generation, the
// active runs and any warning (an unreadable workflows.json is one).
func (c *cli) status([]string) int {
	w, err := c.open(false)
	if err != nil {
		return c.fail(err)
	}
	defer w.Close()
	d := w.Snapshot()
	res := statusResult{Home: w.Home(), Writer: w.LiveWriter(d), Epoch: d.Epoch, Generation: d.Generation, Warnings: []string{}}
	for _, warn := range []string{w.Status().Problem, w.Warning()} {
		if warn != "" {
			res.Warnings = append(res.Warnings, warn)
		}
	}
	for i := range d.Runs {
		switch d.Runs[i].Status {
		case store.StatusRunning:
			res.Running++
		case store.StatusQueued:
			res.Queued++
		}
	}
	if c.json {
		c.printJSON(res)
		return exitOK
	}
	writer := "none: no window is open"
	if o := res.Writer; o != nil {
		writer = fmt.Sprintf("window pid %d", o.PID)
		if !o.Since.IsZero() {
			writer += fmt.Sprintf(", since %s (%s ago)", o.Since.Local().Format("2006-01-02 15:04:05"), human(time.Since(o.Since)))
		}
	}
	c.table([][]string{
		{"home", res.Home},
		{"writer", writer},
		{"epoch", strconv.FormatUint(res.Epoch, 10)},
		{"generation", strconv.FormatUint(res.Generation, 10)},
		{"runs", fmt.Sprintf("%d running, %d queued", res.Running, res.Queued)},
		{"warnings", orNone(strings.Join(res.Warnings, "; "), "none")},
	})
	return exitOK
}

// workflowResult is one workflow as workflows prints it with --json.
type workflowResult struct {
	Name          string `json:"name"`
	Steps         int    `json:"steps"`
	MaxConcurrent int    `json:"max_concurrent"`
	OnOwnerLost   string `json:"on_owner_lost"`
	Running       int    `json:"running"`
	Queued        int    `json:"queued"`
	LastRun       string `json:"last_run,omitempty"`
	LastStatus    string `json:"last_status,omitempty"`
}

// workflows is `baton workflows`.
func (c *cli) workflows([]string) int {
	w, err := c.openToRead()
	if err != nil {
		return c.fail(err)
	}
	defer w.Close()
	d := w.Snapshot()
	list := make([]workflowResult, 0, len(d.Workflows))
	for _, wf := range d.Workflows {
		res := workflowResult{Name: wf.Name, Steps: len(wf.Steps), MaxConcurrent: wf.MaxConcurrent, OnOwnerLost: orNone(wf.OnOwnerLost, "fail")}
		var last *store.Run
		for i := range d.Runs {
			r := &d.Runs[i]
			if r.Workflow != wf.Name {
				continue
			}
			switch r.Status {
			case store.StatusRunning:
				res.Running++
			case store.StatusQueued:
				res.Queued++
			}
			if last == nil || r.Seq > last.Seq {
				last = r
			}
		}
		if last != nil {
			res.LastRun, res.LastStatus = last.ID, last.Status
		}
		list = append(list, res)
	}
	if c.json {
		c.printJSON(map[string]any{"workflows": list})
		return exitOK
	}
	if len(list) == 0 {
		fmt.Fprintln(c.stdout, "no workflows")
		return exitOK
	}
	rows := [][]string{{"WORKFLOW", "STEPS", "LANE", "ON OWNER LOST", "RUNNING", "QUEUED", "LAST RUN"}}
	for _, r := range list {
		rows = append(rows, []string{shown(r.Name), strconv.Itoa(r.Steps), laneText(r.MaxConcurrent), r.OnOwnerLost,
			strconv.Itoa(r.Running), strconv.Itoa(r.Queued), strings.TrimSpace(r.LastRun + " " + r.LastStatus)})
	}
	c.table(rows)
	return exitOK
}

func laneText(max int) string {
	if max <= 0 {
		return "1 at a time"
	}
	return fmt.Sprintf("%d at a time", max)
}

// runs is `baton runs [--workflow W] [--status S] [--limit N]`: newest first, live and
// archived.
func (c *cli) runs([]string) int {
	if c.limit < 1 {
		return c.usageError(fmt.Sprintf("--limit must be at least 1, not %d", c.limit))
	}
	if c.runStatus != "" && !knownStatus(c.runStatus) {
		return c.usageError(fmt.Sprintf("unknown --status %q", c.runStatus))
	}
	w, err := c.openToRead()
	if err != nil {
		return c.fail(err)
	}
	defer w.Close()
	p, err := w.Intents().History(store.HistoryQuery{Workflow: c.workflow, Status: c.runStatus, Limit: c.limit})
	if err != nil {
		return c.fail(err)
	}
	if c.workflow != "" && len(p.Runs) == 0 && w.Snapshot().Workflow(c.workflow) == nil {
		return c.fail(fmt.Errorf("%w: no workflow named %q", workflow.ErrNotFound, c.workflow))
	}
	if p.Runs == nil {
		p.Runs = []store.Run{}
	}
	if c.json {
		c.printJSON(p)
		return exitOK
	}
	if len(p.Runs) == 0 {
		fmt.Fprintln(c.stdout, "no runs")
		return exitOK
	}
	now := time.Now()
	rows := [][]string{{"RUN", "WORKFLOW", "STATUS", "STARTED", "TOOK", "TASK", "ERROR"}}
	for i := range p.Runs {
		r := &p.Runs[i]
		started, took := "-", "-"
		if !r.Started.IsZero() {
			started, took = human(now.Sub(r.Started))+" ago", human(r.Duration(time.Now()))
		}
		rows = append(rows, []string{r.ID, shown(r.Workflow), r.Status, started, took, shown(r.Task), shown(runNote(r))})
	}
	c.table(rows)
	return exitOK
}

// logs is `baton logs RUN [--follow]`: the run's log; with --follow, what it writes next
// until it ends.
func (c *cli) logs(args []string) int {
	w, err := c.openToRead()
	if err != nil {
		return c.fail(err)
	}
	defer w.Close()
	r, err := w.FindRun(args[0])
	if err != nil {
		return c.fail(err)
	}
	var out strings.Builder
	sink := io.Writer(c.stdout)
	if c.json {
		sink = &out
	}
	if tail, where, remote, err := w.RemoteLogTail(&r); remote { // an etcd home: the log is on another machine
		if err != nil {
			return c.fail(err)
		}
		fmt.Fprintf(c.stderr, "baton logs: run %s ran on another machine; its whole log is there (%s). The last %d KiB, kept in etcd:\n",
			r.ID, where, etcdhome.LogTailSize>>10)
		_, _ = sink.Write(tail)
		if c.json {
			res := resultOf(&r, w.Home())
			res.Output = out.String()
			c.printJSON(res)
		}
		return exitOK
	}
	var off int64
	var refused error // a log that is not Baton's own (a symlink): never printed
	copyNew := func(r *store.Run) {
		if refused == nil {
			off, refused = copyFrom(host.RunLogPath(r, w.Home()), off, sink)
		}
	}
	if c.follow {
		if r, err = c.awaitEnd(w, r.ID, copyNew); err != nil {
			if errors.Is(err, context.Canceled) {
				return exitInterrupted
			}
			return c.fail(err)
		}
	}
	copyNew(&r)
	if refused != nil {
		return c.fail(fmt.Errorf("run %s: its log is not printed: %w", r.ID, refused))
	}
	if c.json {
		res := resultOf(&r, w.Home())
		res.Output = out.String()
		c.printJSON(res)
	}
	return exitOK
}

// copyFrom copies what file path holds from offset off on to out and returns the new
// offset. A file not there yet copies nothing. A file that is not Baton's own (a
// symbolic link, another user's, writable by others: store.ErrNotOurs) is never read
// and is the error.
func copyFrom(path string, off int64, out io.Writer) (int64, error) {
	f, err := store.OpenInHome(path, os.O_RDONLY, 0)
	if errors.Is(err, store.ErrNotOurs) {
		return off, err
	}
	if err != nil {
		return off, nil
	}
	defer f.Close()
	if _, err := f.Seek(off, io.SeekStart); err != nil {
		return off, nil
	}
	n, _ := io.Copy(out, f)
	return off + n, nil
}

// tail returns the last n lines of the file at path ("" if it cannot be read).
func tail(path string, n int) string {
	b, err := store.ReadInHome(path)
	if err != nil || len(b) == 0 {
		return ""
	}
	s := strings.TrimSuffix(string(b), "\n")
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n") + "\n"
}

// human writes a duration as people do: 850ms, 3.2s, 41s, 4m05s, 2h10m, 3d4h.
func human(d time.Duration) string {
	switch {
	case d < time.Second:
		return fmt.Sprintf("%dms", d.Milliseconds())
	case d < 10*time.Second:
		return fmt.Sprintf("%.1fs", d.Seconds())
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	case d < 24*time.Hour:
		return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
	}
	return fmt.Sprintf("%dd%dh", int(d.Hours())/24, int(d.Hours())%24)
}

// shown is s as the command line prints a name, task or error that came from a home:
// as it is when every character is printable, else quoted with Go's escapes
// (strconv.Quote), so a control character, an ESC sequence, a newline or a bidirectional
// override in a name an older home holds is seen, not obeyed by the terminal, and no
// column breaks.
func shown(s string) string {
	if utf8.ValidString(s) && strings.IndexFunc(s, func(r rune) bool { return !unicode.IsPrint(r) }) < 0 {
		return s
	}
	return strconv.Quote(s)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func orNone(s, none string) string {
	if s == "" {
		return none
	}
	return s
}

// now is the command's clock: Options.Now, else the real one (as Open fills it).
func (c *cli) now() time.Time {
	if c.opts.Now != nil {
		return c.opts.Now()
	}
	return time.Now()
}
