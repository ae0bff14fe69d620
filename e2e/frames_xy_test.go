package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/monkbrowse/monkbrowse/e2e/harness"
)

// Where things are, read independently of monkbrowse: each frame's own
// layout through its own DevTools target, summed by the test.

// framesXYPage is the fixture: a cross-site widget (localhost) in the top page
// (127.0.0.1), away from the corner with a border and padding, holding a
// nested frame of another origin.
const framesXYPage = "/frames-xy.html"

// contentOrigin is where a frame element's content (its document's viewport)
// begins in its own document's viewport.
const contentOrigin = `((f) => { const r = f.getBoundingClientRect(); const cs = getComputedStyle(f); return [r.left + parseFloat(cs.borderLeftWidth) + parseFloat(cs.paddingLeft), r.top + parseFloat(cs.borderTopWidth) + parseFloat(cs.paddingTop)]; })(document.getElementById(%q))`

const topLeft = `((r) => [r.left, r.top])(document.getElementById(%q).getBoundingClientRect())`

type point [2]float64

func (p point) plus(q point) point { return point{p[0] + q[0], p[1] + q[1]} }

// frameXY measures, in the frames' own targets, the top-page point of
// element id's top-left in the widget (nested: in the widget's nested frame).
func (s *suite) frameXY(ctx context.Context, t testing.TB, tab *harness.Tab, id string, nested bool) point {
	t.Helper()
	widget := js[point](ctx, t, tab, fmt.Sprintf(contentOrigin, "widget"))
	if !nested {
		el, err := harness.EvalInFrameTarget[point](ctx, s.browser, "xy-frame.html", fmt.Sprintf(topLeft, id))
		if err != nil {
			t.Fatal(err)
		}
		return widget.plus(el)
	}
	nest, err := harness.EvalInFrameTarget[point](ctx, s.browser, "xy-frame.html", fmt.Sprintf(contentOrigin, "nest"))
	if err != nil {
		t.Fatal(err)
	}
	el, err := harness.EvalInFrameTarget[point](ctx, s.browser, "xy-nest.html", fmt.Sprintf(topLeft, id))
	if err != nil {
		t.Fatal(err)
	}
	return widget.plus(nest).plus(el)
}

