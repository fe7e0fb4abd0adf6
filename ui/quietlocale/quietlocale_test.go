package quietlocale

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"fyne.io/fyne/v2/lang"
)

// TestMain, in a child started by TestLocales, reports what the process sees once every
// package is initialised: the locale variables, a string Fyne translates, Fyne's locale.
func TestMain(m *testing.M) {
	if os.Getenv("QUIETLOCALE_CHILD") == "1" {
		fmt.Printf("LC_ALL=%s|LC_MESSAGES=%s|LANG=%s|%s|%s\n", os.Getenv("LC_ALL"), os.Getenv("LC_MESSAGES"),
			os.Getenv("LANG"), lang.L("Cancel"), lang.SystemLocale())
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestLocales starts this test binary under each locale setting and checks that Fyne's
// init printed nothing, that Fyne chose the language it would choose anyway (English for
// every form of the C locale, French for a French locale or LANGUAGE), and that the
// environment main and the step commands see is the one the person set.
func TestLocales(t *testing.T) {
	for _, c := range []struct {
		env        []string
		lang, want string // what Fyne translates "Cancel" to; its SystemLocale
	}{
		{[]string{"LANG=C.UTF-8"}, "Cancel", "en"},
		{[]string{"LANG=C.utf8"}, "Cancel", "en"},
		{[]string{"LANG=C"}, "Cancel", "en"},
		{[]string{"LANG=POSIX"}, "Cancel", "en"},
		{nil, "Cancel", "en"},
		{[]string{"LANG=en_US.UTF-8"}, "Cancel", "en-US"},
		{[]string{"LANG=fr_FR.UTF-8"}, "Annuler", "fr-FR"},
		{[]string{"LC_ALL=C.UTF-8", "LANG=fr_FR.UTF-8"}, "Cancel", "en"},
		{[]string{"LC_MESSAGES=C.UTF-8", "LANG=fr_FR.UTF-8"}, "Cancel", "en"},
		{[]string{"LC_ALL=fr_FR.UTF-8", "LANG=C.UTF-8"}, "Annuler", "fr-FR"},
		// LANGUAGE counts when the locale is not plain C: go-locale reads it, so must Fyne.
		{[]string{"LANG=C.UTF-8", "LANGUAGE=fr"}, "Annuler", "fr"},
	} {
		name := strings.Join(c.env, ",")
		if name == "" {
			name = "unset"
		}
		t.Run(name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(withoutLocale(), "QUIETLOCALE_CHILD=1")
			cmd.Env = append(cmd.Env, c.env...)
			var out, errb bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errb
			if err := cmd.Run(); err != nil {
				t.Fatalf("child: %v\n%s", err, errb.String())
			}
			if errb.Len() != 0 {
				t.Errorf("stderr is not empty:\n%s", errb.String())
			}
			set := map[string]string{}
			for _, kv := range c.env {
				k, v, _ := strings.Cut(kv, "=")
				set[k] = v
			}
			want := fmt.Sprintf("LC_ALL=%s|LC_MESSAGES=%s|LANG=%s|%s|%s\n", set["LC_ALL"], set["LC_MESSAGES"], set["LANG"], c.lang, c.want)
			if out.String() != want {
				t.Errorf("after init:\n got %s want %s", out.String(), want)
			}
		})
	}
}

// withoutLocale is this process's environment without any locale variable.
func withoutLocale() []string {
	var env []string
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); k == "LANG" || k == "LANGUAGE" || strings.HasPrefix(k, "LC_") {
			continue
		}
		env = append(env, kv)
	}
	return env
}
