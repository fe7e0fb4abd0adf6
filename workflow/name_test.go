package workflow

import (
	"errors"
	"testing"

	"baton/store"
)

func TestCheckName(t *testing.T) {
	for _, bad := range []string{"a\x00", "a\x1bb", "a\nb", "a\x7f", "a\u0080", "a\u009fb", "a\u202ab", "a\u202eb",
		"a\u2066b", "a\u2069b", "a\u2028b", "a\u2029b", "a\xffb"} {
		var fe store.FieldErrors
		if err := CheckName(bad); !errors.Is(err, ErrInvalid) || !errors.As(err, &fe) || fe[0].Field != "name" {
			t.Errorf("CheckName(%q) = %v, want invalid on the name", bad, err)
		}
	}
	for _, good := range []string{"backup", "Résumé ✓", "日本語", "עברית", "a b", "a\u200db", "x\u00a0y"} {
		if err := CheckName(good); err != nil {
			t.Errorf("CheckName(%q) = %v", good, err)
		}
	}
}
