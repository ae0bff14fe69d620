package mcpserver

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/monkbrowse/monkbrowse/protocol"
)

// TestToolsEveryPolicyForbidsAreLeftOut: tools/list leaves out the tools
// the organisation's policy of every connected profile forbids (issue 44),
// and only those.
func TestToolsEveryPolicyForbidsAreLeftOut(t *testing.T) {
	noop := callerFunc(func(context.Context, string, json.RawMessage) (protocol.CallToolResult, error) {
		return protocol.CallToolResult{}, nil
	})
	all, _ := protocol.ParseCaps([]string{"all"})
	var policies []*protocol.SitePolicy
	srv := New(noop, &Options{Caps: all, Policies: func(context.Context) []*protocol.SitePolicy { return policies }})
	_, names := listTools(t, srv)
	for _, n := range []string{"browser_evaluate", "browser_click_xy", "browser_pdf"} {
		if !slices.Contains(names, n) {
			t.Fatalf("%s is missing with no policy: %v", n, names)
		}
	}
	policies = []*protocol.SitePolicy{{Forbidden: []string{"evaluate", "coordinates"}}, {Forbidden: []string{"evaluate"}}}
	_, names = listTools(t, srv)
	if slices.Contains(names, "browser_evaluate") {
		t.Errorf("browser_evaluate is listed though every profile's policy forbids it: %v", names)
	}
	if !slices.Contains(names, "browser_click_xy") || !slices.Contains(names, "browser_snapshot") {
		t.Errorf("a tool one profile still allows is left out: %v", names)
	}
}
