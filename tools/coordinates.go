package tools

import (
	"context"
	"fmt"
	"math"

	"github.com/monkbrowse/monkbrowse/protocol"
)

// toCSS maps a point read off a screenshot to the viewport's CSS pixels:
// the screenshot's caption gives its scale (image pixels per CSS pixel);
// scale 0 means the point is in CSS pixels already.
func toCSS(x, y, scale float64) (float64, float64, error) {
	if scale == 0 {
		return x, y, nil
	}
	if scale < 0 || math.IsNaN(scale) || math.IsInf(scale, 0) {
		return 0, 0, fmt.Errorf("scale must be a positive number (the scale a screenshot's caption gives), not %g", scale)
	}
	// Round to 1/100 of a CSS pixel: dividing by a four-digit scale leaves
	// noise like 300.00000001 that reads badly in the answer.
	r := func(v float64) float64 { return math.Round(v/scale*100) / 100 }
	return r(x), r(y), nil
}

// fromImage says where a point came from when it was mapped from a screenshot.
func fromImage(x, y, scale float64) string {
	if scale == 0 {
		return ""
	}
	return fmt.Sprintf(" (image point (%g, %g) at scale %g)", x, y, scale)
}

func (d dispatch) clickXY(ctx context.Context, a protocol.ClickXYArgs) (protocol.CallToolResult, error) {
	x, y, err := toCSS(a.X, a.Y, a.Scale)
	if err != nil {
		return protocol.CallToolResult{}, err
	}
	return d.act(ctx, a.Target, protocol.MsgClickXY,
		func(t Target) any {
			return protocol.ClickXYRequest{X: x, Y: y, Button: a.Button, Double: a.Double, TabID: t.TabID}
		},
		func(t Target) string {
			what := "Clicked"
			if a.Double {
				what = "Double-clicked"
			}
			if a.Button != "" && a.Button != "left" {
				what += " (" + a.Button + " button)"
			}
			return fmt.Sprintf("%s at (%g, %g)%s in %s.", what, x, y, fromImage(a.X, a.Y, a.Scale), t.String())
		})
}

func (d dispatch) dragXY(ctx context.Context, a protocol.DragXYArgs) (protocol.CallToolResult, error) {
	sx, sy, err := toCSS(a.StartX, a.StartY, a.Scale)
	if err != nil {
		return protocol.CallToolResult{}, err
	}
	ex, ey, _ := toCSS(a.EndX, a.EndY, a.Scale)
	return d.act(ctx, a.Target, protocol.MsgDragXY,
		func(t Target) any {
			return protocol.DragXYRequest{StartX: sx, StartY: sy, EndX: ex, EndY: ey, TabID: t.TabID}
		},
		func(t Target) string {
			scaled := ""
			if a.Scale != 0 {
				scaled = fmt.Sprintf(" (image points at scale %g)", a.Scale)
			}
			return fmt.Sprintf("Dragged from (%g, %g) to (%g, %g)%s in %s.", sx, sy, ex, ey, scaled, t.String())
		})
}