// frameState reads a frame's own JSON-able state (window.clicks, …).
func (s *suite) frameState(ctx context.Context, t testing.TB, urlPart, expr string) string {
	t.Helper()
	v, err := harness.EvalInFrameTarget[string](ctx, s.browser, urlPart, "JSON.stringify("+expr+")")
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func (s *suite) openFramesXY(ctx context.Context, t testing.TB) (*harness.Tab, int) {
	t.Helper()
	tab, slot := s.openShared(ctx, t, framesXYPage)
	s.frameReady(ctx, t, "xy-frame.html")
	s.frameReady(ctx, t, "xy-nest.html")
	return tab, slot
}

// TestFramesCoordinates: browser_click_xy on a cross-site frame's area (and
// on a frame nested in it) lands on the element at that point inside the
// frame, at the frame's own coordinates; drag_xy drags within the frame and
// one across its edge is refused; drag by refs works inside it; an element
// screenshot by a frame ref shows that element.
func TestFramesCoordinates(t *testing.T) {
	s := shared(t)
	ctx := testContext(t, testTimeout)
	tab, slot := s.openFramesXY(ctx, t)

	// No snapshot first: the link comes from a handshake round of its own.
	pad := s.frameXY(ctx, t, tab, "pad", false)
	s.ok(ctx, t, "browser_click_xy", map[string]any{"tab": slot, "x": pad[0] + 15, "y": pad[1] + 10})
	if got := s.frameState(ctx, t, "xy-frame.html", "window.clicks"); got != `[{"x":15,"y":10,"trusted":false}]` {
		t.Errorf("click_xy on the widget's pad: the frame saw %s, want one click at (15, 10)", got)
	}
	npad := s.frameXY(ctx, t, tab, "npad", true)
	s.ok(ctx, t, "browser_click_xy", map[string]any{"tab": slot, "x": npad[0] + 7, "y": npad[1] + 9})
	if got := s.frameState(ctx, t, "xy-nest.html", "window.clicks"); got != `[{"x":7,"y":9,"trusted":false}]` {
		t.Errorf("click_xy on the nested frame's pad: it saw %s, want one click at (7, 9)", got)
	}
	if got := s.frameState(ctx, t, "xy-frame.html", "window.clicks.length"); got != "1" {
		t.Errorf("the nested click also reached the widget's pad: %s clicks there", got)
	}
	// The top page's own area is still the top page's.
	below := js[point](ctx, t, tab, fmt.Sprintf(topLeft, "below"))
	s.ok(ctx, t, "browser_click_xy", map[string]any{"tab": slot, "x": below[0] + 2, "y": below[1] + 2})
	if got := js[string](ctx, t, tab, "window.topClicks.join()"); got != "below" {
		t.Errorf("click_xy below the widget: the top page saw clicks on %q", got)
	}

	// drag_xy within the frame: the knob from its middle 150 px to the right.
	knob := s.frameXY(ctx, t, tab, "knob", false)
	s.ok(ctx, t, "browser_drag_xy", map[string]any{"tab": slot, "startX": knob[0] + 15, "startY": knob[1] + 15, "endX": knob[0] + 165, "endY": knob[1] + 15})
	var drag struct {
		From, To float64
	}
	if err := json.Unmarshal([]byte(s.frameState(ctx, t, "xy-frame.html", "window.drag")), &drag); err != nil {
		t.Fatal(err)
	}
	if drag.To-drag.From != 150 {
		t.Errorf("drag_xy in the widget: the frame saw a drag from %g to %g, want 150 px to the right", drag.From, drag.To)
	}
	if moved := s.frameXY(ctx, t, tab, "knob", false); moved[0]-knob[0] != 150 {
		t.Errorf("drag_xy in the widget moved the knob by %g px, want 150", moved[0]-knob[0])
	}
	msg := s.fails(ctx, t, "browser_drag_xy", map[string]any{"tab": slot, "startX": pad[0] + 5, "startY": pad[1] + 5, "endX": below[0] + 2, "endY": below[1] + 2})
	if !strings.Contains(msg, "different frames") || !strings.Contains(msg, "debugger mode") {
		t.Errorf("a drag out of the frame: %s", msg)
	}

	// An element screenshot by a frame ref: the green badge, exactly.
	snap := s.snapshot(ctx, t, slot)
	_, inside := under(t, snap, "Widget")
	green, ok := findIn(inside, "button", "Green badge")
	if !ok || !strings.HasPrefix(green.Ref, "f") {
		t.Fatalf("the widget's badge is not under its line with a frame ref:\n%s", snap)
	}
	// A drag by refs within the frame: the knob onto the badge (its middle, 100 px into the frame).
	knobLine, ok := findIn(inside, "slider", "Knob")
	if !ok {
		t.Fatalf("the widget's knob is not under its line:\n%s", snap)
	}
	s.ok(ctx, t, "browser_drag", map[string]any{"tab": slot, "startElement": "Knob", "startRef": knobLine.Ref, "endElement": "Green badge", "endRef": green.Ref})
	if err := json.Unmarshal([]byte(s.frameState(ctx, t, "xy-frame.html", "window.drag")), &drag); err != nil {
		t.Fatal(err)
	}
	if drag.To != 100 {
		t.Errorf("browser_drag within the frame ended at x %g in the frame, want the badge's middle (100)", drag.To)
	}

	dpr := js[float64](ctx, t, tab, "devicePixelRatio")
	img := decodePNG(t, s.call(ctx, t, "browser_screenshot", map[string]any{"tab": slot, "ref": green.Ref, "element": "Green badge", "format": "png", "fullSize": true}))
	if b := img.Bounds(); b.Dx() != int(120*dpr) || b.Dy() != int(50*dpr) {
		t.Errorf("the frame element's screenshot is %dx%d, want the badge's 120x50 (dpr %g)", b.Dx(), b.Dy(), dpr)
	}
	b := img.Bounds()
	for _, at := range [][2]int{{1, 1}, {b.Dx() / 2, b.Dy() / 2}, {b.Dx() - 2, b.Dy() - 2}} {
		r, g, bl, _ := img.At(at[0], at[1]).RGBA()
		if r>>8 > 40 || g>>8 < 160 || bl>>8 > 40 {
			t.Errorf("the frame element's screenshot at %v is rgb(%d,%d,%d), want the badge's green (the crop missed the frame's offset)", at, r>>8, g>>8, bl>>8)
		}
	}
	// Scrolled away first: the screenshot scrolls the widget back into view.
	js[bool](ctx, t, tab, "(scrollTo(0, 1200), true)")
	img = decodePNG(t, s.call(ctx, t, "browser_screenshot", map[string]any{"tab": slot, "ref": green.Ref, "element": "Green badge", "format": "png", "fullSize": true}))
	if r, g, _, _ := img.At(img.Bounds().Dx()/2, img.Bounds().Dy()/2).RGBA(); r>>8 > 40 || g>>8 < 160 {
		t.Errorf("after scrolling the page away the frame element's screenshot is rgb(%d,%d,…) at its middle, want green", r>>8, g>>8)
	}
	js[bool](ctx, t, tab, "(scrollTo(0, 0), true)")
}

// TestFramesDebuggerInput: in debugger mode (real input through
// chrome.debugger on the tab's target), a click and typing on refs inside a
// cross-site frame and inside a frame nested in it land there as trusted
// input (the points include the frames' offsets), and click_xy at a
// top-page point over the out-of-process frames reaches them.
func TestFramesDebuggerInput(t *testing.T) {
	p := need(t)
	ctx := testContext(t, 3*testTimeout)
	sctx, cancel := context.WithTimeout(ctx, 90*time.Second)
	defer cancel()
	s, err := newSuite(sctx, t, p, fixtures(), "frames-debugger")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.close)
	if err := s.browser.SetUseDebugger(ctx, true); err != nil {
		t.Fatal(err)
	}
	tab, slot := s.openFramesXY(ctx, t)
	// The page scrolled, so the frame's offset in the viewport is not its offset in the page.
	js[bool](ctx, t, tab, "(scrollTo(0, 40), true)")
	snap := s.snapshot(ctx, t, slot)
	t.Logf("snapshot:\n%s", snap)
	_, inside := under(t, snap, "Widget")
	green, ok1 := findIn(inside, "button", "Green badge")
	note, ok2 := findIn(inside, "textbox", "Frame note")
	_, nested := under(t, snap, "Nested pad")
	nbtn, ok3 := findIn(nested, "button", "Nested trusted")
	if !ok1 || !ok2 || !ok3 {
		t.Fatalf("the frames' elements are missing:\n%s", snap)
	}

	s.ok(ctx, t, "browser_click", map[string]any{"tab": slot, "element": "Green badge", "ref": green.Ref})
	if got := s.frameState(ctx, t, "xy-frame.html", "window.clicks"); got != `[{"green":true,"trusted":true}]` {
		t.Errorf("a debugger-mode click on the frame's badge: the frame saw %s, want one trusted click", got)
	}
	s.ok(ctx, t, "browser_type", map[string]any{"tab": slot, "element": "Frame note", "ref": note.Ref, "text": "typed for real"})
	if got := s.frameState(ctx, t, "xy-frame.html", "[document.getElementById('note').value, window.keys.length > 0 && window.keys.every(Boolean)]"); got != `["typed for real",true]` {
		t.Errorf("debugger-mode typing into the frame's field: %s, want its value and trusted keys", got)
	}
	s.ok(ctx, t, "browser_click", map[string]any{"tab": slot, "element": "Nested trusted", "ref": nbtn.Ref})
	if got := s.frameState(ctx, t, "xy-nest.html", "window.clicks"); got != `[{"button":true,"trusted":true}]` {
		t.Errorf("a debugger-mode click on the nested frame's button: it saw %s, want one trusted click", got)
	}

	// click_xy at top-page points: Chrome's own hit test takes it into the frames.
	pad := s.frameXY(ctx, t, tab, "pad", false)
	s.ok(ctx, t, "browser_click_xy", map[string]any{"tab": slot, "x": pad[0] + 15, "y": pad[1] + 10})
	if got := s.frameState(ctx, t, "xy-frame.html", "window.clicks.at(-1)"); got != `{"x":15,"y":10,"trusted":true}` {
		t.Errorf("a debugger-mode click_xy on the widget's pad: the frame saw %s, want a trusted click at (15, 10)", got)
	}
	npad := s.frameXY(ctx, t, tab, "npad", true)
	s.ok(ctx, t, "browser_click_xy", map[string]any{"tab": slot, "x": npad[0] + 7, "y": npad[1] + 9})
	if got := s.frameState(ctx, t, "xy-nest.html", "window.clicks.at(-1)"); got != `{"x":7,"y":9,"trusted":true}` {
		t.Errorf("a debugger-mode click_xy on the nested pad: it saw %s, want a trusted click at (7, 9)", got)
	}
}
