package tools

import (
	"context"
	"fmt"

	"github.com/monkbrowse/monkbrowse/protocol"
)

func (d dispatch) screenshot(ctx context.Context, a protocol.ScreenshotArgs) (protocol.CallToolResult, error) {
	var res protocol.ScreenshotResult
	t, err := d.read(ctx, a.Target, protocol.MsgScreenshot,
		func(t Target) any {
			return protocol.ScreenshotRequest{TabID: t.TabID, Ref: a.Ref, FullPage: a.FullPage}
		}, &res)
	if err != nil {
		return protocol.CallToolResult{}, err
	}
	if res.Data == "" {
		return protocol.CallToolResult{}, fmt.Errorf("The browser returned an empty screenshot of %s. Try again, or use browser_snapshot to read the page.", t.String())
	}
	what := "visible area"
	switch {
	case a.Ref != "":
		what = describe(a.Element, a.Ref)
	case a.FullPage:
		what = "whole page"
	}
	caption := fmt.Sprintf("Screenshot of %s (%s, PNG).", t.String(), what)
	if res.Note != "" {
		caption += " " + clipTokens(res.Note, 500)
	}
	return ImageResult(caption, res.Data), nil
}
