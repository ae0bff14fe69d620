package report

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/monkbrowse/monkbrowse/bench/internal/run"
	"github.com/monkbrowse/monkbrowse/bench/internal/snapshot"
)

func TestPercentile(t *testing.T) {
	xs := []float64{5, 1, 4, 2, 3, 6, 7, 8, 9, 10}
	if got := Percentile(xs, 50); got != 5.5 {
		t.Errorf("median = %v, want 5.5", got)
	}
	if got := Percentile(xs, 90); got != 9 {
		t.Errorf("p90 = %v, want 9 (nearest rank)", got)
	}
	if got := Percentile([]float64{3, 1, 2}, 50); got != 2 {
		t.Errorf("odd median = %v", got)
	}
	if !math.IsNaN(Percentile(nil, 50)) {
		t.Error("no samples must be NaN")
	}
	if Tokens(0) != 0 || Tokens(1) != 1 || Tokens(8) != 2 || Tokens(9) != 3 {
		t.Error("tokens are bytes/4 rounded up")
	}
}

func sample(server, page, step string, ms float64, bytes int) run.Sample {
	return run.Sample{Server: server, Page: page, Step: step, Ms: ms, TextBytes: bytes, OK: true}
}

func TestWrite(t *testing.T) {
	r := &run.Results{Reps: 2, Pages: []run.PageResult{{Key: "signin", Title: "Sign in", Elements: 50}},
		Servers: []run.ServerResult{{Key: "monkbrowse", Label: "monkbrowse", StartupMs: []float64{10, 12}},
			{Key: "playwright", Label: "Playwright MCP 0.0.83", StartupMs: []float64{300}},
			{Key: "chrome-devtools", Label: "chrome-devtools-mcp 1.11.0", StartupMs: []float64{500}}},
		Interactive: map[string]map[string][]snapshot.RoleName{"signin": {
			"playwright":      {{Role: "button", Name: "Go"}, {Role: "button", Name: "Inert"}},
			"monkbrowse":      {{Role: "button", Name: "Go"}},
			"chrome-devtools": {{Role: "button", Name: "Go"}},
		}},
	}
	for _, st := range []string{"navigate", "snapshot", "click", "type", "screenshot"} {
		for _, s := range []string{"monkbrowse", "playwright", "chrome-devtools"} {
			ms, by := 100.0, 1000
			if s == "monkbrowse" {
				ms, by = 50, 500
			}
			r.Samples = append(r.Samples, sample(s, "signin", st, ms, by), sample(s, "signin", st, ms, by))
		}
	}
	md := Write(r, "", ParseMachine("CPUs: 2\ncommand: scripts/bench"), "## Notes\n\nhand-written\n")
	for _, want := range []string{
		"| signin | 250 ms | 500 ms | 500 ms |", // sums of step medians
		"0.50×",
		"| navigate | 50 / 50 | 100 / 100 | 100 / 100 | 0.50× |",
		`button "Inert" (not in Chromium's accessibility tree either`,
		"except elements that Chromium's accessibility tree leaves out as well",
		"## Notes\n\nhand-written",
		"2/2 · 2/2 · 2/2",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}
}

func TestIframeCost(t *testing.T) {
	r := &run.Results{Reps: 1, Pages: []run.PageResult{{Key: "noframes", Title: "Support desk"}, {Key: "frames", Title: "Support desk"}},
		Servers: []run.ServerResult{{Key: "monkbrowse", Label: "monkbrowse"}, {Key: "playwright", Label: "Playwright MCP"}}}
	for _, s := range []string{"monkbrowse", "playwright"} {
		r.Samples = append(r.Samples, sample(s, "noframes", "click", 80, 100), sample(s, "frames", "click", 100, 100),
			sample(s, "noframes", "snapshot", 10, 100), sample(s, "frames", "snapshot", 30, 100))
	}
	// monkbrowse's snapshot step answered unchanged: its re-read counts.
	r.Samples = append(r.Samples, sample("monkbrowse", "noframes", run.ReadStep, 20, 600), sample("monkbrowse", "frames", run.ReadStep, 24, 900))
	md := Write(r, "", ParseMachine("CPUs: 2"), "")
	if want := "monkbrowse snapshot 24 ms / 20 ms = 1.20×, click 100 ms / 80 ms = 1.25×; Playwright snapshot 30 ms / 10 ms = 3.00×, click 100 ms / 80 ms = 1.25×."; !strings.Contains(md, want) {
		t.Errorf("report lacks the iframe figure %q:\n%s", want, md)
	}
	r.Pages = r.Pages[:1]
	if md := Write(r, "", ParseMachine("CPUs: 2"), ""); strings.Contains(md, "**Iframes.**") {
		t.Error("the iframe figure needs both pages")
	}
}

