package cli

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"baton/store"
)

// homeContent is everything a migrate moves: the document, and what lives in files (in a
// folder home, or an etcd home's local folder): the archive, the audit log and runs/
// (logs and journals).
type homeContent struct {
	doc     *store.Doc
	archive []archiveFile
	audit   []namedFile // audit.log, audit.log.1
	runs    []namedFile // runs/<id>.log, runs/<id>.journal, …
}

type namedFile struct {
	name string
	data []byte
}

// archiveFile is one file of archive/ (runs-YYYY-MM[.N].jsonl), line by line.
type archiveFile struct {
	name  string
	lines []archiveLine
}

// archiveLine is one line: its run, or (run nil) bytes the archive's reader skips too (a
// line torn by a crash, which also has no newline when it is the last).
type archiveLine struct {
	raw  []byte
	run  *store.Run
	torn bool // the last line, without its newline
}

// readContent reads what lives in files beside doc, from dir (the folder home, or the etcd
// home's local folder). Every file is opened as the home's own (store.OpenInHome: never
// through a symbolic link, only this user's); anything else there is refused, naming it.
func (s *side) readContent(doc *store.Doc) (*homeContent, error) {
	c := &homeContent{doc: doc}
	var err error
	if c.archive, err = readArchive(filepath.Join(s.local, store.ArchiveDir)); err != nil {
		return nil, err
	}
	for _, name := range []string{store.AuditName, store.AuditName + ".1"} {
		b, err := store.ReadInHome(filepath.Join(s.local, name))
		switch {
		case errors.Is(err, os.ErrNotExist):
			continue
		case err != nil:
			return nil, fmt.Errorf("%s cannot be read, so nothing was moved: %w", filepath.Join(s.local, name), err)
		}
		c.audit = append(c.audit, namedFile{name, b})
	}
	if c.runs, err = readRunFiles(filepath.Join(s.local, "runs")); err != nil {
		return nil, err
	}
	return c, nil
}

// dirEntries lists folder dir, refusing a symbolic link or a file in its place; a
// missing folder has no entries.
func dirEntries(dir string) ([]os.DirEntry, error) {
	fi, err := os.Lstat(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("%s cannot be read, so nothing was moved: %w", dir, err)
	case !fi.IsDir():
		return nil, fmt.Errorf("%s is not a folder (a symbolic link is never followed): nothing was moved; make it Baton's folder again", dir)
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("%s cannot be read, so nothing was moved: %w", dir, err)
	}
	return ents, nil
}

// readArchive reads archive/. Temp files (a name starting with ".") are skipped; any
// other name that is not an archive file is refused.
func readArchive(dir string) ([]archiveFile, error) {
	ents, err := dirEntries(dir)
	if err != nil {
		return nil, err
	}
	var out []archiveFile
	for _, e := range ents {
		name := e.Name()
		if strings.HasPrefix(name, ".") {
			continue
		}
		path := filepath.Join(dir, name)
		if !strings.HasPrefix(name, "runs-") || !strings.HasSuffix(name, ".jsonl") {
			return nil, fmt.Errorf("%s is not one of Baton's archive files: nothing was moved; move it out of %s and run migrate again", path, dir)
		}
		b, err := store.ReadInHome(path)
		if err != nil {
			return nil, fmt.Errorf("%s cannot be read, so nothing was moved: %w", path, err)
		}
		out = append(out, archiveFile{name: name, lines: splitArchive(b)})
	}
	return out, nil
}

// splitArchive cuts an archive file into lines and decodes each run it can.
func splitArchive(b []byte) []archiveLine {
	var lines []archiveLine
	for len(b) > 0 {
		line, rest, found := bytes.Cut(b, []byte{'\n'})
		b = rest
		l := archiveLine{raw: slices.Clip(line), torn: !found} // torn: kept as it is, without the newline it never had
		var r store.Run
		if found && json.Unmarshal(line, &r) == nil && r.ID != "" {
			l.run = &r
		}
		lines = append(lines, l)
	}
	return lines
}

