package tools

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/monkbrowse/monkbrowse/protocol"
)

// Bounds on what browser_network_requests and browser_downloads return, so
// one call never floods the AI's context.
const (
	maxNetworkLines  = 150     // requests listed (the newest)
	maxNetworkURL    = 300     // characters of one URL
	maxNetworkBodies = 60_000  // characters of bodies in one answer
	maxNetworkText   = 100_000 // characters of the whole answer
	maxDownloads     = 50
)

func (d dispatch) fillForm(ctx context.Context, a protocol.FillFormArgs) (protocol.CallToolResult, error) {
	fields := make([]protocol.FormFieldValue, len(a.Fields))
	names := make([]string, len(a.Fields))
	for i, f := range a.Fields {
		fields[i] = protocol.FormFieldValue{Ref: f.Ref, Element: f.Element, Value: f.Value}
		names[i] = describe(f.Element, f.Ref)
	}
	return d.act(ctx, a.Target, protocol.MsgFillForm,
		func(t Target) any { return protocol.FillFormRequest{Fields: fields, TabID: t.TabID} },
		func(t Target) string {
			return fmt.Sprintf("Filled %d field(s) in %s: %s.", len(fields), t.String(), strings.Join(names, ", "))
		})
}

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
		caption += " " + res.Note
	}
	return ImageResult(caption, res.Data), nil
}

func (d dispatch) networkRequests(ctx context.Context, a protocol.NetworkRequestsArgs) (protocol.CallToolResult, error) {
	var res protocol.NetworkRequestsResult
	t, err := d.read(ctx, a.Target, protocol.MsgNetwork,
		func(t Target) any {
			return protocol.NetworkRequestsRequest{TabID: t.TabID, Filter: a.Filter, Since: a.Since, IncludeBodies: a.IncludeBodies}
		}, &res)
	if err != nil {
		return protocol.CallToolResult{}, err
	}
	return TextResult(FormatNetwork(t.String(), a, res)), nil
}

