package e2e

import (
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

	// Same tab: serialised, FIFO. Each call appends its mark after 0.6 s.
	// Each call also notes when it starts running in the page, so the
	// second is sent once the first is certainly ahead of it (an event, not
	// a guessed delay).
	js[bool](ctx, t, a, "(window.marks = [], window.started = [], true)")
	mark := func(m string) map[string]any {
		return map[string]any{"expression": "(window.started.push('" + m + "'), new Promise(r => setTimeout(() => { window.marks.push('" + m + "'); r(1) }, 600)))", "tab": slotA}
	}
	start := time.Now()
	var wg sync.WaitGroup
	for _, m := range []string{"first", "second"} {
		wg.Add(1)
		go func(m string) {
			defer wg.Done()
			res, err := s.server.Call(ctx, "browser_evaluate", mark(m))
			if err != nil || res.IsError {
				t.Errorf("evaluate %s: %v %s", m, err, res.Text)
			}
		}(m)
		if m == "first" {
			waitJS(ctx, t, a, "window.started.length === 1")
		}
	}
	wg.Wait()
	ser := time.Since(start)
	t.Logf("two 0.6 s calls on one tab: %s", ser.Round(time.Millisecond))
	if ser < 1150*time.Millisecond {
		t.Errorf("two calls to the same tab overlapped (%s for two 0.6 s calls)", ser)
	}
	if got := js[[]string](ctx, t, a, "window.marks"); len(got) != 2 || got[0] != "first" || got[1] != "second" {
		t.Errorf("calls to one tab ran in the order %v, want first, second", got)
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
