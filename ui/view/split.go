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
