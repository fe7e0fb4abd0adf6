package store

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"

	json "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	jsonv1 "github.com/go-json-experiment/json/v1"
)

// encoding/json is lenient where a hand-edited or hostile workflows.json must not be: it
// takes the last of two duplicate keys, and it matches keys to fields without regard to
// case, so {"schema":1,"Schema":2} decodes silently. The loader decodes with the v2 JSON
// engine (github.com/go-json-experiment/json, the mirror of encoding/json/v2) under
// encoding/json's own semantics, the ones the writer (encoding/json) saves with, except
// that it refuses duplicate keys (escaped spellings included), matches keys to fields
// case-sensitively and refuses unknown fields. The engine stops at the first problem and
// says where it is as a JSON pointer; loadError turns that into a message naming the key
// and its place, such as $.workflows[0].steps[1].

// strictOpts are the loader's options.
var strictOpts = json.JoinOptions(
	jsonv1.DefaultOptionsV1(),                     // encoding/json semantics ...
	jsontext.AllowDuplicateNames(false),           // ... but a key may appear once,
	json.MatchCaseInsensitiveNames(false),         // keys are case-sensitive,
	json.RejectUnknownMembers(true),               // every key names a field,
	jsonv1.ReportErrorsWithLegacySemantics(false), // and errors carry where they are.
)

// probeOpts are strictOpts that skip unknown fields, to read the schema of any version.
var probeOpts = json.JoinOptions(strictOpts, json.RejectUnknownMembers(false))

// loadError explains err, an error of json.Unmarshal(data, v, strictOpts) where data is at
// path at (such as "$" or "$.runs[3]") in the file. early reports a problem that comes
// before the schema check: the file is not JSON, has trailing data, a duplicate key, or a
// key that is a field's name spelled in another case.
func loadError(err error, data []byte, at string) (msg error, early bool) {
	var se *jsontext.SyntacticError
	var me *json.SemanticError
	switch {
	case errors.As(err, &se):
		p := se.JSONPointer
		switch {
		case errors.Is(se.Err, jsontext.ErrDuplicateName):
			return fmt.Errorf("duplicate key %q in %s: each key may appear once", p.LastToken(), jsonPath(data, at, p.Parent())), true
		case p == "" && trailing(data):
			return errors.New("trailing data after the JSON document"), true
		}
		return fmt.Errorf("not valid JSON: %v in %s at offset %d", se.Err, jsonPath(data, at, p), se.ByteOffset), true
	case errors.As(err, &me) && errors.Is(me.Err, json.ErrUnknownName):
		key, obj := me.JSONPointer.LastToken(), me.JSONPointer.Parent()
		where, name := jsonPath(data, at, obj), FoldedField(me.GoType, key)
		switch {
		case name == "":
			return fmt.Errorf("bad document: unknown field %q in %s", key, where), false
		case keyBefore(data, obj, name, me.ByteOffset):
			return fmt.Errorf("keys %q and %q in %s differ only in case: keys are case-sensitive", name, key, where), true
		}
		return fmt.Errorf("key %q in %s: keys are case-sensitive; did you mean %q?", key, where, name), true
	case errors.As(err, &me):
		what := "the value"
		switch k := me.JSONKind; k {
		case 0:
		case '{', '[':
			what = map[jsontext.Kind]string{'{': "a JSON object", '[': "a JSON array"}[k]
		default:
			what = "a JSON " + k.String()
		}
		if me.GoType != nil {
			what += " into Go " + me.GoType.String()
		}
		msg := fmt.Sprintf("bad document: %s: cannot decode %s", jsonPath(data, at, me.JSONPointer), what)
		if me.Err != nil {
			return fmt.Errorf("%s: %w", msg, me.Err), false
		}
		return errors.New(msg), false
	}
	return fmt.Errorf("bad document: %w", err), false
}

// jsonPath names the value at pointer p inside data (which is at path at in the file) in
// the $.workflows[0].steps[1] form. Whether a token is an index or a key is read from data;
// if data breaks off before p, a token of digits is taken for an index.
func jsonPath(data []byte, at string, p jsontext.Pointer) string {
	var toks []string
	for tok := range p.Tokens() {
		toks = append(toks, tok)
	}
	kinds := make([]jsontext.Kind, len(toks)) // '{' or '[': what holds each token
	if len(toks) > 0 {
		scan(data, func(dec *jsontext.Decoder, _ jsontext.Token) bool {
			if dec.StackDepth() < len(toks) || dec.StackPointer() != p {
				return false
			}
			for i := range kinds {
				kinds[i], _ = dec.StackIndex(i + 1)
			}
			return true
		})
	}
	b := []byte(at)
	for i, tok := range toks {
		if kinds[i] == '[' || kinds[i] == 0 && tok != "" && strings.Trim(tok, "0123456789") == "" {
			b = append(b, "["+tok+"]"...)
		} else {
			b = append(b, "."+tok...)
		}
	}
	return string(b)
}

// keyBefore reports whether the object at pointer obj in data has the key name before
// byte offset off.
func keyBefore(data []byte, obj jsontext.Pointer, name string, off int64) (found bool) {
	scan(data, func(dec *jsontext.Decoder, tok jsontext.Token) bool {
		if dec.InputOffset() > off {
			return true
		}
		k, n := dec.StackIndex(dec.StackDepth())
		p := dec.StackPointer()
		found = tok.Kind() == '"' && k == '{' && n%2 == 1 && p.Parent() == obj && p.LastToken() == name
		return found
	})
	return found
}

// scan reads the tokens of data, duplicate keys allowed, and calls fn after each until fn
// returns true or data ends or breaks off.
func scan(data []byte, fn func(*jsontext.Decoder, jsontext.Token) bool) {
	dec := jsontext.NewDecoder(bytes.NewReader(data), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	for {
		tok, err := dec.ReadToken()
		if err != nil || fn(dec, tok) {
			return
		}
	}
}

// trailing reports whether data is one complete JSON value followed by more than space.
func trailing(data []byte) bool {
	dec := jsontext.NewDecoder(bytes.NewReader(data), jsontext.AllowInvalidUTF8(true))
	if _, err := dec.ReadValue(); err != nil {
		return false
	}
	_, err := dec.ReadToken()
	return err != io.EOF
}

// FoldedField returns the JSON name of an exported field of struct t (its own or promoted
// from an embedded struct) that equals key when case is ignored, or "". Strict decoders
// (the document's here, the control channel's in host) use it to refuse a known key in
// another case.
func FoldedField(t reflect.Type, key string) string {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil || t.Kind() != reflect.Struct {
		return ""
	}
	for _, f := range reflect.VisibleFields(t) {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" {
			name = f.Name
		}
		if !f.Anonymous && f.IsExported() && name != "-" && strings.EqualFold(name, key) {
			return name
		}
	}
	return ""
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
	data, rerr := ReadInHome(prev)
	if rerr != nil {
		return err
	}
	d, derr := Decode(data)
	if derr != nil {
		return err
	}
	return fmt.Errorf("%w; the previous good generation (%d) is kept in %s: to restore it (with the newer saves the log still holds), close every Baton window and run `baton recover`, which moves %s aside",
		err, d.Generation, prev, FileName)
}

// strictDecode is the document loader: c.decode (c may be nil), then the path check.
// Every load of workflows.json goes through it.
func strictDecode(c *codec, data []byte) (*Doc, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, errors.New("file is empty")
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
