package cli

import (
	"errors"
	"fmt"
	"time"

	"baton/host"
	"baton/store"
	"baton/store/etcdhome"
)

// recover is `baton recover`: it says what is damaged and what can be restored and, unless
// --dry-run, restores it (RecoverHome). Exit 0 when the home was recovered or is not
// damaged, 1 when it cannot be (a window holds state.lock, nothing good is left).
func (c *cli) recover([]string) int {
	if etcdhome.IsURL(c.home) {
		return c.fail(fmt.Errorf("%s is an etcd home: recover restores a folder home's files; an etcd home is never repaired by Baton (restore etcd from its own snapshot)", c.home))
	}
	var rec *store.Recovery
	var err error
	if c.dryRun {
		rec, err = host.PlanHomeRecovery(c.home)
	} else {
		rec, err = host.RecoverHome(c.home, time.Now())
	}
	if errors.Is(err, store.ErrNotDamaged) {
		if c.json {
			c.printJSON(map[string]any{"damaged": false})
		} else {
			fmt.Fprintf(c.stdout, "%s: %v\n", c.name, err)
		}
		return exitOK
	}
	if err != nil && rec == nil {
		return c.fail(err)
	}
	if c.json {
		c.printJSON(map[string]any{"damaged": true, "dry_run": c.dryRun, "recovery": rec, "error": errText(err)})
	} else {
		c.printRecovery(rec)
	}
	if err != nil {
		return c.fail(err)
	}
	return exitOK
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func (c *cli) printRecovery(r *store.Recovery) {
	out := c.stdout
	fmt.Fprintf(out, "Damage: %s\n", r.Damage)
	verb := "Restored"
	if c.dryRun {
		verb = "Can restore"
	}
	fmt.Fprintf(out, "%s: generation %d: %s (generation %d) plus %d %s of %s; %d %s, %d %s. Saved as generation %d.\n",
		verb, r.Restored, r.From, r.FromGeneration, r.Frames, plural(r.Frames, "frame", "frames"), store.WALName,
		r.Workflows, plural(r.Workflows, "workflow", "workflows"), r.Runs, plural(r.Runs, "run", "runs"), r.Generation)
	if len(r.Lost) == 0 {
		fmt.Fprintln(out, "Lost: nothing that was found.")
	}
	for _, l := range r.Lost {
		fmt.Fprintf(out, "Could not restore: %s\n", l)
	}
	if c.dryRun {
		fmt.Fprintln(out, "Nothing was changed (--dry-run). Without it, the damaged files are moved aside into a dated folder in the home, never deleted.")
		return
	}
	if r.MovedTo != "" {
		fmt.Fprintf(out, "Moved aside (kept, not deleted): %v into %s\n", r.Moved, r.MovedTo)
	}
}
