package mcpserver

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/monkbrowse/monkbrowse/protocol"
	"github.com/monkbrowse/monkbrowse/tools"
)

// TestAskUserSendsProgress: a browser_ask_user call that carries a
// progressToken gets notifications/progress with that token while it
// waits (on the real stdio path), and none after its answer; a call
// without a token, or of another tool, gets none.
func TestAskUserSendsProgress(t *testing.T) {
	release := make(chan struct{})
	rs := startRaw(t, callerFunc(func(ctx context.Context, name string, _ json.RawMessage) (protocol.CallToolResult, error) {
		if name == "browser_ask_user" {
			select {
			case <-release:
			case <-ctx.Done():
			}
		}
		return tools.TextResult("answered " + name), nil
	}), Options{ProgressEvery: time.Millisecond})
	rs.write(t, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"browser_ask_user","arguments":{"message":"Sign in"},"_meta":{"progressToken":"tok-1"}}}`)
	m := rs.next(t)
	if m["method"] != "notifications/progress" {
		t.Fatalf("first line %v, want a progress notification", m)
	}
	p, _ := m["params"].(map[string]any)
	if p["progressToken"] != "tok-1" || p["progress"].(float64) <= 0 || p["message"] == "" {
		t.Fatalf("progress params %v", p)
	}
	close(release)
	for {
		m = rs.next(t)
		if m["id"] != nil {
			break
		}
		if m["method"] != "notifications/progress" {
			t.Fatalf("unexpected line %v", m)
		}
	}
	if m["id"].(float64) != 1 {
		t.Fatalf("answer %v", m)
	}
	// Without a token: the answer and nothing else. A browser_wait with
	// a token gets no progress either (only the person's waits report it).
	rs.write(t, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"browser_wait","arguments":{"time":1},"_meta":{"progressToken":"tok-2"}}}`)
	if m = rs.next(t); m["id"] == nil || m["id"].(float64) != 2 {
		t.Fatalf("browser_wait with a token: %v", m)
	}
}
