package tools

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/monkbrowse/monkbrowse/protocol"
)

// maxPath clips a file's path on the browser's computer.
const maxPath = 1000

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

// FormatDownloads renders the downloads of a profile's shared tabs within
// DefaultMaxTokens, newest first. File names, paths, URLs and MIME types
// are page text (a server names the file), after the note.
func FormatDownloads(slug string, wait *protocol.DownloadsWait, res protocol.DownloadsResult) string {
	var head strings.Builder
	var page []string
	if wait != nil {
		what := "a download"
		if wait.URLContains != "" {
			what = fmt.Sprintf("a download matching %q", clip(wait.URLContains, maxEcho))
		}
		matched := false
		if res.Matched != 0 {
			for _, dl := range res.Downloads {
				if dl.ID == res.Matched {
					matched = true
					page = append(page, "Finished: "+downloadLine(dl))
					break
				}
			}
		}
		if matched {
			fmt.Fprintf(&head, "%s finished (the first line below).\n", Capitalize(what))
		} else {
			fmt.Fprintf(&head, "No %s from a shared tab finished within %s. ", strings.TrimPrefix(what, "a "), time.Duration(wait.TimeoutMs)*time.Millisecond)
			head.WriteString("Check that the click started one (browser_network_requests shows the request), or wait again.\n")
		}
	}
	if res.Ambiguous > 0 {
		fmt.Fprintf(&head, "%d download(s) are not listed: a tab that is not shared also requested the same URL around then, so they may be the person's own.\n", res.Ambiguous)
	}
	if len(res.Downloads) == 0 {
		fmt.Fprintf(&head, "No downloads from the shared tabs of profile %q in this browser session.", slug)
		return withPage(strings.TrimRight(head.String(), "\n"), strings.Join(page, "\n"))
	}
	list := res.Downloads
	older := 0
	if len(list) > maxDownloads {
		older = len(list) - maxDownloads
		list = list[:maxDownloads]
	}
	fmt.Fprintf(&head, "Downloads from the shared tabs of profile %q, newest first", slug)
	if older > 0 {
		fmt.Fprintf(&head, "; the %d oldest are left out", older)
	}
	left := DefaultMaxTokens - EstimateTokens(head.String()) - cutReserve - EstimateTokens(PageContentNote) - 2
	for _, p := range page {
		left -= EstimateTokens(p) + 1
	}
	shown := 0
	for _, dl := range list {
		line := "- " + downloadLine(dl)
		cost := EstimateTokens(line) + 1
		if cost > left {
			break
		}
		left -= cost
		page = append(page, line)
		shown++
	}
	if shown < len(list) {
		fmt.Fprintf(&head, "; %d older one(s) are left out to stay within the %s-token budget", len(list)-shown, formatInt(DefaultMaxTokens))
	}
	head.WriteString(":")
	return withPage(head.String(), strings.Join(page, "\n"))
}

// downloadLine renders one download: file name, path, state, type, URL.
func downloadLine(dl protocol.DownloadInfo) string {
	var parts []string
	switch dl.State {
	case "complete":
		parts = append(parts, "complete, "+byteSize(dl.BytesReceived))
	case "interrupted":
		e := dl.Error
		if e == "" {
			e = "unknown reason"
		}
		parts = append(parts, "interrupted ("+pageLine(clip(e, 100))+")")
	default:
		p := "in progress, " + byteSize(dl.BytesReceived)
		if dl.TotalBytes > 0 {
			p += " of " + byteSize(dl.TotalBytes)
		}
		parts = append(parts, p)
	}
	if dl.Mime != "" {
		parts = append(parts, pageLine(clip(dl.Mime, 100)))
	}
	parts = append(parts, "from "+pageLine(clip(dl.URL, maxNetworkURL)))
	if dl.Filename == "" {
		return fmt.Sprintf("(file name not chosen yet) (%s)", strings.Join(parts, ", "))
	}
	return fmt.Sprintf("%s — %s (%s)", pageLine(clip(filepath.Base(dl.Filename), 200)), pageLine(clip(dl.Filename, maxPath)), strings.Join(parts, ", "))
}
