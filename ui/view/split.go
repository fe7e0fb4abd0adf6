package view

import (
	"fmt"
	"strings"
)

// SplitWords splits a command line into words as a POSIX shell would, without running
// one: blanks separate words; 'single quotes' keep everything; "double quotes" keep
// everything but \" \\ \$ \` ; a backslash outside quotes keeps the next character. No
// expansion of any kind ($HOME, *, ~) is done. An unterminated quote is an error.
func SplitWords(s string) ([]string, error) {
	var words []string
	var w strings.Builder
	inWord := false
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		c := rs[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				words, inWord = append(words, w.String()), false
				w.Reset()
			}
			continue
		case c == '\\':
			if i+1 < len(rs) {
				i++
				w.WriteRune(rs[i])
			}
		case c == '\'':
			j := i + 1
			for ; j < len(rs) && rs[j] != '\''; j++ {
				w.WriteRune(rs[j])
			}
			if j >= len(rs) {
				return nil, fmt.Errorf("a ' is not closed")
			}
			i = j
		case c == '"':
			j := i + 1
			for ; j < len(rs) && rs[j] != '"'; j++ {
				if rs[j] == '\\' && j+1 < len(rs) && strings.ContainsRune(`"\$`+"`", rs[j+1]) {
					j++
				}
				w.WriteRune(rs[j])
			}
			if j >= len(rs) {
				return nil, fmt.Errorf(`a " is not closed`)
			}
			i = j
		default:
			w.WriteRune(c)
		}
		inWord = true
	}
	if inWord {
		words = append(words, w.String())
	}
	return words, nil
}

// SplitCommand is the offer of the editor's "Split into arguments": when the program
// field of argv holds a whole command line ("ls -la /tmp"), the argv it splits into,
// the other arguments after it; ok is false when there is nothing to split.
func SplitCommand(argv []string) (split []string, ok bool) {
	if len(argv) == 0 {
		return nil, false
	}
	words, err := SplitWords(argv[0])
	if err != nil || len(words) < 2 {
		return nil, false
	}
	return append(words, argv[1:]...), true
}

// ProgramWarnings are what Save says of steps whose program will not run as typed, keyed
// by the step's argv field (StepField(i, "argv")): a whole command line typed as the
// program ("Split into arguments" fixes it), or a program that is not on PATH. lookPath
// finds a program as exec.LookPath does; a program with a slash is looked for relative
// to the step's folder by stat. Save still saves: the program may be installed later.
func ProgramWarnings(steps []StepDraft, lookPath func(string) error, stat func(string) error) map[string]string {
	out := map[string]string{}
	for i, s := range steps {
		if len(s.Argv) == 0 || strings.TrimSpace(s.Argv[0]) == "" {
			continue
		}
		prog := s.Argv[0]
		field := StepField(i, "argv")
		if _, ok := SplitCommand(s.Argv); ok {
			out[field] = fmt.Sprintf("%q is a whole command line, not a program: use Split into arguments", prog)
			continue
		}
		if strings.Contains(prog, "/") {
			p := prog
			if !strings.HasPrefix(p, "/") && s.Dir != "" {
				p = strings.TrimSuffix(s.Dir, "/") + "/" + p
			}
			if stat(p) != nil {
				out[field] = fmt.Sprintf("program %q not found", prog)
			}
			continue
		}
		if lookPath(prog) != nil {
			out[field] = fmt.Sprintf("program %q is not on PATH: it will fail when it runs unless it is installed by then", prog)
		}
	}
	return out
}

// SavedButText is the editor's message after a save whose n steps' programs will not run
// as typed.
func SavedButText(n int) string {
	return fmt.Sprintf("Saved, but %s will not run as typed: see the %s marked below.", Plural(n, "step", "steps"),
		map[bool]string{true: "step", false: "steps"}[n == 1])
}
