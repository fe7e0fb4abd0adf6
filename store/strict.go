package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
)

// encoding/json is lenient where a hand-edited or hostile workflows.json must not be:
// it takes the last of two duplicate keys, and it matches keys to fields without regard
// to case, so {"schema":1,"Schema":2} decodes silently. checkKeys walks the raw tokens
// beside the document's types and refuses both, naming the key and where it is.

// docType is the shape checkKeys walks.
var docType = reflect.TypeFor[Doc]()

// maxDepth bounds nesting, as encoding/json does, so a hostile file cannot exhaust the
// stack of the check.
const maxDepth = 10000

// checkKeys refuses duplicate keys in any object, and in an object that is a struct, a
// key that matches a field only when case is ignored. Keys of maps (a step's env) are
// case-sensitive and may differ only in case. It is a single pass over the bytes without
// decoding values (the decoder that follows checks those); a structural error is reported
// as not JSON.
func checkKeys(data []byte) error {
	s := keyScan{data: data}
	s.ws()
	if err := s.value(docType, 0); err != nil {
		return err
	}
	return nil
}

// pathSeg is one step of the path to a value: a key, or an index when key is nil.
type pathSeg struct {
	key []byte
	idx int
}

type keyScan struct {
	data []byte
	i    int
	path []pathSeg // where the scan is; turned into a string only for an error
	keys [][]byte  // keys of the objects being scanned, innermost last (see keySet)
}

// at names the object being scanned, such as $.workflows[0].steps[1].
func (s *keyScan) at() string {
	var b strings.Builder
	b.WriteByte('$')
	for _, p := range s.path {
		if p.key == nil {
			fmt.Fprintf(&b, "[%d]", p.idx)
		} else {
			b.WriteByte('.')
			b.Write(p.key)
		}
	}
	return b.String()
}

func (s *keyScan) syntax(what string) error {
	return fmt.Errorf("not valid JSON: %s at offset %d", what, s.i)
}

