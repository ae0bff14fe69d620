package tools

import (
	"context"
	"fmt"

	"github.com/monkbrowse/monkbrowse/protocol"
)

func (d dispatch) clickXY(ctx context.Context, a protocol.ClickXYArgs) (protocol.CallToolResult, error) {
	return d.act(ctx, a.Target, protocol.MsgClickXY,
		func(t Target) any {
			return protocol.ClickXYRequest{X: a.X, Y: a.Y, Button: a.Button, Double: a.Double, TabID: t.TabID}
		},
		func(t Target) string {
			what := "Clicked"
			if a.Double {
				what = "Double-clicked"
			}
			if a.Button != "" && a.Button != "left" {
				what += " (" + a.Button + " button)"
			}
			return fmt.Sprintf("%s at (%g, %g) in %s.", what, a.X, a.Y, t.String())
		})
}

func (d dispatch) dragXY(ctx context.Context, a protocol.DragXYArgs) (protocol.CallToolResult, error) {
	return d.act(ctx, a.Target, protocol.MsgDragXY,
		func(t Target) any {
			return protocol.DragXYRequest{StartX: a.StartX, StartY: a.StartY, EndX: a.EndX, EndY: a.EndY, TabID: t.TabID}
		},
		func(t Target) string {
			return fmt.Sprintf("Dragged from (%g, %g) to (%g, %g) in %s.", a.StartX, a.StartY, a.EndX, a.EndY, t.String())
		})
}