// FormatNetwork renders a network listing, bounded: the newest
// maxNetworkLines requests, URLs and bodies clipped, the whole answer under
// maxNetworkText characters.
func FormatNetwork(where string, a protocol.NetworkRequestsArgs, res protocol.NetworkRequestsResult) string {
	var b strings.Builder
	scope := "since its page loaded"
	if res.URL != "" {
		scope = "since " + clip(res.URL, maxNetworkURL) + " loaded"
	}
	var conds []string
	if a.Filter != "" {
		conds = append(conds, fmt.Sprintf("URL containing %q", a.Filter))
	}
	if a.Since > 0 {
		conds = append(conds, fmt.Sprintf("numbered above #%d", a.Since))
	}
	cond := ""
	if len(conds) > 0 {
		cond = ", " + strings.Join(conds, " and ")
	}
	if len(res.Requests) == 0 {
		fmt.Fprintf(&b, "No requests in %s %s%s (%d recorded in all).", where, scope, cond, res.Total)
		if res.BodiesNote != "" {
			b.WriteString(" " + res.BodiesNote)
		}
		return b.String()
	}
	reqs := res.Requests
	skipped := 0
	if len(reqs) > maxNetworkLines {
		skipped = len(reqs) - maxNetworkLines
		reqs = reqs[skipped:]
	}
	fmt.Fprintf(&b, "%d request(s) in %s %s%s, oldest first", len(res.Requests), where, scope, cond)
	if skipped > 0 {
		fmt.Fprintf(&b, "; the %d oldest are left out (pass since=%d or a filter to narrow)", skipped, reqs[0].ID-1)
	}
	if res.Dropped > 0 {
		fmt.Fprintf(&b, "; %d earlier request(s) were forgotten to keep the list bounded", res.Dropped)
	}
	// Render newest first so the body budget and the size bound favour the
	// newest requests, then print oldest first.
	lines := make([]string, len(reqs))
	bodies, size, first := 0, 0, 0
	for i := len(reqs) - 1; i >= 0; i-- {
		var bodyLeft int
		if left := maxNetworkBodies - bodies; left > 0 {
			bodyLeft = left
		}
		line, used := networkLine(reqs[i], bodyLeft)
		bodies += used
		if size+len(line) > maxNetworkText {
			first = i + 1
			break
		}
		size += len(line)
		lines[i] = line
	}
	if first > 0 {
		fmt.Fprintf(&b, "; %d more are left out to keep this answer short (pass since=%d to read on from there)", first, reqs[first-1].ID)
	}
	b.WriteString(":\n")
	for _, l := range lines[first:] {
		b.WriteString(l)
	}
	if res.BodiesNote != "" {
		b.WriteString(res.BodiesNote + "\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

// networkLine renders one request, with at most bodyLeft characters of
// its body; it returns the body characters used.
func networkLine(r protocol.NetworkRequest, bodyLeft int) (string, int) {
	var b strings.Builder
	fmt.Fprintf(&b, "#%d %s %s", r.ID, r.Method, clip(r.URL, maxNetworkURL))
	var info []string
	switch r.State {
	case "failed":
		e := r.Error
		if e == "" {
			e = "failed"
		}
		if strings.Contains(e, "BLOCKED") {
			info = append(info, "blocked: "+e)
		} else {
			info = append(info, "failed: "+e)
		}
	case "pending":
		info = append(info, "pending")
	default:
		st := fmt.Sprint(r.Status)
		if r.StatusText != "" {
			st += " " + r.StatusText
		}
		info = append(info, st)
	}
	if r.Type != "" {
		info = append(info, r.Type)
	}
	if r.MimeType != "" {
		info = append(info, r.MimeType)
	}
	if r.Size > 0 {
		info = append(info, byteSize(r.Size))
	}
	if r.Duration > 0 {
		info = append(info, fmt.Sprintf("%.0f ms", r.Duration))
	}
	if r.FromCache {
		info = append(info, "from cache")
	}
	fmt.Fprintf(&b, " → %s\n", strings.Join(info, ", "))
	used := 0
	if r.Body != "" {
		if bodyLeft <= 0 {
			b.WriteString("  body: (left out: the bodies in this answer reached their limit; ask for this request alone with filter)\n")
			return b.String(), 0
		}
		body := r.Body
		cut := r.BodyTruncated
		if len(body) > bodyLeft {
			body, cut = clip(body, bodyLeft), true
		}
		used = len(body)
		kind := "body"
		if r.BodyBase64 {
			kind = "body (base64)"
		}
		fmt.Fprintf(&b, "  %s: %s\n", kind, strings.ReplaceAll(body, "\n", "\n    "))
		if cut {
			b.WriteString("  (body truncated)\n")
		}
	}
	return b.String(), used
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

func byteSize(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f kB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

func (d dispatch) downloads(ctx context.Context, a protocol.DownloadsArgs) (protocol.CallToolResult, error) {
	req := protocol.DownloadsRequest{}
	if a.Wait != nil {
		w := *a.Wait
		if w.TimeoutMs <= 0 {
			w.TimeoutMs = 30_000
		}
		req.Wait = &protocol.DownloadsWait{URLContains: w.URLContains, TimeoutMs: w.TimeoutMs}
	}
	var res protocol.DownloadsResult
	var target Target
	err := d.b.WithProfile(ctx, a.Profile, func(ctx context.Context, t Target, s Session) error {
		target = t
		return s.Request(ctx, protocol.MsgDownloads, req, &res)
	})
	if err != nil {
		return protocol.CallToolResult{}, err
	}
	return TextResult(FormatDownloads(target.Slug, req.Wait, res)), nil
}

// FormatDownloads renders the downloads of a profile's shared tabs.
func FormatDownloads(slug string, wait *protocol.DownloadsWait, res protocol.DownloadsResult) string {
	var b strings.Builder
	if wait != nil {
		what := "a download"
		if wait.URLContains != "" {
			what = fmt.Sprintf("a download matching %q", wait.URLContains)
		}
		if res.Matched == 0 {
			fmt.Fprintf(&b, "No %s from a shared tab finished within %s. ", strings.TrimPrefix(what, "a "), time.Duration(wait.TimeoutMs)*time.Millisecond)
			b.WriteString("Check that the click started one (browser_network_requests shows the request), or wait again.\n")
		} else {
			for _, dl := range res.Downloads {
				if dl.ID == res.Matched {
					fmt.Fprintf(&b, "%s finished: %s.\n", Capitalize(what), downloadLine(dl))
				}
			}
		}
	}
	if len(res.Downloads) == 0 {
		fmt.Fprintf(&b, "No downloads from the shared tabs of profile %q in this browser session.", slug)
		return strings.TrimRight(b.String(), "\n")
	}
	list := res.Downloads
	more := 0
	if len(list) > maxDownloads {
		more = len(list) - maxDownloads
		list = list[:maxDownloads]
	}
	fmt.Fprintf(&b, "Downloads from the shared tabs of profile %q, newest first:\n", slug)
	for _, dl := range list {
		fmt.Fprintf(&b, "- %s\n", downloadLine(dl))
	}
	if more > 0 {
		fmt.Fprintf(&b, "(%d older download(s) left out)\n", more)
	}
	return strings.TrimRight(b.String(), "\n")
}

func downloadLine(dl protocol.DownloadInfo) string {
	name := dl.Filename
	if name == "" {
		name = "(file name not chosen yet)"
	}
	var parts []string
	switch dl.State {
	case "complete":
		parts = append(parts, "complete, "+byteSize(dl.BytesReceived))
	case "interrupted":
		e := dl.Error
		if e == "" {
			e = "unknown reason"
		}
		parts = append(parts, "interrupted ("+e+")")
	default:
		p := "in progress, " + byteSize(dl.BytesReceived)
		if dl.TotalBytes > 0 {
			p += " of " + byteSize(dl.TotalBytes)
		}
		parts = append(parts, p)
	}
	if dl.Mime != "" {
		parts = append(parts, dl.Mime)
	}
	parts = append(parts, "from "+clip(dl.URL, maxNetworkURL))
	base := filepath.Base(name)
	if dl.Filename == "" {
		base = name
	}
	return fmt.Sprintf("%s — %s (%s)", base, name, strings.Join(parts, ", "))
}

func (d dispatch) pdf(ctx context.Context, a protocol.TabArgs) (protocol.CallToolResult, error) {
	var res protocol.PDFResult
	t, err := d.read(ctx, a.Target, protocol.MsgPDF, tabOnly, &res)
	if err != nil {
		return protocol.CallToolResult{}, err
	}
	if res.Path == "" {
		return protocol.CallToolResult{}, errors.New("The browser saved no PDF. Try again.")
	}
	return TextResult(fmt.Sprintf("Saved %s as a PDF (%s) at %s on the browser's computer.", t.String(), byteSize(res.Size), res.Path)), nil
}
