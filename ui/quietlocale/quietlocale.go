// Package quietlocale keeps Fyne from printing "Fyne error: Error parsing user locale C" on
// stderr at start-up when the locale is LANG=C.UTF-8 (the default of Debian and Ubuntu
// servers, containers, many systemd units and cron jobs): every baton command, the
// command-line ones included, links Fyne, and Fyne's lang package reads the locale in its
// package init. main imports this package for its side effect only:
//
//	import _ "baton/ui/quietlocale"
//
// Its internal/early half shows Fyne's lang init the plain "C" locale instead (Fyne's
// result is the same: English); this half, initialised after lang because it imports it,
// puts the person's own value back before any other code of baton runs. A real locale
// (en_US.UTF-8, fr_FR.UTF-8, ...) and LANGUAGE are never touched.
package quietlocale

import (
	_ "fyne.io/fyne/v2/lang" // must be initialised before this package's init

	"baton/ui/quietlocale/internal/early"
)

func init() { early.Restore() }
