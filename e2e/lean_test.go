package e2e

import (
	"bytes"
	"image"
	"image/jpeg"
	"image/png"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/monkbrowse/monkbrowse/e2e/harness"
)

var (
	shotSize  = regexp.MustCompile(`(JPEG|PNG|WEBP) (\d+)×(\d+) px, ~([\d,]+) image tokens`)
	shotScale = regexp.MustCompile(`scale ([\d.]+)`)
)

// webpSize reads a WebP file's dimensions from its first chunk (VP8, VP8L
// or VP8X); the standard library has no WebP decoder.
func webpSize(b []byte) (int, int, bool) {
	if len(b) < 30 || string(b[0:4]) != "RIFF" || string(b[8:12]) != "WEBP" {
		return 0, 0, false
	}
	le16 := func(i int) int { return int(b[i]) | int(b[i+1])<<8 }
	le24 := func(i int) int { return int(b[i]) | int(b[i+1])<<8 | int(b[i+2])<<16 }
	switch string(b[12:16]) {
	case "VP8 ":
		if b[23] != 0x9d || b[24] != 0x01 || b[25] != 0x2a {
			return 0, 0, false
		}
		return le16(26) & 0x3fff, le16(28) & 0x3fff, true
	case "VP8L":
		if b[20] != 0x2f {
			return 0, 0, false
		}
		bits := uint32(b[21]) | uint32(b[22])<<8 | uint32(b[23])<<16 | uint32(b[24])<<24
		return int(bits&0x3fff) + 1, int(bits>>14&0x3fff) + 1, true
	case "VP8X":
		return le24(24) + 1, le24(27) + 1, true
	}
	return 0, 0, false
}

// shotFacts decodes a screenshot answer and checks that its caption says
// the image's real format and size; it returns the size and the scale
// (and the image, except for WebP).
func shotFacts(t *testing.T, res harness.ToolResult) (image.Image, int, int, float64) {
	t.Helper()
	if res.IsError || len(res.Images) != 1 {
		t.Fatalf("want one image, got %d (%s)", len(res.Images), res.Text)
	}
	im := res.Images[0]
	var img image.Image
	var err error
	switch im.MIMEType {
	case "image/jpeg":
		img, err = jpeg.Decode(bytes.NewReader(im.Data))
	case "image/png":
		img, err = png.Decode(bytes.NewReader(im.Data))
	case "image/webp":
	default:
		t.Fatalf("unexpected image type %q", im.MIMEType)
	}
	if err != nil {
		t.Fatalf("the %s does not decode: %v", im.MIMEType, err)
	}
	var iw, ih int
	if img != nil {
		iw, ih = img.Bounds().Dx(), img.Bounds().Dy()
	} else if w, h, ok := webpSize(im.Data); ok {
		iw, ih = w, h
	} else {
		t.Fatalf("not a WebP file: % x", im.Data[:min(len(im.Data), 32)])
	}
	m := shotSize.FindStringSubmatch(res.Text)
	if m == nil {
		t.Fatalf("the caption does not give the image's format and size: %s", res.Text)
	}
	w, _ := strconv.Atoi(m[2])
	h, _ := strconv.Atoi(m[3])
	if "image/"+strings.ToLower(m[1]) != im.MIMEType || w != iw || h != ih {
		t.Fatalf("the caption says %s %d×%d, the image is %s %d×%d", m[1], w, h, im.MIMEType, iw, ih)
	}
	sm := shotScale.FindStringSubmatch(res.Text)
	if sm == nil {
		t.Fatalf("the caption gives no scale: %s", res.Text)
	}
	scale, _ := strconv.ParseFloat(sm[1], 64)
	return img, iw, ih, scale
}

