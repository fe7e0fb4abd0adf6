package ui

import (
	"fmt"
	"image"
	"image/png"
	"os"
	"testing"
)

func loadRGBA(t *testing.T, p string) *image.RGBA {
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	return toRGBA(img)
}

func TestDbgFind(t *testing.T) {
	shot := loadRGBA(t, os.Getenv("DBG_SHOT"))
	ref := loadRGBA(t, os.Getenv("DBG_LOOK"))
	best, bp, bmax := 1<<30, image.Point{}, 0
	rb := ref.Bounds()
	for y := 0; y+rb.Dy() <= shot.Bounds().Dy(); y++ {
		for x := 0; x+rb.Dx() <= shot.Bounds().Dx(); x++ {
			bad, mx := 0, 0
			for j := 0; j < rb.Dy() && bad < best; j++ {
				for i := 0; i < rb.Dx(); i++ {
					a, b := rgba(shot, x+i, y+j), rgba(ref, i, j)
					d := max(max(a.R, b.R)-min(a.R, b.R), max(a.G, b.G)-min(a.G, b.G), max(a.B, b.B)-min(a.B, b.B))
					if d > 3 {
						bad++
					}
					mx = max(mx, int(d))
				}
			}
			if bad < best {
				best, bp, bmax = bad, image.Pt(x, y), mx
			}
		}
	}
	t.Logf("best %v: %d of %d pixels off by >3, max %d", bp, best, rb.Dx()*rb.Dy(), bmax)
}

func TestDbgAt(t *testing.T) {
	shot := loadRGBA(t, os.Getenv("DBG_SHOT"))
	ref := loadRGBA(t, os.Getenv("DBG_LOOK"))
	var x0, y0 int
	fmt.Sscanf(os.Getenv("DBG_AT"), "%d,%d", &x0, &y0)
	hist := map[int]int{}
	rb := ref.Bounds()
	for j := 0; j < rb.Dy(); j++ {
		for i := 0; i < rb.Dx(); i++ {
			a, b := rgba(shot, x0+i, y0+j), rgba(ref, i, j)
			d := max(max(a.R, b.R)-min(a.R, b.R), max(a.G, b.G)-min(a.G, b.G), max(a.B, b.B)-min(a.B, b.B))
			hist[int(d)]++
			if d > 6 {
				t.Logf("%d,%d shot %v ref %v", i, j, a, b)
			}
		}
	}
	t.Logf("hist %v", hist)
}
