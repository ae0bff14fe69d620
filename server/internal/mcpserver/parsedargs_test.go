package mcpserver

import (
	"encoding/json"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

// TestParsedArgsKeyAsRead: the turn a call parsed by mcp-go takes is the
// one the stdio inbox gives the same JSON (callArgs), for every shape of
// arguments.
func TestParsedArgsKeyAsRead(t *testing.T) {
	for _, c := range []struct{ tool, args string }{
		{"browser_click", `{"tab":2,"element":"Go","ref":"e3"}`},
		{"browser_click", `{"profile":"  Work ","tab":2}`},
		{"browser_click", `{"profile":"work","tab":"2"}`},
		{"browser_click", `{"profile":3,"tab":2.5}`},
		{"browser_click", `{"tab":1e3}`},
		{"browser_click", `{"tab":null,"profile":null}`},
		{"browser_click", `{"tab":[1],"profile":{"a":1}}`},
		{"browser_click", `{"tab":true}`},
		{"browser_click", `{}`},
		{"browser_click", `null`},
		{"browser_click", `[1,2]`},
		{"browser_click", `"tab"`},
		{"browser_click", `7`},
		{"browser_click", `false`},
		{"browser_snapshot", `{"tab":1,"tab":4}`},
		{"browser_wait", `{"time":1}`},
		{"browser_wait", `{"text":""}`},
		{"browser_wait", `{"text":"Done","tab":3}`},
		{"browser_list_tabs", `{"tab":3}`},
		{"browser_new_tab", `{"url":"https://example.com/"}`},
	} {
		var want callArgs
		if err := want.UnmarshalJSON([]byte(c.args)); err != nil {
			t.Fatal(err)
		}
		wantKey, wantOK := keyOf("s1", c.tool, &want)

		var req mcp.CallToolRequest
		if err := json.Unmarshal([]byte(`{"name":"`+c.tool+`","arguments":`+c.args+`}`), &req.Params); err != nil {
			t.Fatal(err)
		}
		got := parsedArgs(req)
		gotKey, gotOK := keyOf("s1", c.tool, &got)
		if gotKey != wantKey || gotOK != wantOK || got.bad != want.bad {
			t.Errorf("%s %s: key %+v %v (bad %v), want %+v %v (bad %v)", c.tool, c.args, gotKey, gotOK, got.bad, wantKey, wantOK, want.bad)
		}
	}
}

// TestParsedArgsOfAGoValue: an in-process client's Go value (no JSON
// read) is keyed as its JSON would be.
func TestParsedArgsOfAGoValue(t *testing.T) {
	var req mcp.CallToolRequest
	req.Params.Name = "browser_click"
	req.Params.Arguments = map[string]any{"profile": "Work", "tab": int64(1) << 60}
	got := parsedArgs(req)
	k, ok := keyOf("", "browser_click", &got)
	if want := (turnKey{profile: "work", tab: "1.152921504606847e+18"}); !ok || k != want {
		t.Fatalf("key %+v %v, want %+v", k, ok, want)
	}
}