func (s *keyScan) ws() {
	for s.i < len(s.data) {
		switch s.data[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// fieldCache maps a struct type to its JSON keys and their types.
var fieldCache sync.Map // reflect.Type -> map[string]reflect.Type

func jsonFields(t reflect.Type) map[string]reflect.Type {
	if m, ok := fieldCache.Load(t); ok {
		return m.(map[string]reflect.Type)
	}
	out := map[string]reflect.Type{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = f.Type
	}
	fieldCache.Store(t, out)
	return out
}

var unmarshalerType = reflect.TypeFor[json.Unmarshaler]()

// plainCache maps a type to what plain returns for it.
var plainCache sync.Map // reflect.Type -> reflect.Type (nil stored as a nil interface)

// plain returns t without pointers, or nil when its JSON form is judged by its own
// decoder (durations, times, interfaces) and so not walked by type.
func plain(t reflect.Type) reflect.Type {
	if t == nil {
		return nil
	}
	if v, ok := plainCache.Load(t); ok {
		r, _ := v.(reflect.Type)
		return r
	}
	u := t
	for u.Kind() == reflect.Pointer {
		u = u.Elem()
	}
	if reflect.PointerTo(u).Implements(unmarshalerType) || u.Kind() == reflect.Interface {
		u = nil
	}
	plainCache.Store(t, u)
	return u
}

// value scans one value. t is its Go type, or nil when unknown (its keys are then only
// checked for exact duplicates).
func (s *keyScan) value(t reflect.Type, depth int) error {
	if s.i >= len(s.data) {
		return s.syntax("unexpected end of input")
	}
	switch s.data[s.i] {
	case '{':
		if depth >= maxDepth {
			return s.syntax("nested too deep")
		}
		return s.object(plain(t), depth+1)
	case '[':
		if depth >= maxDepth {
			return s.syntax("nested too deep")
		}
		return s.array(plain(t), depth+1)
	case '"':
		_, _, err := s.str()
		return err
	}
	start := s.i
	for s.i < len(s.data) {
		switch s.data[s.i] {
		case ',', ']', '}', ' ', '\t', '\n', '\r':
			if s.i == start {
				return s.syntax("value expected")
			}
			return nil
		}
		s.i++
	}
	return nil
}

// str scans a string at s.i and returns its raw content and whether it has escapes.
func (s *keyScan) str() ([]byte, bool, error) {
	s.i++ // the opening quote
	start, esc := s.i, false
	for s.i < len(s.data) {
		switch s.data[s.i] {
		case '\\':
			esc = true
			s.i += 2
			continue
		case '"':
			raw := s.data[start:s.i]
			s.i++
			return raw, esc, nil
		}
		s.i++
	}
	return nil, false, s.syntax("unterminated string")
}

func (s *keyScan) array(t reflect.Type, depth int) error {
	var elem reflect.Type
	if t != nil && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) {
		elem = t.Elem()
	}
	s.i++
	s.ws()
	if s.i < len(s.data) && s.data[s.i] == ']' {
		s.i++
		return nil
	}
	for n := 0; ; n++ {
		s.ws()
		s.path = append(s.path, pathSeg{idx: n})
		if err := s.value(elem, depth); err != nil {
			return err
		}
		s.path = s.path[:len(s.path)-1]
		s.ws()
		if s.i >= len(s.data) {
			return s.syntax("unexpected end of input")
		}
		switch s.data[s.i] {
		case ',':
			s.i++
		case ']':
			s.i++
			return nil
		default:
			return s.syntax("',' or ']' expected")
		}
	}
}

// keySet remembers the keys of one object: a window of the scan's shared key stack while
// small, a map beyond.
type keySet struct {
	s     *keyScan
	start int
	m     map[string]bool
}

func (k *keySet) add(key []byte) (dup bool) {
	if k.has(key) {
		return true
	}
	if k.m != nil {
		k.m[string(key)] = true
		return false
	}
	k.s.keys = append(k.s.keys, key)
	if len(k.s.keys)-k.start > 32 {
		k.m = make(map[string]bool, 64)
		for _, x := range k.s.keys[k.start:] {
			k.m[string(x)] = true
		}
		k.s.keys = k.s.keys[:k.start]
	}
	return false
}

func (k *keySet) has(key []byte) bool {
	if k.m != nil {
		return k.m[string(key)]
	}
	for _, x := range k.s.keys[k.start:] {
		if bytes.Equal(x, key) {
			return true
		}
	}
	return false
}

func (s *keyScan) object(t reflect.Type, depth int) error {
	var fields map[string]reflect.Type
	var elem reflect.Type
	isStruct := t != nil && t.Kind() == reflect.Struct
	if isStruct {
		fields = jsonFields(t)
	} else if t != nil && t.Kind() == reflect.Map {
		elem = t.Elem()
	}
	s.i++
	s.ws()
	if s.i < len(s.data) && s.data[s.i] == '}' {
		s.i++
		return nil
	}
	seen := keySet{s: s, start: len(s.keys)}
	defer func() { s.keys = s.keys[:seen.start] }()
	for {
		s.ws()
		if s.i >= len(s.data) || s.data[s.i] != '"' {
			return s.syntax("object key expected")
		}
		raw, esc, err := s.str()
		if err != nil {
			return err
		}
		if esc {
			var key string
			if err := json.Unmarshal(s.data[s.i-len(raw)-2:s.i], &key); err != nil {
				return s.syntax("bad object key")
			}
			raw = []byte(key)
		}
		if seen.add(raw) {
			return fmt.Errorf("duplicate key %q in %s: each key may appear once", raw, s.at())
		}
		ft := elem
		if isStruct {
			var known bool
			if ft, known = fields[string(raw)]; !known {
				for name := range fields {
					if !strings.EqualFold(name, string(raw)) {
						continue
					}
					if seen.has([]byte(name)) {
						return fmt.Errorf("keys %q and %q in %s differ only in case: keys are case-sensitive", name, raw, s.at())
					}
					return fmt.Errorf("key %q in %s: keys are case-sensitive; did you mean %q?", raw, s.at(), name)
				}
				// An unknown field: the decoder refuses it with its name.
			}
		}
		s.ws()
		if s.i >= len(s.data) || s.data[s.i] != ':' {
			return s.syntax("':' expected")
		}
		s.i++
		s.ws()
		s.path = append(s.path, pathSeg{key: raw})
		if err := s.value(ft, depth); err != nil {
			return err
		}
		s.path = s.path[:len(s.path)-1]
		s.ws()
		if s.i >= len(s.data) {
			return s.syntax("unexpected end of input")
		}
		switch s.data[s.i] {
		case ',':
			s.i++
		case '}':
			s.i++
			return nil
		default:
			return s.syntax("',' or '}' expected")
		}
	}
}

// checkPaths refuses run ids that could lead a path out of the home folder: a run's log
// and private folder are named after its id (runs/<id>.log, runs/<id>), so an id must be
// one plain name.
func checkPaths(d *Doc) error {
	for i := range d.Runs {
		if err := SafeName(d.Runs[i].ID); err != nil {
			return fmt.Errorf("%w: runs[%d].id: %w", ErrInvalid, i, err)
		}
	}
	for i := range d.Schedules {
		if err := SafeName(d.Schedules[i].ID); err != nil {
			return fmt.Errorf("%w: schedules[%d].id: %w", ErrInvalid, i, err)
		}
	}
	return nil
}

// SafeName returns an error unless s can name a file inside a folder and nothing else:
// not empty, not "." or "..", no path separator, no NUL or control character, at most
// 200 bytes.
func SafeName(s string) error {
	switch {
	case s == "" || s == "." || s == "..":
		return fmt.Errorf("%q is not a valid name", s)
	case len(s) > 200:
		return fmt.Errorf("name longer than 200 bytes")
	case strings.ContainsAny(s, `/\`):
		return fmt.Errorf("%q contains a path separator", s)
	}
	for _, r := range s {
		if r < 0x20 || r == 0x7f {
			return fmt.Errorf("%q contains a control character", s)
		}
	}
	return nil
}

// withRestoreHint adds to an unreadable-file error where the previous good generation
// is, if workflows.prev.json exists and reads as a good document.
func withRestoreHint(dir string, err error) error {
	prev := filepath.Join(dir, PrevName)
	fi, serr := os.Stat(prev)
	if serr != nil || fi.Size() > DefaultMaxSize {
		return err
	}
	data, rerr := os.ReadFile(prev)
	if rerr != nil {
		return err
	}
	d, derr := Decode(data)
	if derr != nil {
		return err
	}
	return fmt.Errorf("%w; the previous good generation (%d) is kept in %s: to restore it, close every Baton window and copy it over %s",
		err, d.Generation, prev, FileName)
}

// strictDecode is the document loader: the key check, then c.decode (c may be nil), then
// the path check. Every load of workflows.json goes through it.
func strictDecode(c *codec, data []byte) (*Doc, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, errors.New("file is empty")
	}
	if err := checkKeys(data); err != nil {
		return nil, err
	}
	doc, err := c.decode(data)
	if err != nil {
		return nil, err
	}
	if err := checkPaths(doc); err != nil {
		return nil, err
	}
	return doc, nil
}