func TestToolListShotsAndHuge(t *testing.T) {
	r := &run.Results{Reps: 1, Pages: []run.PageResult{{Key: "signin"}, {Key: "huge", Elements: 20_010}},
		Servers: []run.ServerResult{{Key: "monkbrowse", Label: "monkbrowse", Tools: make([]string, 24), ToolListBytes: 16_204},
			{Key: "playwright", Label: "Playwright MCP", Tools: make([]string, 21), ToolListBytes: 14_000}},
		Shots: []run.Shot{
			{Server: "playwright", Page: "signin", Format: "png (default)", Ms: 40, TextBytes: 326, ImageBytes: 36_600, MIME: "image/png", ImageW: 1280, ImageH: 720, OK: true},
			{Server: "monkbrowse", Page: "signin", Format: "webp", Ms: 60, TextBytes: 120, ImageBytes: 20_000, MIME: "image/webp", ImageW: 1154, ImageH: 649, OK: true},
			{Server: "monkbrowse", Page: "huge", Format: "webp", Rep: 1, Ms: 80, TextBytes: 120, ImageBytes: 30_000, MIME: "image/webp", ImageW: 1154, ImageH: 649, OK: true},
			{Server: "monkbrowse", Page: "huge", Format: "webp", Error: "no image", Rep: 2},
		}}
	withFind := sample("monkbrowse", "huge", "snapshot", 200, 40_000)
	withFind.FindCalls, withFind.FindMs, withFind.FindBytes = 1, 50, 1_000
	r.Samples = append(r.Samples, withFind, sample("playwright", "huge", "snapshot", 1000, 900_000))
	md := Write(r, "", ParseMachine("CPUs: 2"), "")
	for _, want := range []string{
		"| monkbrowse | 24 | 16.2 kB | 4,051 |",
		"| Playwright MCP | 21 | 14.0 kB | 3,500 |",
		// monkbrowse first, its bytes per page, the failure counted.
		"| monkbrowse | webp — 1 failed | 1154×649 | 999 | 20.0 kB | 30.0 kB | 70 ms | 120 B |",
		"| Playwright | png (default) | 1280×720 | 1,229 | 36.6 kB | – | 40 ms | 326 B |",
		"3 times",
		"(20010 DOM elements)",
		"| monkbrowse | 150 ms | 200 ms (1 find) | 40.0 kB (10,000 tok) | 0.15× | 0.04× |",
		"| Playwright | 1000 ms | – | 900.0 kB (225,000 tok) | 1.00× | 1.00× |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}
	if strings.Index(md, "| monkbrowse | webp") > strings.Index(md, "| Playwright | png (default)") {
		t.Error("monkbrowse's formats must come first")
	}
}

// TestBudgetedPageNamesCapped: on a page where monkbrowse's snapshot was cut
// to its budget, what it left out is counted in a short cell (not thousands
// of names) and does not make the verdict say it cannot name them.
func TestBudgetedPageNamesCapped(t *testing.T) {
	var pw, mb []snapshot.RoleName
	for i := range 3000 {
		pw = append(pw, snapshot.RoleName{Role: "button", Name: fmt.Sprintf("Pick %d", i)})
	}
	mb = pw[:40]
	r := &run.Results{Reps: 1, Pages: []run.PageResult{{Key: "huge"}},
		Servers:     []run.ServerResult{{Key: "monkbrowse", Label: "monkbrowse"}, {Key: "playwright", Label: "Playwright MCP"}},
		Interactive: map[string]map[string][]snapshot.RoleName{"huge": {"monkbrowse": mb, "playwright": pw}},
		Budgeted:    map[string]bool{"huge": true}}
	r.Samples = append(r.Samples, sample("monkbrowse", "huge", "snapshot", 200, 40_000), sample("playwright", "huge", "snapshot", 1000, 900_000))
	md := Write(r, "", ParseMachine("CPUs: 2"), "")
	if !strings.Contains(md, "… 2952 more (2960 in all)") || !strings.Contains(md, "cut to its token budget on this page") {
		t.Errorf("the budgeted page's cell:\n%s", md)
	}
	if strings.Contains(md, `button "Pick 2999"`) {
		t.Error("the cell lists every name")
	}
	if !strings.Contains(md, "names every interactive element that Playwright MCP's snapshot names, on each page") {
		t.Errorf("the verdict counts the budget's cut as a gap:\n%s", md)
	}
	r.Budgeted = nil
	if md := Write(r, "", ParseMachine("CPUs: 2"), ""); !strings.Contains(md, "does not yet name every interactive element") {
		t.Error("without the budget, a real gap is not reported")
	}
}
