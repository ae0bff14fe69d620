package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/monkbrowse/monkbrowse/protocol"
)

// Bounds on what browser_network_requests and browser_downloads return, so
// one call never floods the AI's context: each answer stays within
// DefaultMaxTokens, and these bound its parts.
const (
	maxNetworkLines   = 150   // requests listed (the newest)
	maxNetworkURL     = 300   // characters of one URL
	networkBodyTokens = 6_000 // tokens of bodies in one answer
	maxDownloads      = 50
	// cutReserve is what the sentence saying how many items a cut left out
	// may take.
	cutReserve = 80
)

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

// FormatNetwork renders a network listing within DefaultMaxTokens: the
// newest maxNetworkLines requests, URLs clipped, bodies within
// networkBodyTokens in all, the newest kept when the budget is full. The
// request lines are page text (URLs, methods, status text, types, bodies),
// after the note.
func FormatNetwork(where string, a protocol.NetworkRequestsArgs, res protocol.NetworkRequestsResult) string {
	var conds []string
	if a.Filter != "" {
		conds = append(conds, fmt.Sprintf("URL containing %q", clip(a.Filter, maxEcho)))
	}
	if a.Since > 0 {
		conds = append(conds, fmt.Sprintf("numbered above #%d", a.Since))
	}
	cond := ""
	if len(conds) > 0 {
		cond = ", " + strings.Join(conds, " and ")
	}
	bodiesNote := ""
	if res.BodiesNote != "" {
		bodiesNote = " " + clipTokens(res.BodiesNote, 200)
	}
	if len(res.Requests) == 0 {
		return fmt.Sprintf("No requests in %s since its page loaded%s (%d recorded in all).%s", where, cond, res.Total, bodiesNote)
	}
	reqs := res.Requests
	skipped := 0
	if len(reqs) > maxNetworkLines {
		skipped = len(reqs) - maxNetworkLines
		reqs = reqs[skipped:]
	}
	var head strings.Builder
	fmt.Fprintf(&head, "%d request(s) in %s since its page loaded%s, oldest first", len(res.Requests), where, cond)
	if skipped > 0 {
		fmt.Fprintf(&head, "; the %d oldest are left out (pass since=%d or a filter to narrow)", skipped, reqs[0].ID-1)
	}
	if res.Dropped > 0 {
		fmt.Fprintf(&head, "; %d earlier request(s) were forgotten to keep the list bounded", res.Dropped)
	}
	pageURL := ""
	if res.URL != "" {
		pageURL = "- Page URL: " + pageLine(clip(res.URL, maxNetworkURL))
	}
	// Render newest first so the body budget and the token budget favour
	// the newest requests, then print oldest first.
	left := DefaultMaxTokens - EstimateTokens(head.String()) - cutReserve - EstimateTokens(PageContentNote) -
		EstimateTokens(pageURL) - EstimateTokens(bodiesNote) - 4
	bodyLeft := networkBodyTokens
	lines := make([]string, len(reqs))
	first := 0
	for i := len(reqs) - 1; i >= 0; i-- {
		line, used := networkLine(reqs[i], min(bodyLeft, left))
		cost := EstimateTokens(line) + 1
		if cost > left {
			first = i + 1
			break
		}
		left -= cost
		bodyLeft -= used
		lines[i] = line
	}
	if first > 0 {
		fmt.Fprintf(&head, "; %d more are left out to stay within the %s-token budget (pass since=%d to read on from there)", first, formatInt(DefaultMaxTokens), reqs[first-1].ID)
	}
	head.WriteString(":")
	page := lines[first:]
	if pageURL != "" {
		page = append([]string{pageURL}, page...)
	}
	out := withPage(head.String(), strings.Join(page, "\n"))
	if bodiesNote != "" {
		out += "\n" + strings.TrimSpace(bodiesNote)
	}
	return out
}

// networkLine renders one request (more than one line when it has a body),
// with at most bodyLeft tokens of its body; it returns the body tokens used.
func networkLine(r protocol.NetworkRequest, bodyLeft int) (string, int) {
	var b strings.Builder
	fmt.Fprintf(&b, "#%d %s %s", r.ID, pageLine(clip(r.Method, 20)), pageLine(clip(r.URL, maxNetworkURL)))
	var info []string
	switch r.State {
	case "failed":
		e := r.Error
		if e == "" {
			e = "failed"
		}
		e = pageLine(clip(e, 200))
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
			st += " " + pageLine(clip(r.StatusText, 100))
		}
		info = append(info, st)
	}
	if r.Type != "" {
		info = append(info, pageLine(clip(r.Type, 30)))
	}
	if r.MimeType != "" {
		info = append(info, pageLine(clip(r.MimeType, 100)))
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
	fmt.Fprintf(&b, " → %s", strings.Join(info, ", "))
	used := 0
	if r.Body != "" {
		const bodyNote = "  (body truncated)"
		room := bodyLeft - EstimateTokens(bodyNote) - 4
		if room <= 0 {
			b.WriteString("\n  body: (left out: the bodies in this answer reached their limit; ask for this request alone with filter)")
			return b.String(), 0
		}
		body := indentBlock(r.Body, "    ")
		cut := r.BodyTruncated
		if EstimateTokens(body) > room {
			body, cut = clipTokens(body, room), true
		}
		used = EstimateTokens(body)
		kind := "body"
		if r.BodyBase64 {
			kind = "body (base64)"
		}
		fmt.Fprintf(&b, "\n  %s: %s", kind, body)
		if cut {
			b.WriteString("\n" + bodyNote)
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
