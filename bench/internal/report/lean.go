package report

import (
	"fmt"
	"sort"
	"strings"

	"github.com/monkbrowse/monkbrowse/bench/internal/run"
	"github.com/monkbrowse/monkbrowse/bench/internal/servers"
)

// writeToolLists is each server's tools/list as configured in the run.
func writeToolLists(b *strings.Builder, r *run.Results) {
	have := false
	for _, s := range r.Servers {
		have = have || s.ToolListBytes > 0
	}
	if !have {
		return
	}
	b.WriteString("## Tool list\n\n")
	b.WriteString("The `tools/list` result each server sends at the start of every session, as it came over the wire " +
		"(JSON bytes; tokens ≈ bytes/4): the AI app puts it in its model's context before the first call. monkbrowse is run " +
		"with its default (core) tools; the optional groups (`--caps network,coordinates,debugger`) add to it.\n\n")
	b.WriteString("| server | tools | tools/list | ~tokens |\n|---|---:|---:|---:|\n")
	for _, s := range r.Servers {
		if s.ToolListBytes == 0 {
			continue
		}
		fmt.Fprintf(b, "| %s | %d | %s | %s |\n", s.Label, len(s.Tools), kb(s.ToolListBytes), thousands(Tokens(s.ToolListBytes)))
	}
	b.WriteString("\n")
}

// writeShots is the formats round: per server and format, the image's size
// and tokens and its bytes on each page.
func writeShots(b *strings.Builder, r *run.Results, label map[string]string) {
	if len(r.Shots) == 0 {
		return
	}
	type key struct{ server, format string }
	var order []key
	seen := map[key]bool{}
	bytesOf := map[key]map[string][]int{}
	msOf := map[key][]float64{}
	px := map[key][2]int{}
	text := map[key][]int{}
	mime := map[key]string{}
	fails := map[key]int{}
	for _, s := range r.Shots {
		k := key{s.Server, s.Format}
		if !seen[k] {
			seen[k] = true
			order = append(order, k)
			bytesOf[k] = map[string][]int{}
		}
		if !s.OK {
			fails[k]++
			continue
		}
		bytesOf[k][s.Page] = append(bytesOf[k][s.Page], s.ImageBytes)
		msOf[k] = append(msOf[k], s.Ms)
		text[k] = append(text[k], s.TextBytes)
		if _, ok := px[k]; !ok {
			px[k] = [2]int{s.ImageW, s.ImageH}
		}
		mime[k] = s.MIME
	}
	rank := map[string]int{servers.Monkbrowse: 0, servers.Playwright: 1, servers.ChromeDevtools: 2}
	sort.SliceStable(order, func(i, j int) bool { return rank[order[i].server] < rank[order[j].server] })
	reps := 0
	for _, s := range r.Shots {
		reps = max(reps, s.Rep+1)
	}
	b.WriteString("## Screenshots by format\n\n")
	fmt.Fprintf(b, "Each server's screenshot of the 1280×720 viewport in every format its tool offers, on every page, "+
		"%d times (a round after the task rounds, the server order rotating). Image bytes are decoded bytes (the base64 in the "+
		"result is 4/3 of that), median per page; image tokens ≈ width×height/750; time is the median `tools/call` round trip "+
		"over all pages; caption is the result's text. Playwright MCP 0.0.83 offers png or jpeg (no quality), chrome-devtools-mcp "+
		"png, jpeg or webp (quality optional), monkbrowse jpeg by default within ~1,000 image tokens, png and webp at the same size, "+
		"and `fullSize` for the page's own pixels. monkbrowse's captures go through `chrome.tabs.captureVisibleTab`, which Chrome "+
		"limits to about two a second, so back-to-back formats wait for it.\n\n", reps)
	var pages []string
	for _, p := range r.Pages {
		pages = append(pages, p.Key)
	}
	b.WriteString("| server | format | pixels | image tokens | " + strings.Join(pages, " | ") + " | time | caption |\n")
	b.WriteString("|---|---|---:|---:" + strings.Repeat("|---:", len(pages)+2) + "|\n")
	for _, k := range order {
		var cells []string
		for _, p := range pages {
			if xs := bytesOf[k][p]; len(xs) > 0 {
				cells = append(cells, kb(medianInt(xs)))
			} else {
				cells = append(cells, "–")
			}
		}
		wh := px[k]
		pix, tok := "–", "–"
		if wh[0] > 0 {
			pix, tok = fmt.Sprintf("%d×%d", wh[0], wh[1]), thousands(ImageTokens(wh[0], wh[1]))
		}
		format := k.format
		if m := strings.TrimPrefix(mime[k], "image/"); m != "" && !strings.HasPrefix(format, m) {
			format += " (" + m + ")"
		}
		if fails[k] > 0 {
			format += fmt.Sprintf(" — %d failed", fails[k])
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s ms | %s |\n", label[k.server], format, pix, tok,
			strings.Join(cells, " | "), fmtMs(Percentile(msOf[k], 50)), kb(medianInt(text[k])))
	}
	b.WriteString("\n")
}

// writeHuge is the 20,000-element page's snapshot step on its own, when it
// ran: the case where the extension must not build the whole tree first.
func writeHuge(b *strings.Builder, r *run.Results, keys []string, label map[string]string, st map[[3]string]Stats) {
	var page *run.PageResult
	for i := range r.Pages {
		if r.Pages[i].Key == "huge" {
			page = &r.Pages[i]
		}
	}
	if page == nil {
		return
	}
	fmt.Fprintf(b, "### The 20,000-element page\n\n"+
		"The snapshot step on `huge` (%d DOM elements), each server's default snapshot (monkbrowse: within its 10,000-token "+
		"budget, reading the page only as far as that budget needs, plus `browser_find` calls when a target is not in it; the "+
		"others: the whole page), median of the repetitions:\n\n", page.Elements)
	b.WriteString("| server | snapshot call | with its find calls | text (with finds) | snapshot call ×Playwright time | ×Playwright text |\n|---|---:|---:|---:|---:|---:|\n")
	own := map[string][]float64{}
	finds := map[string]int{}
	for _, s := range r.Samples {
		if s.Page == "huge" && s.Step == "snapshot" && s.OK {
			own[s.Server] = append(own[s.Server], s.Ms-s.FindMs)
			finds[s.Server] = max(finds[s.Server], s.FindCalls)
		}
	}
	pw := st[[3]string{servers.Playwright, "huge", "snapshot"}]
	pwOwn := Percentile(own[servers.Playwright], 50)
	for _, k := range keys {
		x := st[[3]string{k, "huge", "snapshot"}]
		rt, rb := "–", "–"
		if pw.N > 0 {
			rt, rb = ratio(Percentile(own[k], 50), pwOwn), ratio(float64(x.Bytes), float64(pw.Bytes))
		}
		with := "–"
		if finds[k] > 0 {
			with = fmt.Sprintf("%s ms (%d find)", fmtMs(x.Median), finds[k])
		}
		fmt.Fprintf(b, "| %s | %s ms | %s | %s (%s tok) | %s | %s |\n", label[k], fmtMs(Percentile(own[k], 50)), with, kb(x.Bytes), thousands(Tokens(x.Bytes)), rt, rb)
	}
	b.WriteString("\n")
}

func thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
