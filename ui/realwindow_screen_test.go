package ui

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"baton/host"
	"baton/store"
)

// What a person sees in the real windows, read from the screen without hooks in the app:
// a window is captured with ImageMagick's import and searched for a reference picture of
// what it should show (the role bar with its tint, icon and text; a button, live or
// greyed), drawn by Fyne's software test driver with the same theme, scale and text. GL
// and the software painter antialias text a few levels apart, so pixels match within
// pixelTolerance; another letter, colour, tint or icon is off by far more.

// pixelTolerance is how far (0-255, per channel) a captured pixel may be from its
// reference. Matches measured 1-3 off; another glyph or colour is off by tens or more.
const pixelTolerance = 6

// seeTimeout bounds the wait for a look to appear; the loaded CI machine draws a window
// in about a second.
const seeTimeout = 20 * time.Second

// look is a picture to find in a window.
type look struct {
	what string      // for messages, e.g. `role bar "Writer"`
	img  *image.RGBA // the reference pixels, origin (0,0)
	top  int         // when > 0, only the window's top rows are searched (the role bar's)
	// order lists img's pixels, those unlike its top-left corner (its ink) first: most
	// places in a window fail on the first.
	order []image.Point
}

// newLook is a look of img, searched in the whole window.
func newLook(what string, img *image.RGBA) look {
	l := look{what: what, img: img}
	bg := rgba(img, 0, 0)
	var back []image.Point
	for y := 0; y < img.Bounds().Dy(); y++ {
		for x := 0; x < img.Bounds().Dx(); x++ {
			if near(rgba(img, x, y), bg) {
				back = append(back, image.Pt(x, y))
			} else {
				l.order = append(l.order, image.Pt(x, y))
			}
		}
	}
	l.order = append(l.order, back...)
	return l
}

// references draws looks with Fyne's test driver.
type references struct {
	t   testing.TB
	app fyne.App
}

func newReferences(t testing.TB) *references {
	return &references{t: t, app: test.NewTempApp(t)}
}

// roleColours are the colours of the role bar a person tells the roles by: a writer's is
// green, a reader's orange.
var roleColours = map[host.Role]fyne.ThemeColorName{
	host.RoleWriter: theme.ColorNameSuccess,
	host.RoleReader: theme.ColorNameWarning,
}

// use sets the theme variant (ThemeLight or ThemeDark) of the widgets made next: some take
// their colours when they are made.
func (r *references) use(variant string) { r.app.Settings().SetTheme(themeOf(variant)) }

// render draws obj in a padded window of the given width, as the app's canvas at scale 1
// would, and says where each of parts is.
func (r *references) render(obj fyne.CanvasObject, width float32, parts ...fyne.CanvasObject) (*image.RGBA, []image.Rectangle) {
	w := test.NewWindow(obj)
	defer w.Close()
	w.Resize(fyne.NewSize(width, obj.MinSize().Height+2*theme.Padding()))
	img := toRGBA(w.Canvas().Capture())
	// The test driver's positions leave out the window's padding.
	inset, _ := w.Canvas().InteractiveArea()
	rects := make([]image.Rectangle, len(parts))
	for i, o := range parts {
		p, s := r.app.Driver().AbsolutePositionForObject(o).Add(inset), o.Size()
		rects[i] = image.Rect(int(p.X), int(p.Y), int(p.X+s.Width), int(p.Y+s.Height))
	}
	return img, rects
}

// roleBar is the role bar of a window width wide in role, saying text: its icon, tint and
// text, searched in the top rows of the window.
func (r *references) roleBar(variant string, width int, role host.Role, text string) look {
	r.use(variant)
	b := newRoleBar()
	b.set(role, text)
	// The reference is drawn by the role bar's own code: check its colour here, its
	// text on the screen.
	if want := tint(theme.Color(roleColours[role]), 0x38); b.bg.FillColor != want {
		r.t.Fatalf("the role bar of a %s is tinted %v, want %s (%v)", role, b.bg.FillColor, roleColours[role], want)
	}
	img, at := r.render(b.obj, float32(width), b.Icon, b.Label)
	// From the icon to the end of the text: the label itself reaches the bar's end.
	textEnd := at[1].Min.X + int(2*theme.InnerPadding()+fyne.MeasureText(text, theme.TextSize(), b.Label.TextStyle).Width)
	area := image.Rect(at[0].Min.X, at[1].Min.Y, min(textEnd, at[1].Max.X), at[1].Max.Y)
	l := newLook(fmt.Sprintf("%s role bar %q", variant, text), ink(img, area))
	l.top = 120
	return l
}