// TestScreenshotFormatsAndSize: by default a screenshot is a JPEG within
// ~1,000 image tokens (width × height / 750); png, webp and fullSize give
// what they say. It logs each variant's bytes and tokens on the same page
// (the before/after numbers in bench/NOTES.md).
func TestScreenshotFormatsAndSize(t *testing.T) {
	s := shared(t)
	ctx := testContext(t, testTimeout)
	tab, slot := s.openShared(ctx, t, "/large.html")
	dpr := js[float64](ctx, t, tab, "devicePixelRatio")
	vw := js[float64](ctx, t, tab, "innerWidth")
	for _, v := range []struct {
		name string
		args map[string]any
		mime string
	}{
		{"before: png fullSize (the old default)", map[string]any{"format": "png", "fullSize": true}, "image/png"},
		{"default (jpeg, scaled)", map[string]any{}, "image/jpeg"},
		{"png scaled", map[string]any{"format": "png"}, "image/png"},
		{"webp scaled", map[string]any{"format": "webp"}, "image/webp"},
		{"jpeg quality 50", map[string]any{"quality": 50}, "image/jpeg"},
	} {
		args := map[string]any{"tab": slot}
		for k, x := range v.args {
			args[k] = x
		}
		res := s.call(ctx, t, "browser_screenshot", args)
		_, w, h, scale := shotFacts(t, res)
		tokens := (w*h + 749) / 750
		if res.Images[0].MIMEType != v.mime {
			t.Errorf("%s: got %s", v.name, res.Images[0].MIMEType)
		}
		full := v.args["fullSize"] == true
		if !full && tokens > 1000 {
			t.Errorf("%s: %d×%d is %d image tokens, over 1,000", v.name, w, h, tokens)
		}
		if full && math.Abs(float64(w)-vw*dpr) > 1 {
			t.Errorf("%s: %d pixels wide, want the viewport's %g device pixels", v.name, w, vw*dpr)
		}
		// The scale maps the image back to the viewport's CSS width.
		if math.Abs(float64(w)/scale-vw) > 2 {
			t.Errorf("%s: width %d / scale %g = %g CSS pixels, the viewport is %g", v.name, w, scale, float64(w)/scale, vw)
		}
		t.Logf("%-40s %s %4d×%-4d %7d bytes  ~%4d image tokens  scale %g", v.name, res.Images[0].MIMEType, w, h, len(res.Images[0].Data), tokens, scale)
	}
	// Element and full-page captures follow the same rule (the canvas
	// fixture is 2,000 CSS pixels tall, large.html over 10 screens).
	_, cslot := s.openShared(ctx, t, "/canvas.html")
	if _, w, h, _ := shotFacts(t, s.call(ctx, t, "browser_screenshot", map[string]any{"tab": cslot, "fullPage": true})); (w*h+749)/750 > 1000 {
		t.Errorf("the default full-page screenshot is %d×%d, over 1,000 image tokens", w, h)
	} else {
		t.Logf("full page (canvas.html, 2,000 CSS px tall), default: %d×%d ~%d image tokens", w, h, (w*h+749)/750)
	}
	big := map[string]any{"tab": cslot, "fullPage": true, "format": "png", "fullSize": true}
	if _, w, h, _ := shotFacts(t, s.call(ctx, t, "browser_screenshot", big)); (w*h+749)/750 <= 1000 {
		t.Errorf("a fullSize full-page screenshot is only %d×%d", w, h)
	}
	if msg := s.fails(ctx, t, "browser_screenshot", map[string]any{"tab": slot, "format": "gif"}); !strings.Contains(msg, "jpeg") {
		t.Errorf("format gif: %s", msg)
	}
}

// TestScaledScreenshotCoordinates: a point the AI reads off a scaled
// screenshot, passed to browser_click_xy with the caption's scale, lands
// where the image shows it.
func TestScaledScreenshotCoordinates(t *testing.T) {
	s := shared(t)
	ctx := testContext(t, testTimeout)
	tab, slot := s.openShared(ctx, t, "/canvas.html")
	// The harness window (1280×800) is over the size rule, so the default
	// capture is scaled.
	img, _, _, scale := shotFacts(t, s.call(ctx, t, "browser_screenshot", map[string]any{"tab": slot}))
	if w := img.Bounds().Dx(); w >= js[int](ctx, t, tab, "innerWidth") {
		t.Fatalf("the default screenshot of the 1280-wide window is not scaled (%d pixels wide, scale %g)", w, scale)
	}
	// Read the board (#eef, CSS 100..500 × 80..380) off the image, as an AI would.
	minX, minY, maxX, maxY := math.MaxInt, math.MaxInt, -1, -1
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if d(r>>8, 0xee) < 8 && d(g>>8, 0xee) < 8 && d(bl>>8, 0xff) < 8 {
				minX, minY, maxX, maxY = min(minX, x), min(minY, y), max(maxX, x), max(maxY, y)
			}
		}
	}
	if maxX < 0 {
		t.Fatal("the board is not in the screenshot")
	}
	// The image point a quarter of the way into the board.
	ix := float64(minX) + float64(maxX-minX)/4
	iy := float64(minY) + float64(maxY-minY)/4
	s.ok(ctx, t, "browser_click_xy", map[string]any{"tab": slot, "x": ix, "y": iy, "scale": scale})
	got := js[[]map[string]any](ctx, t, tab, "window.clicks")
	if len(got) != 1 {
		t.Fatalf("clicks on the board: %v", got)
	}
	// Board-relative CSS point: 100 and 75 (a quarter of 400×300), within
	// two CSS pixels (edges blur when scaled).
	x, y := got[0]["x"].(float64), got[0]["y"].(float64)
	if math.Abs(x-100) > 2 || math.Abs(y-75) > 2 {
		t.Errorf("image point (%g, %g) at scale %g landed at board (%g, %g), want (100, 75)", ix, iy, scale, x, y)
	}
	t.Logf("image board %d..%d × %d..%d at scale %g; click landed at board (%g, %g)", minX, maxX, minY, maxY, scale, x, y)
}

func d(a, b uint32) uint32 {
	if a > b {
		return a - b
	}
	return b - a
}
