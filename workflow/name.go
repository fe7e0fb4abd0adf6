package workflow

import (
	"fmt"
	"unicode/utf8"

	"baton/store"
)

// CheckName returns nil if name may be given to a workflow, else ErrInvalid wrapping a
// store.FieldErrors for "name". It is the one rule for the characters of a new name, which
// every entry that makes a name obeys (the control channel, the window's intents,
// forwarded requests, the command line) because they all add and rename through
// AddWorkflow and RenameWorkflow; those check the name once trimmed (Normalize: white
// space around a name goes, as it always did). A name must be valid UTF-8 and may not
// hold a control character (C0, DEL, C1: an ESC sequence, a NUL or a newline printed to a
// terminal acts on it), a bidirectional override, embedding or isolate, or a line or
// paragraph separator (they make a name read as another). A name an older home already
// holds is not refused where it is only named (run, update, delete, rename away from it);
// the command line prints such a name escaped.
func CheckName(name string) error {
	if !utf8.ValidString(name) {
		return nameError(fmt.Sprintf("%q is not valid UTF-8", name))
	}
	for _, r := range name {
		if what := forbiddenRune(r); what != "" {
			return nameError(fmt.Sprintf("must not contain %s (%U)", what, r))
		}
	}
	return nil
}

func nameError(msg string) error {
	return fmt.Errorf("%w: %w", ErrInvalid, store.FieldErrors{{Field: "name", Message: msg}})
}

// forbiddenRune names the kind of r if a name may not hold it, else "".
func forbiddenRune(r rune) string {
	switch {
	case r < 0x20 || r == 0x7f:
		return "a control character"
	case r >= 0x80 && r <= 0x9f:
		return "a C1 control character"
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return "a bidirectional override or isolate"
	case r == 0x2028 || r == 0x2029:
		return "a line or paragraph separator"
	}
	return ""
}