// button is a button of the given importance, live or greyed.
func (r *references) button(variant, label string, icon fyne.Resource, imp widget.Importance, live bool) look {
	r.use(variant)
	b := widget.NewButtonWithIcon(label, icon, nil)
	b.Importance = imp
	state := "live"
	if !live {
		b.Disable()
		state = "greyed"
	}
	img, at := r.render(b, b.MinSize().Width+2*theme.Padding(), b)
	// Inside the rounded corners, which GL and the software painter antialias
	// differently, and right of the icon: the gap between them depends on the width the
	// window's layout gives the button.
	area := at[0].Inset(4)
	if icon != nil {
		area.Min.X = inkBox(img, area).Min.X + int(theme.IconInlineSize()) + 1
	}
	return newLook(fmt.Sprintf("%s %s button %q", variant, state, label), ink(img, area))
}

// rename is the editor's Rename… button, live or greyed.
func (r *references) rename(variant string, live bool) look {
	return r.button(variant, "Rename…", theme.DocumentCreateIcon(), widget.MediumImportance, live)
}

// delete is the editor's Delete button, live or greyed.
func (r *references) delete(variant string, live bool) look {
	return r.button(variant, "Delete", theme.DeleteIcon(), widget.DangerImportance, live)
}

// ask is the role bar's "Make this window the writer" button of a reader.
func (r *references) ask(variant string) look {
	return r.button(variant, "Make this window the writer", nil, widget.MediumImportance, true)
}

// message is a line of text of the given importance, as the editor says what happened.
func (r *references) message(variant, text string, imp widget.Importance) look {
	r.use(variant)
	l := widget.NewLabel(text)
	l.Importance = imp
	img, at := r.render(l, l.MinSize().Width+2*theme.Padding(), l)
	return newLook(fmt.Sprintf("%s message %q", variant, text), ink(img, at[0]))
}

// logLine is one line of a run's log as the log pane shows it.
func (r *references) logLine(variant, line string) look {
	r.use(variant)
	g := widget.NewTextGridFromString(line)
	img, at := r.render(g, g.MinSize().Width+2*theme.Padding(), g)
	return newLook(fmt.Sprintf("%s log line %q", variant, line), ink(img, at[0]))
}

// focusedLog is lines of a run's log as the log pane shows them while it has the focus:
// the focus frame is drawn over the grid's left and top edges, so the look starts two
// pixels into the text, not at a margin before it.
func (r *references) focusedLog(variant, lines string) look {
	r.use(variant)
	g := widget.NewTextGridFromString(lines)
	img, at := r.render(g, g.MinSize().Width+2*theme.Padding(), g)
	box := inkBox(img, at[0]).Inset(-2).Intersect(at[0])
	box.Min = box.Min.Add(image.Pt(4, 4))
	return newLook(fmt.Sprintf("%s focused log %q", variant, lines), crop(img, box))
}

// menuItem is an item of a menu dropped from the menu bar, its label on the menu's
// background. One item: a menu's items are laid out at fractional positions that GL and
// the test driver round a pixel apart.
func (r *references) menuItem(variant, label string) look {
	r.use(variant)
	w := widget.NewMenu(fyne.NewMenu("", fyne.NewMenuItem(label, nil)))
	img, at := r.render(w, w.MinSize().Width+2*theme.Padding(), w)
	return newLook(fmt.Sprintf("%s menu item %q", variant, label), ink(img, at[0].Inset(4)))
}

// ink crops img to the part of area that differs from area's top-left colour (the text
// and icons on their background), with a margin of that background.
func ink(img *image.RGBA, area image.Rectangle) *image.RGBA {
	return crop(img, inkBox(img, area).Inset(-2).Intersect(area))
}

