//go:build no_emoji

package theme

import "fyne.io/fyne/v2"

var emoji fyne.Resource
