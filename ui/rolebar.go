package ui

import (
	"fmt"
	"image/color"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"baton/host"
	"baton/store"
)

// TakeoverNoteFor is how long the role bar keeps saying what the last takeover did.
const TakeoverNoteFor = 2 * time.Minute

// RoleBar is the strip at the top of the window that says who may write. It is always
// visible. Touch it only on the UI goroutine.
type RoleBar struct {
	Label *widget.Label
	Icon  *widget.Icon
	bg    *canvas.Rectangle
	role  string
	obj   fyne.CanvasObject
}

func newRoleBar() *RoleBar {
	b := &RoleBar{Label: widget.NewLabel(""), Icon: widget.NewIcon(theme.InfoIcon()), bg: canvas.NewRectangle(color.Transparent)}
	b.Label.TextStyle.Bold = true
	b.Label.Truncation = fyne.TextTruncateEllipsis
	b.bg.CornerRadius = theme.InputRadiusSize()
	row := container.NewBorder(nil, nil, container.NewPadded(b.Icon), nil, b.Label)
	b.obj = container.NewPadded(container.NewStack(b.bg, row))
	return b
}

// set shows text for role ("writer", "promoting", "reader", "closed").
func (b *RoleBar) set(role, text string) {
	if b.Label.Text != text {
		b.Label.SetText(text)
	}
	if b.role == role {
		return
	}
	b.role = role
	name := theme.ColorNameWarning
	var icon fyne.Resource = theme.NewWarningThemedResource(theme.VisibilityIcon())
	switch role {
	case "writer":
		name, icon = theme.ColorNameSuccess, theme.NewSuccessThemedResource(theme.DocumentCreateIcon())
	case "promoting":
		name, icon = theme.ColorNamePrimary, theme.NewPrimaryThemedResource(theme.ViewRefreshIcon())
	case "closed":
		name, icon = theme.ColorNameDisabled, theme.NewDisabledResource(theme.CancelIcon())
	}
	b.bg.FillColor = tint(theme.Color(name), 0x38)
	b.bg.Refresh()
	b.Icon.SetResource(icon)
}

// tint returns c with alpha a, for a soft background that works in light and dark themes.
func tint(c color.Color, a uint8) color.Color {
	r, g, bl, _ := c.RGBA()
	return color.NRGBA{R: uint8(r >> 8), G: uint8(g >> 8), B: uint8(bl >> 8), A: a}
}

// RoleText is the role bar's text for a window's status, its last takeover and the
// document it shows. now decides whether the takeover note is still shown.
func RoleText(st host.Status, tk host.Takeover, doc *store.Doc, now time.Time) string {
	switch st.Role {
	case "writer":
		if tk.Epoch == 0 || tk.OldOwner == nil || now.Sub(tk.Completed) > TakeoverNoteFor {
			return "Writer"
		}
		return "Writer — " + TakeoverText(tk)
	case "promoting":
		return "Taking over…"
	case "closed":
		return "Closed"
	}
	if st.Problem != "" {
		return "Read-only: " + st.Problem
	}
	if st.WriterPID > 0 {
		s := fmt.Sprintf("Read-only: window pid %d on this computer is writing", st.WriterPID)
		if doc != nil && doc.Writer != nil && doc.Writer.PID == st.WriterPID && !doc.Writer.Since.IsZero() {
			s += fmt.Sprintf(" (since %s)", clock(doc.Writer.Since, now))
		}
		return s
	}
	return "Read-only: waiting for the writer"
}

// TakeoverText says what a takeover did: "took over from pid 41, failed 2 runs it left
// running, 41 ms".
func TakeoverText(tk host.Takeover) string {
	var failed, requeued int
	for _, o := range tk.Reaped {
		if o.Action == "requeued" {
			requeued++
		} else {
			failed++
		}
	}
	var did []string
	if failed > 0 {
		did = append(did, "failed "+plural(failed, "run", "runs"))
	}
	if requeued > 0 {
		did = append(did, "re-queued "+plural(requeued, "run", "runs"))
	}
	what := "no runs were left running"
	if len(did) > 0 {
		what = strings.Join(did, " and ") + " it left running"
	}
	from := "took over"
	if tk.OldOwner != nil {
		from = fmt.Sprintf("took over from pid %d", tk.OldOwner.PID)
	}
	return fmt.Sprintf("%s, %s, %s", from, what, fmtMS(tk.TookMS))
}

func fmtMS(ms float64) string {
	if ms < 10 {
		return fmt.Sprintf("%.1f ms", ms)
	}
	return fmt.Sprintf("%.0f ms", ms)
}

// readOnlyReason is the reason shown next to disabled write controls; "" for a writer.
func readOnlyReason(st host.Status) string {
	switch st.Role {
	case "writer":
		return ""
	case "promoting":
		return "Read-only while this window takes over; a moment…"
	case "closed":
		return "This window is closed."
	}
	if st.Problem != "" {
		return "Read-only: " + st.Problem
	}
	if st.WriterPID > 0 {
		return fmt.Sprintf("Read-only: make changes in window pid %d, or close it and this window takes over. Your edits here are kept.", st.WriterPID)
	}
	return "Read-only until this window becomes the writer. Your edits here are kept."
}
