package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// The codec writes and reads workflows.json in exactly the layout json.MarshalIndent gives
// (two-space indent, human-readable), but caches runs: a save re-encodes only the runs that
// changed since the last save, and a reload decodes only the runs whose bytes changed since
// the last load. Finished runs never change, so both costs follow what changed, not the
// size of the document. The caches hold only the runs of the last document.

// codec holds the caches. It is guarded by Store.mu (every load and save holds it).
type codec struct {
	enc  map[string]encRun // by run id: the value last encoded and its bytes
	dec  map[string]Run    // by the run's bytes in the file: its decoded value
	file []byte            // the whole file the store's document was read from or saved as
}

// same reports whether data is the file the store's document came from, so that a
// re-read finding it needs no decode.
func (c *codec) same(data []byte) bool { return c.file != nil && bytes.Equal(c.file, data) }

type encRun struct {
	run Run
	b   []byte // MarshalIndent(run, "    ", "  ")
}

// runsMarker is where the runs go in the encoded document with Runs set to nil.
var runsMarker = []byte("\n  \"runs\": null")

// encode returns doc as MarshalIndent(doc, "", "  ") would, plus a newline.
func (c *codec) encode(doc *Doc) ([]byte, error) {
	shell := *doc
	shell.Runs = nil
	head, err := json.MarshalIndent(&shell, "", "  ")
	if err != nil {
		return nil, err
	}
	i := bytes.Index(head, runsMarker)
	if i < 0 || len(doc.Runs) == 0 { // layout not as expected, or nothing to splice
		data, err := json.MarshalIndent(doc, "", "  ")
		return append(data, '\n'), err
	}
	if c.enc == nil {
		c.enc = make(map[string]encRun, len(doc.Runs))
	}
	var buf bytes.Buffer
	if c.file != nil { // about the last file's size: a save changes it by a run or two
		buf.Grow(len(c.file) + 4096)
	} else {
		buf.Grow(len(head) + 16 + len(doc.Runs)*768)
	}
	buf.Write(head[:i])
	buf.WriteString("\n  \"runs\": [\n")
	for k := range doc.Runs {
		r := &doc.Runs[k]
		e, ok := c.enc[r.ID]
		if !ok || !runEqual(&e.run, r) {
			b, err := json.MarshalIndent(r, "    ", "  ")
			if err != nil {
				return nil, err
			}
			e = encRun{run: *r, b: b}
			c.enc[r.ID] = e
		}
		if k > 0 {
			buf.WriteString(",\n")
		}
		buf.WriteString("    ")
		buf.Write(e.b)
	}
	buf.WriteString("\n  ]")
	buf.Write(head[i+len(runsMarker):])
	buf.WriteByte('\n')
	c.forgetGone(doc)
	return buf.Bytes(), nil
}

// forgetGone drops the cached runs that doc no longer has (archived), so the cache holds
// only doc's runs. The cache is updated in place, not rebuilt per save: a save changes a
// run or two, and only a save that moved runs out has any to drop.
func (c *codec) forgetGone(doc *Doc) {
	if len(c.enc) == len(doc.Runs) { // every run of doc is cached: nothing else is
		return
	}
	keep := make(map[string]encRun, len(doc.Runs))
	for k := range doc.Runs {
		if e, ok := c.enc[doc.Runs[k].ID]; ok {
			keep[doc.Runs[k].ID] = e
		}
	}
	c.enc = keep
}

// RunEqual reports whether a and b encode the same: a save may skip re-encoding (and a
// home re-writing) a run that is RunEqual to its last one. A false "no" only costs an
// encode. TestRunFieldsKnownToRunEqual (codec_test.go) checks it compares every field.
func RunEqual(a, b *Run) bool { return runEqual(a, b) }

func runEqual(a, b *Run) bool {
	x, y := *a, *b
	if !ptrEqual(x.Owner, y.Owner) || !ptrEqual(x.ExitCode, y.ExitCode) || !ptrEqual(x.LogCut, y.LogCut) {
		return false
	}
	x.Owner, y.Owner, x.ExitCode, y.ExitCode, x.LogCut, y.LogCut = nil, nil, nil, nil, nil, nil
	return x == y
}

func ptrEqual[T comparable](a, b *T) bool { return a == b || (a != nil && b != nil && *a == *b) }

// docWire is Doc with the runs left as bytes (the shallower Runs field wins).
type docWire struct {
	Doc
	Runs []jsontext.Value `json:"runs"`
}

