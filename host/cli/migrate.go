package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"baton/host"
	"baton/store"
	"baton/store/etcdhome"
)

// `baton migrate --from SRC --to DST` moves a home between a folder and an etcd home
// (issue 21), either way. What it does, in order (host/cli/README.md says why):
//
//  1. It takes the source's writer lock, without waiting (state.lock of a folder, the
//     election of an etcd home), and holds it to the end: no window writes the source
//     meanwhile. A window that writes is named and the migrate refused.
//  2. It reads the source whole and refuses, changing nothing, when it cannot be read
//     (damaged, not Baton's own files, a symlink) or a run is still running.
//  3. It takes the target's writer lock the same way, held to the end too, and refuses a
//     target that holds anything: a key under the etcd prefix, or one of Baton's files
//     in the folder (or in the etcd home's local folder).
//  4. It copies what lives in files first, each durably (runs/ logs and journals, the
//     archive, the audit log), then makes the document appear in one step: a rename of
//     workflows.json, or one etcd transaction (a chunked save's final one). Until then
//     the target has no document: a folder with Baton's files but no workflows.json is
//     refused as damaged by every window, and an etcd home's local folder with files
//     makes a second migrate refuse; nothing ever shows half a home.
//  5. It reads the target back and compares checksums of the content with the source's;
//     then it adds a "migration" entry to the target's audit log and lets both locks go.
//
// The source is never written (only state.lock is created if it is missing, as any
// window does: it holds no data).

// migrateOpts are migrate's own flags.
type migrateOpts struct {
	from, to string
	fs       *flag.FlagSet
}

// migrateTimeout bounds each etcd call of a migrate (the document's save included).
const migrateTimeout = 60 * time.Second

func migrateFlags(fs *flag.FlagSet, c *cli) {
	c.mig = &migrateOpts{fs: fs}
	fs.StringVar(&c.mig.from, "from", "", "the home to move: a folder, or etcd://host:2379,…/prefix")
	fs.StringVar(&c.mig.to, "to", "", "where to move it: an etcd:// home if --from is a folder, else a folder; it must be empty")
	fs.BoolVar(&c.dryRun, "dry-run", false, "only say what would be moved; change nothing")
}

// migrate is `baton migrate --from SRC --to DST [--dry-run]`.
func (c *cli) migrate([]string) int {
	m := c.mig
	given := map[string]bool{}
	m.fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	switch {
	case m.from == "" || m.to == "":
		return c.usageError("name both homes: --from SRC --to DST")
	case given["home"]:
		return c.usageError("--home is not for migrate: name the homes with --from and --to")
	case etcdhome.IsURL(m.from) == etcdhome.IsURL(m.to):
		return c.usageError("one of --from and --to must be a folder and the other an etcd:// home")
	case given["local"] && c.opts.Etcd.Local == "":
		return c.usageError("--local is empty: name a folder, or leave --local out for the default")
	}
	if err := c.overlap(m.from, m.to); err != nil {
		return c.fail(err)
	}
	src, err := c.openSide(m.from, true)
	if err != nil {
		return c.fail(err)
	}
	defer src.close()
	dst, err := c.openSide(m.to, false)
	if err != nil {
		return c.fail(err)
	}
	defer dst.close()
	rep, err := c.runMigrate(src, dst)
	switch {
	case rep == nil:
	case c.json && err != nil: // one JSON document: what was done, and the error
		rep.Error, rep.Code = err.Error(), host.ErrorCode(err)
		c.printJSON(rep)
		return exitFail
	default:
		c.printMigrate(rep)
	}
	if err != nil {
		return c.fail(err)
	}
	return exitOK
}

// migrateReport is what migrate did (or would do, with --dry-run), for its output.
type migrateReport struct {
	From      string      `json:"from"`
	To        string      `json:"to"`
	DryRun    bool        `json:"dry_run"`
	Moved     []movedItem `json:"moved"`
	Notes     []string    `json:"notes,omitempty"`
	SourceSum string      `json:"source_checksum"`
	TargetSum string      `json:"target_checksum,omitempty"`
	Error     string      `json:"error,omitempty"`
	Code      string      `json:"code,omitempty"`
}

// movedItem is one line of the output: a thing moved and where.
type movedItem struct {
	What string `json:"what"` // "document", "archive", "audit", "logs"
	Note string `json:"note"` // what it holds
	To   string `json:"to"`
}

