package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/rs/zerolog"

	"github.com/monkbrowse/monkbrowse/protocol"
	"github.com/monkbrowse/monkbrowse/server/internal/fakeext"
	"github.com/monkbrowse/monkbrowse/server/internal/owner"
	"github.com/monkbrowse/monkbrowse/server/internal/proc"
	"github.com/monkbrowse/monkbrowse/tools"
)

func inProcess(tb testing.TB, s *Server) *client.Client {
	tb.Helper()
	c, err := client.NewInProcessClient(s.MCPServer())
	if err != nil {
		tb.Fatal(err)
	}
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		tb.Fatal(err)
	}
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "test", Version: "1"}
	if _, err := c.Initialize(ctx, init); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { c.Close() })
	return c
}

func callTool(tb testing.TB, c *client.Client, name string, args map[string]any) *mcp.CallToolResult {
	tb.Helper()
	req := mcp.CallToolRequest{}
	req.Params.Name = name
	req.Params.Arguments = args
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := c.CallTool(ctx, req)
	if err != nil {
		tb.Fatal(err)
	}
	return res
}

// callerFunc adapts a function to protocol.Caller.
type callerFunc func(ctx context.Context, name string, args json.RawMessage) (protocol.CallToolResult, error)

func (f callerFunc) CallTool(ctx context.Context, call protocol.CallTool) (protocol.CallToolResult, error) {
	return f(ctx, call.Name, call.Args)
}

// captureCaller keeps the call it was given, and the client its context
// names (tools.ClientOf).
type captureCaller struct {
	got    chan protocol.CallTool
	client chan string
}

func (c captureCaller) CallTool(ctx context.Context, call protocol.CallTool) (protocol.CallToolResult, error) {
	if c.client != nil {
		c.client <- tools.ClientOf(ctx)
	}
	c.got <- call
	return tools.ImageResult("shot", "AAAA", "image/png"), nil
}

// TestCallerGetsTheCall: the Caller receives the tool, its arguments and
// this app's grants in the call itself (the local app: no Client); its
// result and its Go errors reach the MCP client.
func TestCallerGetsTheCall(t *testing.T) {
	cc := captureCaller{got: make(chan protocol.CallTool, 1), client: make(chan string, 1)}
	c := inProcess(t, New(cc, &Options{AllowFileURLs: true}))
	res := callTool(t, c, "browser_screenshot", map[string]any{"tab": 2})
	got := <-cc.got
	if got.Name != "browser_screenshot" || string(got.Args) != `{"tab":2}` || !got.Grants.AllowFileURLs || got.Grants.Upload != nil || <-cc.client != "" || len(res.Content) != 2 {
		t.Fatalf("call %+v, result %+v", got, res)
	}
	if img, ok := res.Content[1].(mcp.ImageContent); !ok || img.Data != "AAAA" || img.MIMEType != "image/png" {
		t.Fatalf("image %+v", res.Content[1])
	}

	c = inProcess(t, New(callerFunc(func(context.Context, string, json.RawMessage) (protocol.CallToolResult, error) {
		return protocol.CallToolResult{}, errors.New("owner went away")
	}), nil))
	res = callTool(t, c, "browser_snapshot", nil)
	if !res.IsError || !strings.Contains(res.Content[0].(mcp.TextContent).Text, "owner went away") {
		t.Fatalf("a Go error should become a tool error: %+v", res)
	}
}

func TestToolsCatalog(t *testing.T) {
	ts := AllTools()
	if len(ts) != len(protocol.Tools) {
		t.Fatalf("%d tools", len(ts))
	}
	for i, mt := range ts {
		b, err := json.Marshal(mt)
		if err != nil || !strings.Contains(string(b), `"inputSchema":{`) {
			t.Fatalf("%s marshals to %s (%v)", mt.Name, b, err)
		}
		// readOnlyHint only where it differs from MCP's default (false);
		// destructiveHint on every other tool.
		if ro := protocol.Tools[i].ReadOnly; ro != strings.Contains(string(b), `"readOnlyHint":true`) ||
			strings.Contains(string(b), `"readOnlyHint":false`) || ro == strings.Contains(string(b), `"destructiveHint"`) {
			t.Errorf("%s (read-only %v) has the annotations %s", mt.Name, ro, b)
		}
	}
}

