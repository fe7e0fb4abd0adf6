package host

import (
	"fmt"
	"os"
	"strings"
)

// export is `baton export [WORKFLOW…]`: the workflows (all when none is named) with
// their schedules, as JSON on stdout.
func (c *cli) export(args []string) int {
	w, err := c.openToRead()
	if err != nil {
		return c.fail(err)
	}
	defer w.Close()
	f, err := Export(w.Snapshot(), args, c.secrets)
	if err != nil {
		return c.fail(err)
	}
	c.printJSON(f)
	return exitOK
}

// importFile is `baton import FILE`: it says what the file adds, changes and conflicts
// with, and (unless --dry-run) applies it in one save. It needs to write: with a window
// open on the home, import there (File › Import).
func (c *cli) importFile(args []string) int {
	b, err := os.ReadFile(args[0])
	if err != nil {
		return c.fail(fmt.Errorf("read %s: %w", args[0], err))
	}
	f, err := ParseExport(b)
	if err != nil {
		return c.fail(fmt.Errorf("%s: %w", args[0], err))
	}
	w, err := c.open(!c.dryRun)
	if err != nil {
		return c.fail(err)
	}
	defer w.Close()
	p := PlanImport(w.Snapshot(), f, w.opts.Now())
	if !c.dryRun && len(p.Conflicts) == 0 {
		if p, err = w.Intents().Import(c.ctx, f); err != nil {
			return c.fail(fmt.Errorf("import %s: %w", args[0], err))
		}
	}
	if c.json {
		c.printJSON(p)
	} else {
		fmt.Fprint(c.stdout, ImportText(p, c.dryRun))
	}
	if len(p.Conflicts) > 0 {
		return exitFail
	}
	return c.settle(w)
}

// ImportText says what an import plan does, one line per kind: for the command line and
// the window's preview. done says whether it was applied.
func ImportText(p ImportPlan, preview bool) string {
	var b strings.Builder
	verb := func(now, then string) string {
		if preview {
			return then
		}
		return now
	}
	line := func(what string, names []string) {
		if len(names) > 0 {
			fmt.Fprintf(&b, "%s %d %s: %s\n", what, len(names), plural(len(names), "workflow", "workflows"), strings.Join(names, ", "))
		}
	}
	line(verb("added", "adds"), p.Add)
	line(verb("changed", "changes"), p.Change)
	line("unchanged", p.Same)
	if p.Schedules > 0 {
		fmt.Fprintf(&b, "%s %d %s\n", verb("added", "adds"), p.Schedules, plural(p.Schedules, "schedule", "schedules"))
	}
	for _, c := range p.Conflicts {
		fmt.Fprintf(&b, "conflict: %s\n", c)
	}
	if len(p.Conflicts) > 0 {
		b.WriteString("nothing was imported: fix the file or the home, then import again\n")
	}
	if b.Len() == 0 {
		b.WriteString("the file holds no workflows\n")
	}
	return b.String()
}