// runMigrate does the steps of the top of this file. The report is nil when nothing was
// read yet.
func (c *cli) runMigrate(src, dst *side) (*migrateReport, error) {
	ctx := c.ctx
	// The source first: a source that cannot be moved leaves the target untouched (a
	// new target folder is made only to hold its state.lock).
	if err := src.lock(ctx, c.dryRun, true); err != nil {
		return nil, err
	}
	doc, err := src.readDoc(ctx)
	if err != nil {
		return nil, err
	}
	if err := src.refuseRunning(ctx, doc); err != nil {
		return nil, err
	}
	content, err := src.readContent(doc)
	if err != nil {
		return nil, err
	}
	if err := dst.lock(ctx, c.dryRun, false); err != nil {
		return nil, err
	}
	if err := dst.refuseNotEmpty(ctx); err != nil {
		return nil, err
	}
	rep := &migrateReport{From: src.spec, To: dst.spec, DryRun: c.dryRun, SourceSum: content.checksum(src.local)}
	moved := content.movedTo(dst)
	if src.isEtcd() && len(content.archive)+len(content.audit)+len(content.runs) == 0 {
		rep.Notes = append(rep.Notes, fmt.Sprintf("the local folder %s holds no audit log, archive or run logs of this home: only the document moves "+
			"(those files stay in the --local folder of the machine that wrote them; run migrate there to bring them)", src.local))
	}
	if c.dryRun {
		rep.Moved = moved
		return rep, nil
	}
	if err := dst.write(ctx, content.movedFor(src.local, dst.local)); err != nil {
		return nil, fmt.Errorf("%w; the source %s is unchanged; the target may hold what was copied before the failure "+
			"(files in %s; an etcd save whose answer was lost may have applied): remove it, then migrate again", err, src.spec, dst.local)
	}
	rep.Moved = moved
	back, err := dst.readBack(ctx)
	if err != nil {
		return rep, fmt.Errorf("read the target back: %w", err)
	}
	rep.TargetSum = back.checksum(dst.local)
	if rep.TargetSum != rep.SourceSum {
		return rep, fmt.Errorf("%w: the target %s reads back with checksum %s, the source has %s: do not use the target; remove it and migrate again",
			errMigrateMismatch, dst.spec, rep.TargetSum, rep.SourceSum)
	}
	if err := dst.audit(migrationRecord{From: src.spec, To: dst.spec, Generation: doc.Generation, Checksum: rep.SourceSum}); err != nil {
		c.note("%v (the home was moved whole)", err)
	}
	return rep, nil
}

// errMigrateMismatch: the target read back is not what was written.
var errMigrateMismatch = errors.New("the moved home does not match its source")

func (c *cli) note(format string, a ...any) {
	fmt.Fprintf(c.stderr, "%s: "+format+"\n", append([]any{c.name}, a...)...)
}

func (c *cli) printMigrate(r *migrateReport) {
	if r.Moved == nil {
		r.Moved = []movedItem{}
	}
	if c.json {
		c.printJSON(r)
		return
	}
	verb := "moved"
	if r.DryRun {
		verb = "would move"
	}
	for _, m := range r.Moved {
		fmt.Fprintf(c.stdout, "%s %s: %s -> %s\n", verb, m.What, m.Note, m.To)
	}
	for _, n := range r.Notes {
		fmt.Fprintf(c.stdout, "note: %s\n", n)
	}
	fmt.Fprintf(c.stdout, "checksum of the source %s: %s\n", r.From, r.SourceSum)
	if r.TargetSum != "" {
		fmt.Fprintf(c.stdout, "checksum of the target %s: %s\n", r.To, r.TargetSum)
	}
	if r.DryRun {
		fmt.Fprintln(c.stdout, "nothing was changed (--dry-run)")
	}
}

// migrationRecord is the target's audit entry of a migrate.
type migrationRecord struct {
	From       string `json:"from"`
	To         string `json:"to"`
	Generation uint64 `json:"generation"`
	Checksum   string `json:"checksum"`
}

// KindMigration is the audit kind of a migrate.
const KindMigration = "migration"

func (migrationRecord) AuditKind() string { return KindMigration }

var _ store.Record = migrationRecord{}

// etcdCtx bounds one etcd call of a migrate.
func etcdCtx(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, migrateTimeout)
}

// overlap refuses an etcd home's local folder inside the folder home or around it: the
// target's files would be written into the source (or over it).
func (c *cli) overlap(a, b string) error {
	if etcdhome.IsURL(a) {
		a, b = b, a
	}
	folder, err := filepath.Abs(a)
	if err != nil {
		return fmt.Errorf("%s: %w", a, err)
	}
	local, err := c.localOf(b)
	if err != nil {
		return err
	}
	within := func(dir, in string) bool {
		rel, err := filepath.Rel(in, dir)
		return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
	}
	if within(local, folder) || within(folder, local) {
		return fmt.Errorf("the etcd home's local folder %s and the folder home %s overlap: give --local a folder of its own", local, folder)
	}
	return nil
}