// MaxDefaultToolList is the most the default tools/list result may take,
// as JSON (issue 30: 16 kB, ~4k tokens; it was 36.8 kB). Issue 42 added
// browser_run and browser_recordings to the core (~2.9 kB, paid once per
// session; one six-step run saves five calls and their turns): 19 kB.
const MaxDefaultToolList = 19_000

// listTools answers tools/list the way an AI app receives it and returns
// the result's JSON and the tool names.
func listTools(t *testing.T, s *Server) ([]byte, []string) {
	t.Helper()
	resp := s.MCPServer().HandleMessage(context.Background(), json.RawMessage(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	b, err := json.Marshal(resp)
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		Result json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal(b, &r); err != nil || r.Result == nil {
		t.Fatalf("tools/list answered %s (%v)", b, err)
	}
	var list mcp.ListToolsResult
	if err := json.Unmarshal(r.Result, &list); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
	}
	return r.Result, names
}

// TestDefaultToolListIsSmall pins the size of the default tools/list and
// the capability groups: core by default, each group's tools added by
// --caps, all of them with all.
func TestDefaultToolListIsSmall(t *testing.T) {
	noop := callerFunc(func(context.Context, string, json.RawMessage) (protocol.CallToolResult, error) {
		return protocol.CallToolResult{}, nil
	})
	raw, names := listTools(t, New(noop, nil))
	if len(raw) > MaxDefaultToolList {
		t.Errorf("the default tools/list is %d bytes of JSON, over %d", len(raw), MaxDefaultToolList)
	}
	t.Logf("default tools/list: %d tools, %d bytes", len(names), len(raw))
	core := map[string]bool{}
	for _, tool := range protocol.Tools {
		if tool.Cap == "" {
			core[tool.Name] = true
		}
	}
	if len(names) != len(core) {
		t.Errorf("default list %v, want the %d core tools", names, len(core))
	}
	for _, n := range names {
		if !core[n] {
			t.Errorf("%s listed by default", n)
		}
	}
	for _, c := range protocol.Caps {
		set, _ := protocol.ParseCaps([]string{c.Name})
		_, got := listTools(t, New(noop, &Options{Caps: set}))
		want := len(core)
		for _, tool := range protocol.Tools {
			if tool.Cap == c.Name {
				want++
				if !contains(got, tool.Name) {
					t.Errorf("--caps %s does not list %s", c.Name, tool.Name)
				}
			}
		}
		if len(got) != want {
			t.Errorf("--caps %s lists %d tools, want %d", c.Name, len(got), want)
		}
	}
	all, _ := protocol.ParseCaps([]string{"all"})
	rawAll, got := listTools(t, New(noop, &Options{Caps: all}))
	if len(got) != len(protocol.Tools) {
		t.Errorf("--caps all lists %d of %d tools", len(got), len(protocol.Tools))
	}
	t.Logf("--caps all: %d tools, %d bytes", len(got), len(rawAll))
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestUnchosenToolIsRefused: a call to a tool whose group this app did not
// switch on never reaches the Caller (the owner, or the control port to
// it) and says which flag turns it on; with the group on, it goes through.
func TestUnchosenToolIsRefused(t *testing.T) {
	cc := captureCaller{got: make(chan protocol.CallTool, 1)}
	c := inProcess(t, New(cc, nil))
	res := callTool(t, c, "browser_click_xy", map[string]any{"x": 10, "y": 10})
	text := res.Content[0].(mcp.TextContent).Text
	if !res.IsError || !strings.Contains(text, "--caps coordinates") || !strings.Contains(text, "not run") {
		t.Fatalf("unchosen tool answered %+v", res)
	}
	select {
	case got := <-cc.got:
		t.Fatalf("the unchosen tool reached the caller: %+v", got)
	default:
	}
	set, _ := protocol.ParseCaps([]string{"coordinates"})
	c = inProcess(t, New(cc, &Options{Caps: set}))
	if res := callTool(t, c, "browser_click_xy", map[string]any{"x": 10, "y": 10}); res.IsError {
		t.Fatalf("chosen tool refused: %+v", res)
	}
	if got := <-cc.got; got.Name != "browser_click_xy" {
		t.Fatalf("caller got %+v", got)
	}
}

// The benchmarks' owner and fake extension share this pairing secret.
const benchPairing = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

func benchSecret() (string, error) { return benchPairing, nil }

// BenchmarkToolCallRoundTrip measures one tools/call through the MCP
// endpoint (in-process client), the owner's dispatcher, registry and queue,
// a real WebSocket to the fake extension and back.
func BenchmarkToolCallRoundTrip(b *testing.B) {
	for _, bc := range []struct {
		name string
		tool string
		args map[string]any
	}{
		{"get_text", "browser_get_text", map[string]any{"tab": 1}},
		{"click+snapshot", "browser_click", map[string]any{"tab": 1, "element": "Go", "ref": "e3"}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			log := zerolog.Nop()
			o, err := owner.Start(context.Background(), owner.Config{Addr: "127.0.0.1:0", Self: proc.Self{Logger: &log}, PairingSecret: benchSecret})
			if err != nil {
				b.Fatal(err)
			}
			defer o.Shutdown(context.Background())
			e, err := fakeext.Connect(context.Background(), fakeext.Options{URL: "ws://" + o.Addr().String() + "/", Secret: benchPairing})
			if err != nil {
				b.Fatal(err)
			}
			defer e.Close()
			for len(o.Profiles()) == 0 || !o.Profiles()[0].Connected {
				<-o.Changed()
			}
			c := inProcess(b, New(o.Caller(), nil))
			b.ReportAllocs()
			b.ResetTimer()
			start := time.Now()
			for i := 0; i < b.N; i++ {
				if res := callTool(b, c, bc.tool, bc.args); res.IsError {
					b.Fatal(res.Content)
				}
			}
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "calls/s")
		})
	}
}

