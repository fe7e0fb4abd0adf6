package etcdhome

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"

	"baton/store"
)

// The document's keys, relative to <prefix>/doc/:
//
//	meta                      the document without its workflows, runs and schedules,
//	                          the set its items live in and their order
//	<set>/wf/<name>           one key per workflow (name path-escaped)
//	<set>/sc/<id>             one key per schedule
//	<set>/run/<id>            one key per run (active and recent)
//
// Values are the store's JSON (encoding/json with the types' own marshalers). A set is
// named by the generation of the save that made it (s%016x); only the set meta names is
// the document: keys of any other set are an unfinished chunked save (see commit.go).

// meta is the value of <prefix>/doc/meta.
type meta struct {
	Doc       store.Doc `json:"doc"` // Workflows, Runs and Schedules are nil here
	Set       string    `json:"set"`
	Workflows []string  `json:"workflows"` // item keys (escaped), in the document's order
	Schedules []string  `json:"schedules"`
	Runs      []string  `json:"runs"`
}

// Item kinds, the middle segment of an item's key.
const (
	kindWorkflow = "wf"
	kindSchedule = "sc"
	kindRun      = "run"
)

func setName(gen uint64) string { return fmt.Sprintf("s%016x", gen) }

// itemKey returns an item's key relative to its set.
func itemKey(kind, id string) string { return kind + "/" + url.PathEscape(id) }

// encoded is a document as the values of its keys, relative to <prefix>/doc/.
type encoded map[string][]byte

// encoder encodes documents, re-encoding only the runs that changed since the last
// document it encoded (finished runs never change). Guarded by the caller.
type encoder struct {
	runs map[string]encRun
}

type encRun struct {
	run store.Run
	b   []byte
	key string // itemKey(kindRun, run.ID): escaping it per save was a third of encode's time
}

// encode returns doc's keys, with its items in set.
func (e *encoder) encode(doc *store.Doc, set string) (encoded, error) {
	out := make(encoded, 1+len(doc.Workflows)+len(doc.Schedules)+len(doc.Runs))
	m := meta{Doc: *doc, Set: set}
	m.Doc.Workflows, m.Doc.Runs, m.Doc.Schedules = nil, nil, nil
	pfx := set + "/"
	for i := range doc.Workflows {
		k := itemKey(kindWorkflow, doc.Workflows[i].Name)
		b, err := json.Marshal(&doc.Workflows[i])
		if err != nil {
			return nil, fmt.Errorf("encode workflow %q: %w", doc.Workflows[i].Name, err)
		}
		out[pfx+k] = b
		m.Workflows = append(m.Workflows, k)
	}
	for i := range doc.Schedules {
		k := itemKey(kindSchedule, doc.Schedules[i].ID)
		b, err := json.Marshal(&doc.Schedules[i])
		if err != nil {
			return nil, fmt.Errorf("encode schedule %q: %w", doc.Schedules[i].ID, err)
		}
		out[pfx+k] = b
		m.Schedules = append(m.Schedules, k)
	}
	keep := make(map[string]encRun, len(doc.Runs))
	m.Runs = make([]string, 0, len(doc.Runs))
	for i := range doc.Runs {
		r := &doc.Runs[i]
		c, _, err := e.run(r)
		if err != nil {
			return nil, err
		}
		keep[r.ID] = c
		out[pfx+c.key] = c.b
		m.Runs = append(m.Runs, c.key)
	}
	e.runs = keep
	b, err := json.Marshal(&m)
	if err != nil {
		return nil, fmt.Errorf("encode the document's meta: %w", err)
	}
	out["meta"] = b
	return out, nil
}

// run returns run r's key and encoding: the one kept from before when r did not change
// (changed false), else a new one (not kept: the caller keeps it).
func (e *encoder) run(r *store.Run) (c encRun, changed bool, err error) {
	c, ok := e.runs[r.ID]
	if ok && store.RunEqual(&c.run, r) {
		return c, false, nil
	}
	b, err := json.Marshal(r)
	if err != nil {
		return c, false, fmt.Errorf("encode run %s: %w", r.ID, err)
	}
	k := c.key
	if !ok {
		k = itemKey(kindRun, r.ID)
	}
	return encRun{run: r.Clone(), b: b, key: k}, true, nil
}

// decoder assembles documents from keys, decoding only values it has not decoded before
// (by key and bytes). Guarded by the caller.
type decoder struct {
	items map[string]decItem
}

type decItem struct {
	b []byte
	v any // store.Workflow, store.Schedule or store.Run
}

// decode assembles the document from kv (relative keys), or returns nil, nil when the
// home has no document yet (no meta). Keys of sets other than meta's are ignored.
func (d *decoder) decode(kv encoded) (*store.Doc, error) {
	mb, ok := kv["meta"]
	if !ok {
		return nil, nil
	}
	var m meta
	if err := strictUnmarshal(mb, &m); err != nil {
		return nil, fmt.Errorf("%w: meta: %w", ErrDamaged, err)
	}
	doc := m.Doc
	doc.Workflows = make([]store.Workflow, 0, len(m.Workflows))
	doc.Schedules = make([]store.Schedule, 0, len(m.Schedules))
	doc.Runs = make([]store.Run, 0, len(m.Runs))
	keep := make(map[string]decItem, len(m.Workflows)+len(m.Schedules)+len(m.Runs))
	for _, k := range m.Workflows {
		v, err := decodeItem[store.Workflow](d, keep, kv, m.Set+"/"+k)
		if err != nil {
			return nil, err
		}
		doc.Workflows = append(doc.Workflows, v.Clone())
	}
	for _, k := range m.Schedules {
		v, err := decodeItem[store.Schedule](d, keep, kv, m.Set+"/"+k)
		if err != nil {
			return nil, err
		}
		doc.Schedules = append(doc.Schedules, v.Clone())
	}
	for _, k := range m.Runs {
		v, err := decodeItem[store.Run](d, keep, kv, m.Set+"/"+k)
		if err != nil {
			return nil, err
		}
		doc.Runs = append(doc.Runs, v.Clone())
	}
	d.items = keep
	if err := doc.Validate(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrDamaged, err)
	}
	return &doc, nil
}

func decodeItem[T any](d *decoder, keep map[string]decItem, kv encoded, key string) (T, error) {
	var v T
	b, ok := kv[key]
	if !ok {
		return v, fmt.Errorf("%w: the meta names %s, which is missing", ErrDamaged, key)
	}
	if it, ok := d.items[key]; ok && bytes.Equal(it.b, b) {
		keep[key] = it
		return it.v.(T), nil
	}
	if err := strictUnmarshal(b, &v); err != nil {
		return v, fmt.Errorf("%w: %s: %w", ErrDamaged, key, err)
	}
	keep[key] = decItem{b: b, v: v}
	return v, nil
}

// strictUnmarshal decodes b into v, refusing unknown fields (a newer Baton's document is
// never taken for ours) and trailing data.
func strictUnmarshal(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return fmt.Errorf("trailing data after the value")
	}
	return nil
}

// relKey returns key relative to <prefix>/doc/, or false when it is not under it.
func (h *Home) relKey(key []byte) (string, bool) {
	return strings.CutPrefix(string(key), h.docPfx())
}

// docState is the document a term or a follower last saw, as keys and decoded.
type docState struct {
	loaded  bool
	kv      encoded // relative keys of the current set and meta only
	set     string
	metaRev int64 // ModRevision of meta; 0 when the home has no document
	doc     *store.Doc
	enc     encoder
	dec     decoder
	garbage bool // keys of sets other than set may be present (an unfinished chunked save)
}
