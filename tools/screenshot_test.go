package tools

import (
	"strings"
	"testing"

	"github.com/monkbrowse/monkbrowse/protocol"
)

// TestScreenshotSaysFormatSizeAndScale: the options reach the extension,
// and the answer carries the image's type and a caption with its size,
// token estimate and the scale the coordinate tools need.
func TestScreenshotSaysFormatSizeAndScale(t *testing.T) {
	var sent protocol.ScreenshotRequest
	d := NewDispatcher(fakeBrowser{answer: func(typ string, payload any, out any) error {
		sent = payload.(protocol.ScreenshotRequest)
		*out.(*protocol.ScreenshotResult) = protocol.ScreenshotResult{TabID: 7, Data: "AAAA", MimeType: "image/webp", Width: 1155, Height: 650, Scale: 0.6016}
		return nil
	}}, nil)
	r := callRaw(t, d, "browser_screenshot", `{"format":"webp","quality":55}`)
	if r.IsError || sent.Format != "webp" || sent.Quality != 55 || sent.FullSize || sent.TabID != 7 {
		t.Fatalf("sent %+v, got %+v", sent, r)
	}
	if len(r.Content) != 2 || r.Content[1].MimeType != "image/webp" || r.Content[1].Data != "AAAA" {
		t.Fatalf("image item: %+v", r.Content)
	}
	caption := r.Content[0].Text
	for _, want := range []string{"WEBP 1155×650 px", "~1,001 image tokens", "scale 0.6016"} {
		if !strings.Contains(caption, want) {
			t.Errorf("caption %q lacks %q", caption, want)
		}
	}
	// An older extension's answer (no type, no size) is still a PNG.
	d = NewDispatcher(fakeBrowser{answer: func(typ string, payload any, out any) error {
		*out.(*protocol.ScreenshotResult) = protocol.ScreenshotResult{TabID: 7, Data: "AAAA"}
		return nil
	}}, nil)
	r = callRaw(t, d, "browser_screenshot", `{"fullSize":true}`)
	if r.Content[1].MimeType != "image/png" || !strings.Contains(r.Content[0].Text, "PNG") || strings.Contains(r.Content[0].Text, "scale") {
		t.Fatalf("older answer: %+v", r.Content)
	}
	// The coordinate tools are off by default: the caption does not name them.
	if strings.Contains(caption, "browser_click_xy") {
		t.Errorf("caption %q names a tool of the coordinates group", caption)
	}
	// Unscaled: no hint to pass a scale.
	d = NewDispatcher(fakeBrowser{answer: func(typ string, payload any, out any) error {
		*out.(*protocol.ScreenshotResult) = protocol.ScreenshotResult{TabID: 7, Data: "AAAA", MimeType: "image/png", Width: 800, Height: 600, Scale: 1}
		return nil
	}}, nil)
	if c := callRaw(t, d, "browser_screenshot", `{"format":"png","fullSize":true}`).Content[0].Text; !strings.Contains(c, "PNG 800×600 px, ~640 image tokens, scale 1).") {
		t.Fatalf("unscaled caption: %q", c)
	}
}

// TestCoordinatesMapScaledScreenshotPoints: a point read off an image at
// scale s reaches the page as CSS pixels (divided by s); without scale the
// point is CSS pixels already.
func TestCoordinatesMapScaledScreenshotPoints(t *testing.T) {
	var click protocol.ClickXYRequest
	var drag protocol.DragXYRequest
	d := NewDispatcher(fakeBrowser{answer: func(typ string, payload any, out any) error {
		switch p := payload.(type) {
		case protocol.ClickXYRequest:
			click = p
		case protocol.DragXYRequest:
			drag = p
		}
		return nil
	}}, nil)
	r := callRaw(t, d, "browser_click_xy", `{"x":602,"y":301,"scale":0.602}`)
	if r.IsError || click.X != 1000 || click.Y != 500 || !strings.Contains(r.Content[0].Text, "at (1000, 500) (image point (602, 301) at scale 0.602)") {
		t.Fatalf("scaled click sent %+v: %+v", click, r.Content[0].Text)
	}
	callRaw(t, d, "browser_click_xy", `{"x":602,"y":301}`)
	if click.X != 602 || click.Y != 301 {
		t.Fatalf("unscaled click sent %+v", click)
	}
	callRaw(t, d, "browser_drag_xy", `{"startX":50,"startY":25,"endX":100,"endY":75,"scale":0.5}`)
	if drag.StartX != 100 || drag.StartY != 50 || drag.EndX != 200 || drag.EndY != 150 {
		t.Fatalf("scaled drag sent %+v", drag)
	}
	if r := callRaw(t, d, "browser_click_xy", `{"x":1,"y":1,"scale":-2}`); !r.IsError {
		t.Fatalf("a negative scale was accepted: %+v", r)
	}
}
