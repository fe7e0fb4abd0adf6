package cli

import (
	"fmt"
	"os"

	"baton/host"
)

// export is `baton export [WORKFLOW…]`: the workflows (all when none is named) with
// their schedules, as JSON on stdout.
func (c *cli) export(args []string) int {
	w, err := c.openToRead()
	if err != nil {
		return c.fail(err)
	}
	defer w.Close()
	f, err := host.Export(w.Snapshot(), args, c.secrets)
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
	f, err := host.ParseExport(b)
	if err != nil {
		return c.fail(fmt.Errorf("%s: %w", args[0], err))
	}
	w, err := c.open(!c.dryRun)
	if err != nil {
		return c.fail(err)
	}
	defer w.Close()
	p := host.PlanImport(w.Snapshot(), f, c.now())
	if !c.dryRun && len(p.Conflicts) == 0 {
		if p, err = w.Intents().Import(c.ctx, f); err != nil {
			return c.fail(fmt.Errorf("import %s: %w", args[0], err))
		}
	}
	if c.json {
		c.printJSON(p)
	} else {
		fmt.Fprint(c.stdout, host.ImportText(p, c.dryRun))
	}
	if len(p.Conflicts) > 0 {
		return exitFail
	}
	return c.settle(w)
}
