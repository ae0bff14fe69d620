package tools

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/monkbrowse/monkbrowse/protocol"
)

// BenchmarkCallToolArgs is the dispatcher's cost of one tools/call's
// arguments: validated against the schema and bound to the handler's
// struct (the browser answers at once with an error, so the handler does
// next to nothing).
func BenchmarkCallToolArgs(b *testing.B) {
	gone := errors.New("gone")
	d := NewDispatcher(fakeBrowser{answer: func(string, any, any) error { return gone }}, nil)
	for _, bc := range []struct{ name, tool, args string }{
		{"click", "browser_click", `{"tab":1,"element":"Go","ref":"e3"}`},
		{"type", "browser_type", `{"profile":"work","tab":2,"element":"Search","ref":"e7","text":"hello world","submit":true}`},
	} {
		b.Run(bc.name, func(b *testing.B) {
			call := protocol.CallTool{Name: bc.tool, Args: json.RawMessage(bc.args)}
			ctx := context.Background()
			if res, _ := d.CallTool(ctx, call); len(res.Content) == 0 || res.Content[0].Text != "gone" {
				b.Fatalf("the arguments did not reach the browser: %+v", res.Content)
			}
			b.ReportAllocs()
			for b.Loop() {
				if res, _ := d.CallTool(ctx, call); !res.IsError {
					b.Fatal("the browser's error did not reach the result")
				}
			}
		})
	}
}
