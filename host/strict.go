package host

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"unicode/utf8"

	"encoding/json"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	jsonv1 "github.com/go-json-experiment/json/v1"

	"baton/store"
)

// The control channel and the forwarding files are untrusted input, decoded as strictly
// as workflows.json is (store/strict.go): encoding/json takes the last of two duplicate
// keys ({"op":"status","op":"shutdown"} shut a window down), matches keys to fields
// without regard to case, and turns bytes that are not UTF-8 into U+FFFD, or echoes them
// raw inside a json.RawMessage. Here a request line must be one JSON value, valid UTF-8,
// with every key once (escaped spellings included) at every depth; a key that is a known
// field's name in another case is refused, not ignored; nested objects (a workflow, a
// schedule, a retention) accept only their fields, spelled exactly.

// strictOpts decode with encoding/json's semantics (what the writers marshal with) but
// refuse duplicate keys, bytes that are not UTF-8, keys in another case and unknown keys.
var strictOpts = jsonv2.JoinOptions(
	jsonv1.DefaultOptionsV1(),
	jsontext.AllowDuplicateNames(false),
	jsontext.AllowInvalidUTF8(false),
	jsonv2.MatchCaseInsensitiveNames(false),
	jsonv2.RejectUnknownMembers(true),
	jsonv1.ReportErrorsWithLegacySemantics(false),
)

// lenientKeys are strictOpts that skip unknown keys: a request may carry keys a newer
// client adds (the channel changes only compatibly); checkKeyCase refuses the ones that
// are a known key in another case.
var lenientKeys = jsonv2.JoinOptions(strictOpts, jsonv2.RejectUnknownMembers(false))

// errTrailing is checkValue's error for a valid value followed by more than space.
var errTrailing = errors.New("trailing data after the JSON value")

// checkValue returns data as one JSON value if it is valid UTF-8, every object's keys are
// unique, and nothing but space follows it; else an error saying what is wrong (with
// errTrailing, the value that came first).
func checkValue(data []byte) (jsontext.Value, error) {
	if !utf8.Valid(data) {
		return nil, fmt.Errorf("not valid UTF-8 (first bad byte at offset %d)", invalidUTF8At(data))
	}
	dec := jsontext.NewDecoder(bytes.NewReader(data), jsontext.AllowDuplicateNames(false), jsontext.AllowInvalidUTF8(false))
	v, err := dec.ReadValue()
	if err != nil {
		return nil, fmt.Errorf("not valid JSON: %w", err)
	}
	v = v.Clone() // valid only until the next read
	if _, err := dec.ReadToken(); err != io.EOF {
		return v, errTrailing
	}
	return v, nil
}

func invalidUTF8At(b []byte) int {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return len(b)
}

// checkKeyCase refuses a key of the JSON object members that is the JSON name of a field
// of struct t spelled in another case ("OP" for "op").
func checkKeyCase(members map[string]jsontext.Value, t reflect.Type) error {
	for key := range members {
		if name := store.FoldedField(t, key); name != "" && name != key {
			return fmt.Errorf("key %q: keys are case-sensitive; did you mean %q?", key, name)
		}
	}
	return nil
}

// decodeObject decodes data, one JSON value, into v strictly (strictOpts): a key that is
// not a field of v is refused, and named as a case variant when it is one.
func decodeObject(data []byte, v any) error {
	if _, err := checkValue(data); err != nil {
		return err
	}
	err := jsonv2.Unmarshal(data, v, strictOpts)
	var se *jsonv2.SemanticError
	if errors.As(err, &se) && errors.Is(se.Err, jsonv2.ErrUnknownName) {
		key, where := se.JSONPointer.LastToken(), ""
		if at := se.JSONPointer.Parent(); at != "" {
			where = " in " + string(at) // a JSON pointer: /steps/0
		}
		if name := store.FoldedField(se.GoType, key); name != "" {
			return fmt.Errorf("field %q%s: keys are case-sensitive; did you mean %q?", key, where, name)
		}
		return fmt.Errorf("unknown field %q%s", key, where)
	}
	return err
}

// lineID returns the "id" member of the JSON object that starts line, for a refusal to
// echo, when that id is unambiguous: line is valid UTF-8, and its object has one key that
// is "id" in any case, spelled "id", and the id itself is strictly valid JSON. Duplicate
// keys elsewhere, trailing data or a value of the wrong type do not hide it. Otherwise nil.
func lineID(line []byte) json.RawMessage {
	if !utf8.Valid(line) {
		return nil
	}
	// Lenient where the id is not: a lone surrogate escape elsewhere does not hide it.
	dec := jsontext.NewDecoder(bytes.NewReader(line), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	if tok, err := dec.ReadToken(); err != nil || tok.Kind() != '{' {
		return nil
	}
	var id json.RawMessage
	n := 0
	for dec.PeekKind() == '"' {
		tok, err := dec.ReadToken()
		if err != nil {
			return nil
		}
		key := tok.String() // valid only until the next read
		v, err := dec.ReadValue()
		if err != nil {
			return nil
		}
		if strings.EqualFold(key, "id") {
			n++
			id = json.RawMessage(v.Clone())
			if key != "id" {
				return nil
			}
		}
	}
	if tok, err := dec.ReadToken(); err != nil || tok.Kind() != '}' || n != 1 || !jsontext.Value(id).IsValid() {
		return nil // an id with a duplicate key or a lone surrogate escape inside is not echoed
	}
	return id
}
