package mcpserver

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/monkbrowse/monkbrowse/protocol"
	"github.com/monkbrowse/monkbrowse/tools"
)

// BenchmarkHandleParsedCall is the tool handler's cost of a tools/call
// that mcp-go has parsed (HTTP, an in-process client): its turn in the
// per-tab order, then the call handed to the Caller, which answers at once.
func BenchmarkHandleParsedCall(b *testing.B) {
	s := New(callerFunc(func(context.Context, string, json.RawMessage) (protocol.CallToolResult, error) {
		return tools.TextResult("ok"), nil
	}), nil)
	var req mcp.CallToolRequest
	req.Method = string(mcp.MethodToolsCall)
	if err := json.Unmarshal([]byte(`{"name":"browser_click","arguments":{"profile":"work","tab":2,"element":"Go","ref":"e3"}}`), &req.Params); err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		res, err := s.handle(ctx, req)
		if err != nil || res.IsError {
			b.Fatal(err, res)
		}
	}
}
