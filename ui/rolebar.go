package ui

import (
	"image/color"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"baton/host"
	"baton/store"
	"baton/ui/view"
)

// TakeoverNoteFor is how long the role bar keeps saying what the last takeover did.
const TakeoverNoteFor = view.TakeoverNoteFor

// RoleBar is the strip at the top of the window that says who may write. It is always
// visible. Touch it only on the UI goroutine.
type RoleBar struct {
	Label *widget.Label
	// Ask is "Make this window the writer", shown while this window reads: it asks the
	// writer to hand over (request_write).
	Ask   *widget.Button
	Note  *widget.Label // the outcome of the last request
	Icon  *widget.Icon
	bg    *canvas.Rectangle
	tone  view.Tone
	toned bool // tone is shown
	obj   fyne.CanvasObject

	// Recover is "Recover…", shown while the window's problem is one recovery is for (a
	// damaged home): it shows what recovery would restore and asks (Main.ShowRecover).
	Recover *widget.Button
}

func newRoleBar() *RoleBar {
	b := &RoleBar{Label: widget.NewLabel(""), Icon: widget.NewIcon(theme.InfoIcon()), bg: canvas.NewRectangle(color.Transparent),
		Ask: widget.NewButton("Make this window the writer", nil), Note: widget.NewLabel(""),
		Recover: widget.NewButtonWithIcon(view.RecoverButton, theme.WarningIcon(), nil)}
	b.Label.TextStyle.Bold = true
	b.Label.Truncation = fyne.TextTruncateEllipsis
	b.bg.CornerRadius = theme.InputRadiusSize()
	b.Ask.Hide()
	b.Recover.Hide()
	b.Recover.Importance = widget.WarningImportance
	b.Note.Hide()
	row := container.NewBorder(nil, nil, container.NewPadded(b.Icon), container.NewHBox(b.Note, b.Recover, b.Ask), b.Label)
	b.obj = container.NewPadded(container.NewStack(b.bg, row))
	return b
}

// set shows text for role.
func (b *RoleBar) set(role host.Role, text string) {
	if b.Label.Text != text {
		b.Label.SetText(text)
	}
	if role == host.RoleReader {
		b.Ask.Show()
	} else {
		b.Ask.Hide()
	}
	tone := view.RoleTone(role)
	if b.toned && b.tone == tone {
		return
	}
	b.tone, b.toned = tone, true
	name := theme.ColorNameWarning
	var icon fyne.Resource = theme.NewWarningThemedResource(theme.VisibilityIcon())
	switch tone {
	case view.ToneSuccess:
		name, icon = theme.ColorNameSuccess, theme.NewSuccessThemedResource(theme.DocumentCreateIcon())
	case view.TonePrimary:
		name, icon = theme.ColorNamePrimary, theme.NewPrimaryThemedResource(theme.ViewRefreshIcon())
	case view.ToneDisabled:
		name, icon = theme.ColorNameDisabled, theme.NewDisabledResource(theme.CancelIcon())
	}
	b.bg.FillColor = tint(theme.Color(name), 0x38)
	b.bg.Refresh()
	b.Icon.SetResource(icon)
}

// offerRecover shows Recover… while ok.
func (b *RoleBar) offerRecover(ok bool) {
	if ok == b.Recover.Visible() {
		return
	}
	if ok {
		b.Recover.Show()
	} else {
		b.Recover.Hide()
	}
}

// tint returns c with alpha a, for a soft background that works in light and dark themes.
func tint(c color.Color, a uint8) color.Color {
	r, g, bl, _ := c.RGBA()
	return color.NRGBA{R: uint8(r >> 8), G: uint8(g >> 8), B: uint8(bl >> 8), A: a}
}

// RoleText is view.RoleText: the role bar's text.
func RoleText(st host.Status, tk host.Takeover, doc *store.Doc, now time.Time) string {
	return view.RoleText(st, tk, doc, now)
}
