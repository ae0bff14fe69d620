package e2e

import (
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

var tableRef = regexp.MustCompile(`- table \[ref=(e\d+)\]`)

// TestSnapshotLimitOnLargePage: on a ~20,000-element page a default
// browser_snapshot reads the page only as far as its budget needs (the
// answer says the page goes on, refs in it act), and a page within the
// limit is read in full. It logs the median time of the limited snapshot
// against a whole-page read (the table's part by ref, which reads every
// element) for bench/NOTES.md; timing is reported, never asserted.
func TestSnapshotLimitOnLargePage(t *testing.T) {
	s := shared(t)
	ctx := testContext(t, 3*testTimeout)

	_, small := s.openShared(ctx, t, "/large.html")
	if out := s.ok(ctx, t, "browser_snapshot", map[string]any{"tab": small}); strings.Contains(out, "The page goes on") {
		t.Errorf("the 500-row page (within the limit) was not read in full:\n…%s", out[max(0, len(out)-400):])
	}

	tab, slot := s.openShared(ctx, t, "/large.html?rows=2900")
	n := js[int](ctx, t, tab, "document.getElementsByTagName('*').length")
	if n < 20_000 {
		t.Fatalf("the fixture has %d elements, want 20,000", n)
	}
	first := s.ok(ctx, t, "browser_snapshot", map[string]any{"tab": slot})
	if !strings.Contains(first, "The page goes on past what monkbrowse read") {
		t.Fatalf("the default snapshot of a %d-element page does not say it was limited:\n…%s", n, first[max(0, len(first)-600):])
	}
	m := tableRef.FindStringSubmatch(first)
	if m == nil {
		t.Fatalf("no table line in the first part")
	}
	// The whole table by ref (unlimited) holds the last row; the limited read did not.
	whole := s.ok(ctx, t, "browser_snapshot", map[string]any{"tab": slot, "ref": m[1], "maxTokens": 500})
	if strings.Contains(whole, "The page goes on") {
		t.Errorf("a ref part was limited")
	}
	if out := s.ok(ctx, t, "browser_find", map[string]any{"tab": slot, "query": "Row 2900"}); !strings.Contains(out, "2900") {
		t.Errorf("browser_find does not see the last row: %s", out)
	}

	median := func(args map[string]any) time.Duration {
		var d []time.Duration
		for range 5 {
			t0 := time.Now()
			s.ok(ctx, t, "browser_snapshot", args)
			d = append(d, time.Since(t0))
		}
		slices.Sort(d)
		return d[len(d)/2]
	}
	limited := median(map[string]any{"tab": slot})
	full := median(map[string]any{"tab": slot, "ref": m[1], "maxTokens": 500})
	t.Logf("%d elements: default (limited) snapshot median %v, whole-page read (ref part) median %v: %.2f×",
		n, limited.Round(time.Millisecond), full.Round(time.Millisecond), float64(limited)/float64(full))
}