// inkBox is the bounds of the pixels of area that differ from area's top-left colour.
func inkBox(img *image.RGBA, area image.Rectangle) image.Rectangle {
	bg := rgba(img, area.Min.X, area.Min.Y)
	box := image.Rectangle{}
	for y := area.Min.Y; y < area.Max.Y; y++ {
		for x := area.Min.X; x < area.Max.X; x++ {
			if !near(rgba(img, x, y), bg) {
				box = box.Union(image.Rect(x, y, x+1, y+1))
			}
		}
	}
	return box
}

// crop copies the part r of img.
func crop(img *image.RGBA, r image.Rectangle) *image.RGBA {
	out := image.NewRGBA(image.Rect(0, 0, r.Dx(), r.Dy()))
	draw.Draw(out, out.Bounds(), img, r.Min, draw.Src)
	return out
}

func toRGBA(img image.Image) *image.RGBA {
	out := image.NewRGBA(image.Rect(0, 0, img.Bounds().Dx(), img.Bounds().Dy()))
	draw.Draw(out, out.Bounds(), img, img.Bounds().Min, draw.Src)
	return out
}

// near reports whether a and b are the same colour within pixelTolerance.
func near(a, b color.RGBA) bool {
	return within(a.R, b.R) && within(a.G, b.G) && within(a.B, b.B)
}

func within(a, b uint8) bool { return max(a, b)-min(a, b) <= pixelTolerance }

// find reports where l is in shot.
func find(shot *image.RGBA, l look) (image.Point, bool) {
	area := shot.Bounds()
	if l.top > 0 {
		area.Max.Y = min(area.Max.Y, l.top)
	}
	area.Max = area.Max.Sub(l.img.Bounds().Size())
	for y := area.Min.Y; y <= area.Max.Y; y++ {
		for x := area.Min.X; x <= area.Max.X; x++ {
			if at(shot, l, x, y) {
				return image.Pt(x, y), true
			}
		}
	}
	return image.Point{}, false
}

// at reports whether l is drawn in shot with its top-left corner at x, y.
func at(shot *image.RGBA, l look, x, y int) bool {
	for _, p := range l.order {
		if !near(rgba(shot, x+p.X, y+p.Y), rgba(l.img, p.X, p.Y)) {
			return false
		}
	}
	return true
}

func rgba(img *image.RGBA, x, y int) color.RGBA {
	o := img.PixOffset(x, y)
	return color.RGBA{img.Pix[o], img.Pix[o+1], img.Pix[o+2], img.Pix[o+3]}
}

// capture grabs what the window of a shows now.
func (a *app) capture(t testing.TB, display string) *image.RGBA {
	t.Helper()
	cmd := exec.Command("import", "-silent", "-window", a.win, "-display", display, "png:-")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("import of window %s: %v\n%s", a.win, err, stderr.String())
	}
	img, err := png.Decode(bytes.NewReader(out))
	if err != nil {
		t.Fatalf("import of window %s: %v", a.win, err)
	}
	return toRGBA(img)
}

// see raises the window of a and waits until it shows every look in want and none in
// absent; it returns that capture. Each capture is a fresh frame, so this waits on what
// the window draws, not on time.
func (a *app) see(t testing.TB, display string, want, absent []look) *image.RGBA {
	t.Helper()
	xdo(t, display, "windowraise", a.win)
	deadline := time.Now().Add(seeTimeout)
	for {
		shot := a.capture(t, display)
		missing, shown := check(shot, want, absent)
		if len(missing) == 0 && len(shown) == 0 {
			return shot
		}
		if time.Now().After(deadline) {
			dir := failureDir(t)
			savePNG(t, filepath.Join(dir, "window.png"), shot)
			for i, l := range slices.Concat(want, absent) {
				savePNG(t, filepath.Join(dir, fmt.Sprintf("look-%d.png", i)), l.img)
			}
			t.Fatalf("window of pid %d after %v: missing %s; shown though it must not be: %s (capture and references in %s)",
				a.pid(), seeTimeout, strings.Join(missing, ", "), strings.Join(shown, ", "), dir)
		}
	}
}

// check lists the looks of want not in shot and those of absent in it.
func check(shot *image.RGBA, want, absent []look) (missing, shown []string) {
	for _, l := range want {
		if _, ok := find(shot, l); !ok {
			missing = append(missing, l.what)
		}
	}
	for _, l := range absent {
		if p, ok := find(shot, l); ok {
			shown = append(shown, fmt.Sprintf("%s at %v", l.what, p))
		}
	}
	return missing, shown
}

