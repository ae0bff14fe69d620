package e2e

import (
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/monkbrowse/monkbrowse/e2e/harness"
	"github.com/monkbrowse/monkbrowse/protocol"
)

// TestConcurrency (DESIGN §6): calls to different tabs run in parallel;
// calls to one tab run one after the other, in order.
func TestConcurrency(t *testing.T) {
	s := shared(t)
	ctx := testContext(t, testTimeout)
	a, slotA := s.openShared(ctx, t, "/links.html")
	_, slotB := s.openShared(ctx, t, "/links2.html")
	const sleep = "new Promise(r => setTimeout(() => r(document.title), 1200))"

	run := func(calls []map[string]any) time.Duration {
		t.Helper()
		start := time.Now()
		var wg sync.WaitGroup
		for _, args := range calls {
			wg.Add(1)
			go func(args map[string]any) {
				defer wg.Done()
				res, err := s.server.Call(ctx, "browser_evaluate", args)
				if err != nil || res.IsError {
					t.Errorf("evaluate %v: %v %s", args, err, res.Text)
				}
			}(args)
		}
		wg.Wait()
		return time.Since(start)
	}
	par := run([]map[string]any{{"expression": sleep, "tab": slotA}, {"expression": sleep, "tab": slotB}})
	t.Logf("two 1.2 s calls on two tabs: %s", par.Round(time.Millisecond))
	if par > 2200*time.Millisecond {
		t.Errorf("calls to two different tabs took %s: they did not run in parallel", par)
	}

	// Same tab: serialised, FIFO. Three calls written in one burst (one
	// write of three lines on a raw stdio session, so their order is
	// fixed), each noting in the page when it enters and leaves: with a
	// queue, the page never has two at once and sees them in the order
	// written.
	raw, err := harness.StartRawServer(ctx, harness.ServerConfig{Bin: s.p.bin, Port: s.port, ControlPort: s.controlPort, Home: s.home, Name: "raw-burst", Log: logSink()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(raw.Close)
	js[bool](ctx, t, a, "(window.entered = [], window.active = 0, window.maxActive = 0, true)")
	marks := []string{"first", "second", "third"}
	var burst [][]byte
	for i, m := range marks {
		expr := "(() => { window.active++; window.maxActive = Math.max(window.maxActive, window.active); window.entered.push('" + m + "');" +
			" return new Promise(r => setTimeout(() => { window.active--; r('" + m + "') }, 300)); })()"
		burst = append(burst, harness.ToolCall(i+1, "browser_evaluate", map[string]any{"expression": expr, "tab": slotA}))
	}
	if err := raw.Write(burst...); err != nil {
		t.Fatal(err)
	}
	for i, m := range marks {
		res, err := raw.WaitTool(ctx, i+1)
		if err != nil || res.IsError {
			t.Fatalf("evaluate %s: %v %s\n%s", m, err, res.Text, harness.Tail(raw.Log(), 30))
		}
	}
	if got := js[int](ctx, t, a, "window.maxActive"); got != 1 {
		t.Errorf("the page ran %d calls to one tab at once, want 1", got)
	}
	if got := js[[]string](ctx, t, a, "window.entered"); !slices.Equal(got, marks) {
		t.Errorf("calls to one tab ran in the order %v, want %v (the order written)", got, marks)
	}
}

// TestModernMCPClient: a client that negotiates the newest MCP protocol
// (no initialize handshake) works too; it joins as a forwarder of the
// shared suite's owner.
func TestModernMCPClient(t *testing.T) {
	s := shared(t)
	ctx := testContext(t, testTimeout)
	srv, err := harness.StartServer(ctx, harness.ServerConfig{Bin: s.p.bin, Port: s.port, ControlPort: s.controlPort, Home: s.home, Name: "modern-client", ModernProtocol: true, Log: logSink()})
	if err != nil {
		t.Fatal(err)
	}
	trackServer(srv)
	t.Cleanup(func() { _ = srv.Close() })
	tools, err := srv.ListTools(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(tools) != len(protocol.Tools) {
		t.Errorf("the modern client sees %d tools", len(tools))
	}
	_, slot := s.openShared(ctx, t, "/links3.html")
	if out := okOn(ctx, t, srv, "browser_get_text", map[string]any{"tab": slot}); !strings.Contains(out, "You are on page three") {
		t.Errorf("the modern client read %q", harness.Clip(out, 200))
	}
}
