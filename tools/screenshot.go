package tools

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/monkbrowse/monkbrowse/protocol"
)

func (d dispatch) screenshot(ctx context.Context, a protocol.ScreenshotArgs) (protocol.CallToolResult, error) {
	var res protocol.ScreenshotResult
	t, err := d.read(ctx, a.Target, protocol.MsgScreenshot,
		func(t Target) any {
			return protocol.ScreenshotRequest{TabID: t.TabID, Ref: a.Ref, FullPage: a.FullPage,
				Format: a.Format, Quality: a.Quality, FullSize: a.FullSize}
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
	caption := fmt.Sprintf("Screenshot of %s (%s, %s).", t.String(), what, imageFacts(res))
	if res.Note != "" {
		caption += " " + clipTokens(res.Note, 500)
	}
	return ImageResult(caption, res.Data, res.MimeType), nil
}

// imageFacts says an image's format, size, token estimate and scale:
// "JPEG 1155×650 px, ~1,001 image tokens, scale 0.6". The coordinate
// tools' scale argument is described as the caption's scale (image pixels
// per CSS pixel), so the caption need not name them (they are off by
// default) nor explain it.
func imageFacts(r protocol.ScreenshotResult) string {
	format := "PNG"
	if r.MimeType != "" {
		format = strings.ToUpper(strings.TrimPrefix(r.MimeType, "image/"))
	}
	if r.Width <= 0 || r.Height <= 0 {
		return format
	}
	s := fmt.Sprintf("%s %d×%d px, ~%s image tokens", format, r.Width, r.Height, thousands(protocol.ImageTokens(r.Width, r.Height)))
	if r.Scale > 0 {
		s += ", scale " + formatScale(r.Scale)
	}
	return s
}

// formatScale writes a scale with up to four significant digits, enough
// to map a point on a 4,000-pixel image back to within a pixel.
func formatScale(s float64) string {
	return strconv.FormatFloat(s, 'g', 4, 64)
}

func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