// BenchmarkParallelTabs runs calls to 8 tabs at once.
func BenchmarkParallelTabs(b *testing.B) {
	log := zerolog.Nop()
	o, err := owner.Start(context.Background(), owner.Config{Addr: "127.0.0.1:0", Self: proc.Self{Logger: &log}, PairingSecret: benchSecret})
	if err != nil {
		b.Fatal(err)
	}
	defer o.Shutdown(context.Background())
	var tabs []fakeext.Tab
	for i := 1; i <= 8; i++ {
		tabs = append(tabs, fakeext.Tab{ID: 100 + i, WindowID: 1, Shared: true, Slot: i, Active: i == 1, URL: "https://x.example/"})
	}
	e, err := fakeext.Connect(context.Background(), fakeext.Options{URL: "ws://" + o.Addr().String() + "/", Tabs: tabs, Secret: benchPairing})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	for len(o.Profiles()) == 0 || !o.Profiles()[0].Connected {
		<-o.Changed()
	}
	c := inProcess(b, New(o.Caller(), nil))
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	var next atomic.Int64
	b.RunParallel(func(pb *testing.PB) {
		tab := 1 + int(next.Add(1)%8) // each goroutine its own tab
		for pb.Next() {
			if res := callTool(b, c, "browser_get_text", map[string]any{"tab": tab}); res.IsError {
				b.Error(res.Content)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "calls/s")
}

// TestCallCarriesTheAppName: every call names its AI app as the person
// knows it, from the client's name (initialize, or the request's _meta on
// the newest protocol), and "AI app (pid N)" when it gave none.
func TestCallCarriesTheAppName(t *testing.T) {
	for _, tc := range []struct {
		client string
		legacy bool
		want   string
	}{
		{"claude-code", true, "Claude Code"},
		{"claude-code", false, "Claude Code"},
		{"some-agent", true, "some-agent"},
		{"", true, fmt.Sprintf("AI app (pid %d)", os.Getpid())},
	} {
		cc := captureCaller{got: make(chan protocol.CallTool, 1)}
		var opts []client.ClientOption
		if tc.legacy {
			//lint:ignore SA1019 the MCP clients AI apps ship today still say initialize; we test that handshake on purpose
			opts = append(opts, client.WithLegacyProtocolOnly())
		}
		c, err := client.NewInProcessClientWithOptions(New(cc, nil).MCPServer(), opts...)
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		if err := c.Start(ctx); err != nil {
			t.Fatal(err)
		}
		init := mcp.InitializeRequest{}
		init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
		init.Params.ClientInfo = mcp.Implementation{Name: tc.client, Version: "1"}
		if _, err := c.Initialize(ctx, init); err != nil {
			t.Fatal(err)
		}
		callTool(t, c, "browser_screenshot", nil)
		if got := (<-cc.got).App; got != tc.want {
			t.Errorf("client %q (legacy %v): app %q, want %q", tc.client, tc.legacy, got, tc.want)
		}
		c.Close()
	}
}
