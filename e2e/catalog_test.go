package e2e

import (
	"slices"
	"testing"

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
