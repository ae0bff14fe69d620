package e2e

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestChromiumTreeCost measures (it asserts no time) what reading
// Chromium's tree costs a snapshot in the debugger mode: browser_snapshot
// on ~20,000-element pages shared after they loaded, with the reading on
// and switched off (chrome.storage.local debuggerAxOff, a measuring knob),
// median of 7 after one warm-up each. "plain" has no component (the
// reading finds nothing to ask: no debugger call); "components" has 300
// components whose role comes from ElementInternals (the reading's whole
// budget). Opt-in: MONKBROWSE_E2E_TIMING=1, with -v for the table.
func TestChromiumTreeCost(t *testing.T) {
	if os.Getenv("MONKBROWSE_E2E_TIMING") != "1" {
		t.Skip("a measurement: MONKBROWSE_E2E_TIMING=1 runs it")
	}
	p := need(t)
	ctx := testContext(t, 6*testTimeout)
	sctx, cancel := context.WithTimeout(ctx, 90*time.Second)
	defer cancel()
	s, err := newSuite(sctx, t, p, fixtures(), "chromium-ax-cost")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.close)
	if err := s.browser.SetUseDebugger(ctx, true); err != nil {
		t.Fatal(err)
	}
	// Attached for the whole run: the attach itself is not what is measured.
	js[bool](ctx, t, s.popup.Tab, "(chrome.storage.local.set({debuggerIdleMs: 600000}), true)")
	pages := []struct{ name, path string }{
		{"plain", "/ax-large.html?rows=2850"},
		{"components", "/ax-large.html?rows=2850&components=300"},
	}
	const reps = 7
	for _, pg := range pages {
		tab, slot := s.openShared(ctx, t, pg.path)
		n := js[string](ctx, t, tab, "document.body.dataset.count")
		median := map[bool]time.Duration{}
		for _, off := range []bool{true, false, true, false} { // interleaved: the machine's load drifts
			js[bool](ctx, t, s.popup.Tab, "(chrome.storage.local.set({debuggerAxOff: "+map[bool]string{true: "true", false: "false"}[off]+"}), true)")
			var times []time.Duration
			for i := 0; i <= reps; i++ {
				start := time.Now()
				out := s.ok(ctx, t, "browser_snapshot", map[string]any{"tab": slot})
				d := time.Since(start)
				if i > 0 {
					times = append(times, d)
				}
				if pg.name == "components" && !off && strings.Contains(out, "set through ElementInternals are not shown") {
					t.Fatalf("the reading was on, yet the components were not read:\n%s", out[:min(len(out), 2000)])
				}
			}
			slices.Sort(times)
			m := times[len(times)/2]
			if old, ok := median[off]; !ok || m < old {
				median[off] = m
			}
		}
		t.Logf("%s (%s elements): snapshot with Chromium's tree %v, without %v, ratio %.2f×",
			pg.name, n, median[false].Round(time.Millisecond), median[true].Round(time.Millisecond),
			float64(median[false])/float64(median[true]))
	}
}