// readRunFiles reads runs/: logs, journals and what supervisors keep. Temp files and run
// locks (*.lock: a supervisor's liveness, meaningless once copied) are skipped; a folder
// or a symbolic link inside is refused.
func readRunFiles(dir string) ([]namedFile, error) {
	ents, err := dirEntries(dir)
	if err != nil {
		return nil, err
	}
	var out []namedFile
	for _, e := range ents {
		name := e.Name()
		if strings.HasPrefix(name, ".") || strings.HasSuffix(name, ".lock") {
			continue
		}
		path := filepath.Join(dir, name)
		b, err := store.ReadInHome(path)
		if err != nil {
			return nil, fmt.Errorf("%s cannot be read, so nothing was moved: %w", path, err)
		}
		out = append(out, namedFile{name, b})
	}
	return out, nil
}

// movedFor returns c as the target keeps it: the document without its writer, hand-over
// and log link (the target's first writer takes over as on any home; the folder's log
// cycle is the folder's), and each run's log path moved from fromDir's runs/ to toDir's.
func (c *homeContent) movedFor(fromDir, toDir string) *homeContent {
	from, to := filepath.Join(fromDir, "runs"), filepath.Join(toDir, "runs")
	move := func(r *store.Run) bool {
		if r.Log != "" && filepath.Dir(r.Log) == from {
			r.Log = filepath.Join(to, filepath.Base(r.Log))
			return true
		}
		return false
	}
	out := &homeContent{doc: c.doc.Clone(), audit: c.audit, runs: c.runs}
	out.doc.Writer, out.doc.HandoverTo, out.doc.Log = nil, nil, nil
	for i := range out.doc.Runs {
		move(&out.doc.Runs[i])
	}
	for _, f := range c.archive {
		nf := archiveFile{name: f.name, lines: make([]archiveLine, len(f.lines))}
		for i, l := range f.lines {
			nf.lines[i] = l
			if l.run == nil {
				continue
			}
			r := l.run.Clone()
			if move(&r) {
				nf.lines[i] = archiveLine{raw: encodeRun(&r), run: &r}
			}
		}
		out.archive = append(out.archive, nf)
	}
	return out
}

// encodeRun encodes r as the archive does (store.Archive.Append), without the newline.
func encodeRun(r *store.Run) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(r) // a Run always encodes
	return bytes.TrimSuffix(buf.Bytes(), []byte{'\n'})
}

// writeFiles writes runs/, archive/ and the audit log into dir, each file durably
// (written whole to a temp file, fsynced, renamed, its folder fsynced).
func (c *homeContent) writeFiles(dir string) error {
	write := func(sub string, files []namedFile) error {
		d := filepath.Join(dir, sub)
		if len(files) == 0 {
			return nil
		}
		if err := store.MkdirDurable(d); err != nil {
			return err
		}
		for _, f := range files {
			if err := store.WriteFileAtomic(filepath.Join(d, f.name), f.data, nil); err != nil {
				return fmt.Errorf("copy %s: %w", filepath.Join(d, f.name), err)
			}
		}
		return nil
	}
	if err := write("runs", c.runs); err != nil {
		return err
	}
	var arch []namedFile
	for _, f := range c.archive {
		var b []byte
		for _, l := range f.lines {
			b = append(b, l.raw...)
			if !l.torn {
				b = append(b, '\n')
			}
		}
		arch = append(arch, namedFile{f.name, b})
	}
	if err := write(store.ArchiveDir, arch); err != nil {
		return err
	}
	return write(".", c.audit)
}

