package e2e

import (
	"slices"
	"strings"
	"testing"

	"github.com/monkbrowse/monkbrowse/e2e/harness"
	"github.com/monkbrowse/monkbrowse/protocol"
)

// TestToolCatalog: the real binary lists exactly the tools of the
// protocol catalog, each with an object input schema, over the initialize
// handshake that MCP hosts use.
func TestToolCatalog(t *testing.T) {
	s := shared(t)
	ctx := testContext(t, testTimeout)
	tools, err := s.server.ListTools(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var got, want []string
	for _, tl := range tools {
		got = append(got, tl.Name)
		if tl.InputSchema.Type != "object" && len(tl.RawInputSchema) == 0 {
			t.Errorf("tool %s has no object input schema", tl.Name)
		}
	}
	for _, tl := range protocol.Tools {
		want = append(want, tl.Name)
	}
	// mcp-go lists tools sorted by name; compare the sets.
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("tools/list = %v\nwant %v", got, want)
	}
}

// TestForwarderKeepsItsOwnCaps: each AI app's --caps counts (issue 30). The
// suite's owner runs with every group on; a second app's monkbrowse, a
// forwarder started with the core tools only, lists only those and refuses
// browser_click_xy itself, naming the flag, though the owner would run it.
func TestForwarderKeepsItsOwnCaps(t *testing.T) {
	s := shared(t)
	ctx := testContext(t, testTimeout)
	srv, err := harness.StartServer(ctx, harness.ServerConfig{Bin: s.p.bin, Port: s.port, ControlPort: s.controlPort, Home: s.home,
		Name: "core-only", Args: []string{"--caps", "core"}, Log: logSink()})
	if err != nil {
		t.Fatal(err)
	}
	trackServer(srv)
	t.Cleanup(func() { _ = srv.Close() })
	tools, err := srv.ListTools(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range tools {
		if pt, _ := protocol.LookupTool(tl.Name); pt == nil || pt.Cap != "" {
			t.Errorf("the core-only forwarder lists %s", tl.Name)
		}
	}
	_, slot := s.openShared(ctx, t, "/links3.html")
	res := callOn(ctx, t, srv, "browser_click_xy", map[string]any{"x": 5, "y": 5, "tab": slot})
	if !res.IsError || !strings.Contains(res.Text, "--caps coordinates") {
		t.Errorf("the core-only forwarder ran browser_click_xy or did not name the flag: %+v", res)
	}
	if out := s.ok(ctx, t, "browser_click_xy", map[string]any{"x": 5, "y": 5, "tab": slot}); out == "" {
		t.Errorf("the owner's app (all groups) got no answer")
	}
}
