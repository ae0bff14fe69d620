package tools

import (
	"context"
	"fmt"
	"strings"

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
