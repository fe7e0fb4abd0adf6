// Package early is the first half of quietlocale. Its init runs before the init of Fyne's
// lang package, which reads the locale from the environment and logs "Fyne error: Error
// parsing user locale C" (three lines on stderr) when the locale is the C locale with a
// codeset, as in LANG=C.UTF-8.
//
// Why it runs first: since Go 1.21 the packages of a program are initialised in the order of
// their import paths, each as soon as all its imports are; this package imports only os and
// strings, which fyne.io/fyne/v2/lang depends on too, and "baton/..." sorts before
// "fyne.io/...". Keep its imports to the standard library packages that lang already needs.
package early

import (
	"os"
	"strings"
)

// Restore puts back the variable init rewrote, if any. quietlocale calls it from its own
// init, which runs after Fyne's lang package's (quietlocale imports lang).
func Restore() {
	if name != "" {
		_ = os.Setenv(name, value)
		name = ""
	}
}

var name, value string // the variable init rewrote and its value

func init() {
	var plain string
	name, value, plain = cLocaleVar()
	if name != "" {
		_ = os.Setenv(name, plain)
	}
}

// cLocaleVar returns the variable that Fyne's locale lookup (github.com/jeandeaual/go-locale,
// Unix) will read, its value and that value without codeset or modifier, when the value is
// the C locale with a codeset or modifier ("C.UTF-8", "C.utf8", "POSIX.UTF-8", "C@x");
// else "". It follows go-locale exactly: the first non-empty of LC_ALL, LC_MESSAGES and
// LANG; "C" and "POSIX" alone are already understood; any other value gives way to
// LANGUAGE when that is set, and then the language comes from LANGUAGE, which is left alone.
//
// For such a value go-locale reports the language "C", which is not a BCP 47 tag: Fyne
// logs the parse error and falls back to English, exactly what it does for plain "C". So
// showing Fyne "C" instead, for the length of its lang init only, changes nothing it
// shows, and the process environment (what step commands inherit, what GLFW's setlocale
// reads when the window opens) is the person's own again before main runs.
func cLocaleVar() (name, value, plain string) {
	for _, n := range []string{"LC_ALL", "LC_MESSAGES", "LANG"} {
		v := os.Getenv(n)
		if v == "" {
			continue
		}
		if v == "C" || v == "POSIX" || os.Getenv("LANGUAGE") != "" {
			return "", "", ""
		}
		plain, _, _ = strings.Cut(v, ".")
		plain, _, _ = strings.Cut(plain, "@")
		if plain == "C" || plain == "POSIX" {
			return n, v, plain
		}
		return "", "", ""
	}
	return "", "", ""
}