// checksum is the sha256 of the content: the document without what legitimately differs
// between two homes holding the same content (the writer's epoch, the writer and a
// hand-over, the folder's log link; a run's log path is taken relative to the home's
// runs/), then every archived run (likewise), the audit log's entries but a migrate's
// own, and runs/'s files by name. dir is the home's folder (or etcd local folder).
func (c *homeContent) checksum(dir string) string {
	runs := filepath.Join(dir, "runs")
	rel := func(r *store.Run) {
		if r.Log != "" && filepath.Dir(r.Log) == runs {
			r.Log = "runs/" + filepath.Base(r.Log)
		}
	}
	h := sha256.New()
	d := c.doc.Clone()
	d.Epoch, d.Writer, d.HandoverTo, d.Log = 0, nil, nil, nil
	for i := range d.Runs {
		rel(&d.Runs[i])
	}
	b, _ := json.Marshal(d) // a Doc always encodes
	fmt.Fprintf(h, "document %d\n%s\n", len(b), b)
	for _, f := range c.archive {
		fmt.Fprintf(h, "archive %s %d\n", f.name, len(f.lines))
		for _, l := range f.lines {
			if l.run == nil {
				fmt.Fprintf(h, "raw %d\n%s\n", len(l.raw), l.raw)
				continue
			}
			r := l.run.Clone()
			rel(&r)
			b, _ := json.Marshal(&r)
			fmt.Fprintf(h, "run %d\n%s\n", len(b), b)
		}
	}
	for _, f := range c.audit {
		kept := auditWithout(f.data, KindMigration)
		fmt.Fprintf(h, "audit %s %d\n%s\n", f.name, len(kept), kept)
	}
	for _, f := range c.runs {
		fmt.Fprintf(h, "runs/%s %d\n%s\n", f.name, len(f.data), f.data)
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// auditWithout returns the audit log data without its entries of kind.
func auditWithout(data []byte, kind string) []byte {
	var out []byte
	for len(data) > 0 {
		line, rest, found := bytes.Cut(data, []byte{'\n'})
		data = rest
		var e struct {
			Kind string `json:"kind"`
		}
		if found && json.Unmarshal(line, &e) == nil && e.Kind == kind {
			continue
		}
		out = append(out, line...)
		if found {
			out = append(out, '\n')
		}
	}
	return out
}

// movedTo is the output's lines: each thing moved, what it holds and where it goes.
func (c *homeContent) movedTo(dst *side) []movedItem {
	d := c.doc
	docTo := dst.spec
	if !dst.isEtcd() {
		docTo = filepath.Join(dst.folder, store.FileName)
	}
	items := []movedItem{{What: "document", To: docTo, Note: fmt.Sprintf("generation %d: %d %s, %d %s, %d %s",
		d.Generation, len(d.Workflows), plural(len(d.Workflows), "workflow", "workflows"),
		len(d.Schedules), plural(len(d.Schedules), "schedule", "schedules"), len(d.Runs), plural(len(d.Runs), "run", "runs"))}}
	for _, f := range c.archive {
		n := 0
		for _, l := range f.lines {
			if l.run != nil {
				n++
			}
		}
		items = append(items, movedItem{What: "archive", To: filepath.Join(dst.local, store.ArchiveDir, f.name),
			Note: fmt.Sprintf("%s: %d archived %s", f.name, n, plural(n, "run", "runs"))})
	}
	for _, f := range c.audit {
		items = append(items, movedItem{What: "audit", To: filepath.Join(dst.local, f.name),
			Note: fmt.Sprintf("%s: %d %s", f.name, bytes.Count(f.data, []byte{'\n'}), plural(bytes.Count(f.data, []byte{'\n'}), "entry", "entries"))})
	}
	if len(c.runs) > 0 {
		var size int
		for _, f := range c.runs {
			size += len(f.data)
		}
		items = append(items, movedItem{What: "logs", To: filepath.Join(dst.local, "runs"),
			Note: fmt.Sprintf("runs/: %d %s (logs and journals), %d bytes", len(c.runs), plural(len(c.runs), "file", "files"), size)})
	}
	return items
}