// decode parses and validates a document like Decode, reusing the decoded runs of the last
// call whose bytes did not change. c may be nil.
func (c *codec) decode(data []byte) (*Doc, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, errors.New("file is empty")
	}
	if c != nil {
		if doc, ok := c.decodeFast(data); ok {
			return doc, nil
		}
	}
	var w docWire
	err := jsonv2.Unmarshal(data, &w, strictOpts)
	if err != nil || w.Schema != SchemaVersion {
		var msg error
		if err != nil {
			var early bool
			if msg, early = loadError(err, data, "$"); early {
				return nil, msg
			}
		}
		if perr := probeSchema(data); perr != nil {
			return nil, perr
		}
		if msg != nil {
			return nil, msg
		}
	}
	doc := &w.Doc
	doc.Runs = make([]Run, len(w.Runs))
	var next map[string]Run
	if c != nil {
		next = make(map[string]Run, len(w.Runs))
	}
	for i, raw := range w.Runs {
		if c != nil {
			if r, ok := c.dec[string(raw)]; ok {
				doc.Runs[i] = r
				next[string(raw)] = r
				continue
			}
		}
		if err := jsonv2.Unmarshal(raw, &doc.Runs[i], strictOpts); err != nil {
			msg, _ := loadError(err, raw, fmt.Sprintf("$.runs[%d]", i))
			return nil, msg
		}
		if next != nil {
			next[string(raw)] = doc.Runs[i]
		}
	}
	if doc.Workflows == nil {
		doc.Workflows = []Workflow{}
	}
	if doc.Schedules == nil {
		doc.Schedules = []Schedule{}
	}
	if err := doc.Validate(); err != nil {
		return nil, err
	}
	if c != nil {
		c.dec = next
	}
	return doc, nil
}

// Separators of the runs array in the layout encode writes. JSON strings cannot hold a raw
// newline, so these byte sequences only occur as that layout's whitespace.
var (
	runsOpen  = []byte("\n  \"runs\": [\n    {")
	runsSep   = []byte("\n    },\n    {")
	runsClose = []byte("\n    }\n  ]")
)

// decodeFast handles a file in the layout encode writes without scanning the runs: it cuts
// the runs array at its separators, takes unchanged runs from the cache, decodes the others
// strictly, and decodes the rest (with "runs": []) strictly. Each piece must be exactly one
// JSON value, and the rest must put its empty runs array in the top-level "runs" field (the
// only field that can take it), so the pieces are the elements of that array: the file is
// then what the general road would decode, and unchanged runs are bytes that were decoded
// strictly before. It reports false, having changed nothing, whenever anything is
// unexpected; decode then takes the general road, which gives the errors.
func (c *codec) decodeFast(data []byte) (*Doc, bool) {
	i := bytes.Index(data, runsOpen)
	if i < 0 {
		return nil, false
	}
	j := bytes.Index(data[i:], runsClose)
	if j < 0 {
		return nil, false
	}
	j += i
	body := data[i+len(runsOpen)-1 : j+len("\n    }")] // from the first { to the last }
	rest := make([]byte, 0, len(data)-len(body)+16)
	rest = append(rest, data[:i]...)
	rest = append(rest, "\n  \"runs\": []"...)
	rest = append(rest, data[j+len(runsClose):]...)
	var w docWire
	if jsonv2.Unmarshal(rest, &w, strictOpts) != nil || w.Schema != SchemaVersion || w.Runs == nil || len(w.Runs) != 0 {
		return nil, false
	}
	doc := &w.Doc
	n := bytes.Count(body, runsSep) + 1
	doc.Runs = make([]Run, 0, n)
	next := make(map[string]Run, n)
	for k := 0; k < n; k++ {
		var raw []byte
		if cut := bytes.Index(body, runsSep); cut >= 0 {
			raw, body = body[:cut+len("\n    }")], body[cut+len(runsSep)-1:]
		} else {
			raw = body
		}
		r, ok := c.dec[string(raw)]
		if !ok && jsonv2.Unmarshal(raw, &r, strictOpts) != nil {
			return nil, false
		}
		doc.Runs = append(doc.Runs, r)
		next[string(raw)] = r
	}
	if doc.Workflows == nil {
		doc.Workflows = []Workflow{}
	}
	if doc.Schedules == nil {
		doc.Schedules = []Schedule{}
	}
	if doc.Validate() != nil {
		return nil, false
	}
	c.dec = next
	return doc, true
}

// probeSchema says what is wrong with the schema field, or nil if nothing is. It skips
// unknown fields: a newer schema may have any.
func probeSchema(data []byte) error {
	var probe struct {
		Schema *int `json:"schema"`
	}
	if err := jsonv2.Unmarshal(data, &probe, probeOpts); err != nil {
		msg, _ := loadError(err, data, "$")
		return msg
	}
	if probe.Schema == nil {
		return errors.New("no \"schema\" field: not a Baton workflows file")
	}
	if *probe.Schema > SchemaVersion {
		return fmt.Errorf("schema %d: %w (this Baton reads schema %d); upgrade Baton", *probe.Schema, ErrNewerSchema, SchemaVersion)
	}
	return nil
}