// failureDir keeps what a failed check saw: in $BATON_ARTIFACTS, else in a temp folder that
// outlives the test.
func failureDir(t testing.TB) string {
	t.Helper()
	base := os.Getenv("BATON_ARTIFACTS")
	if base == "" {
		base = os.TempDir()
	}
	dir, err := os.MkdirTemp(base, "realwindow-failure-")
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

func savePNG(t testing.TB, p string, img image.Image) {
	t.Helper()
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := png.Encode(f, img); err != nil {
		t.Fatalf("%s: %v", p, err)
	}
}

// themed is env with Fyne's theme variant set.
func themed(env []string, variant string) []string {
	return append(slices.Clip(env), "FYNE_THEME="+variant)
}

// waitTakeover waits for the audit log's record of pid's takeover: it holds the time the
// role bar shows.
func waitTakeover(t testing.TB, home string, pid int) store.Takeover {
	t.Helper()
	deadline := time.Now().Add(seeTimeout)
	for {
		entries, err := store.NewAudit(home).Read(0)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			var tk store.Takeover
			if e.Kind == store.KindTakeover && e.Decode(&tk) == nil && tk.NewOwner.PID == pid {
				return tk
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no takeover by pid %d in the audit log after %v", pid, seeTimeout)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// millis is a takeover's duration as the role bar writes it: "3.1 ms", "41 ms".
func millis(ms float64) string {
	if ms < 10 {
		return fmt.Sprintf("%.1f ms", ms)
	}
	return fmt.Sprintf("%.0f ms", ms)
}

// seedSchedule adds a nightly schedule of "photos sync" to home, for the Schedules picture.
func seedSchedule(t testing.TB, home string) {
	t.Helper()
	w, err := host.Open(home, host.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	sc := store.Schedule{Workflow: "photos sync", Cron: "0 3 * * *", Overlap: "skip", CatchUp: "latest"}
	if _, _, err := w.Intents().AddSchedule(context.Background(), sc); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// readmeShots takes the README's pictures of the Timeline and Schedules tabs in a, the
// writer, which has no run going (so its screen comes to rest).
func readmeShots(t testing.TB, display, dir string, a *app, ref *references) {
	t.Helper()
	before := a.capture(t, display)
	a.keys(t, display, "ctrl+3")
	screenshot(t, dir, "5-timeline.png", a.settle(t, display, before))

	a.keys(t, display, "ctrl+4")
	newSchedule := ref.button(ThemeLight, "New schedule", theme.ContentAddIcon(), widget.MediumImportance, true)
	shot := a.see(t, display, []look{newSchedule}, nil)
	// The first schedule of the list is the row below the list's head, which ends with
	// the New schedule button.
	p, _ := find(shot, newSchedule)
	xdo(t, display, "mousemove", "--window", a.win, strconv.Itoa(p.X-300), strconv.Itoa(p.Y+50), "click", "1")
	pause := ref.button(ThemeLight, "Pause", theme.MediaPauseIcon(), widget.MediumImportance, true)
	a.see(t, display, []look{pause}, nil)
	screenshot(t, dir, "6-schedule.png", a.settle(t, display, nil))
}

// settle waits until the window of a shows something else than before (unless before is
// nil) and then the same in two captures running: the change was drawn and nothing more
// moves.
func (a *app) settle(t testing.TB, display string, before *image.RGBA) *image.RGBA {
	t.Helper()
	deadline := time.Now().Add(seeTimeout)
	prev := before
	for time.Now().Before(deadline) {
		shot := a.capture(t, display)
		changed := before == nil || !bytes.Equal(shot.Pix, before.Pix)
		if changed && prev != nil && bytes.Equal(shot.Pix, prev.Pix) {
			return shot
		}
		prev = shot
	}
	dir := failureDir(t)
	savePNG(t, filepath.Join(dir, "last.png"), prev)
	savePNG(t, filepath.Join(dir, "now.png"), a.capture(t, display))
	t.Fatalf("the window of pid %d did not come to rest in %v (captures in %s)", a.pid(), seeTimeout, dir)
	return nil
}
