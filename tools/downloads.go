package tools

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/monkbrowse/monkbrowse/protocol"
)

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
