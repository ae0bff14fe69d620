package serverbench

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/monkbrowse/monkbrowse/messaging"
	"github.com/monkbrowse/monkbrowse/protocol"
	"github.com/monkbrowse/monkbrowse/tools"
)

// fakeBrowser is one profile with one shared tab showing a fixed page.
type fakeBrowser struct {
	mu        sync.Mutex
	snapFrame []byte
}

func (f *fakeBrowser) set(page string, tb testing.TB) {
	b, err := os.ReadFile(filepath.Join("..", "testdata", "snapshots", page+".yaml"))
	if err != nil {
		tb.Fatal(err)
	}
	snap, err := encodeResponse(protocol.SnapshotResult{TabID: 7, URL: "http://127.0.0.1:8000/" + page + ".html", Title: page, Snapshot: string(b)})
	if err != nil {
		tb.Fatal(err)
	}
	f.mu.Lock()
	f.snapFrame = snap
	f.mu.Unlock()
}

// encodeResponse is the response frame the extension sends, encoded once:
// its cost is the browser's, not the server's.
func encodeResponse(result any) ([]byte, error) {
	r, err := json.Marshal(result)
	if err != nil {
		return nil, err
	}
	ok := true
	return messaging.Frame{K: messaging.KindResponse, ID: "1", OK: &ok, Result: r}.Encode()
}

var tabFrame = func() []byte {
	b, err := encodeResponse(protocol.TabResult{TabID: 7})
	if err != nil {
		panic(err)
	}
	return b
}()

var target = tools.Target{ProfileID: "p1", Slug: "bench", Label: "bench", TabID: 7, Slot: 1}

func (f *fakeBrowser) Profiles(context.Context, bool) ([]tools.ProfileInfo, error) {
	return []tools.ProfileInfo{{ID: "p1", Label: "bench", Slug: "bench", Connected: true,
		Tabs: []protocol.TabInfo{{TabID: 7, Slot: 1, Active: true}}}}, nil
}

func (f *fakeBrowser) WithTab(ctx context.Context, _ string, _ int, fn func(context.Context, tools.Target, tools.Session) error) error {
	return fn(ctx, target, wire{f})
}

func (f *fakeBrowser) WithProfile(ctx context.Context, _ string, fn func(context.Context, tools.Target, tools.Session) error) error {
	return fn(ctx, target, wire{f})
}

// wire answers requests as the extension would. The server's share of a
// request is paid here: encoding the request frame, decoding the response
// frame and its result.
type wire struct{ f *fakeBrowser }

func (w wire) Request(_ context.Context, typ string, payload, out any) error {
	p, err := json.Marshal(payload)
	if err != nil {
		return err
	}
	if _, err := (messaging.Frame{K: messaging.KindRequest, ID: "1", Type: typ, Payload: p}).Encode(); err != nil {
		return err
	}
	res := tabFrame
	if typ == protocol.MsgSnapshot {
		w.f.mu.Lock()
		res = w.f.snapFrame
		w.f.mu.Unlock()
	}
	fr, err := messaging.DecodeFrame(res)
	if err != nil {
		return err
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(fr.Result, out)
}

var (
	once     sync.Once
	browser  = &fakeBrowser{}
	mcpc     *client.Client
	setupErr error
)

// setup starts one MCP server over pipes (mcp-go's stdio server keeps its
// session in a package global, so one per process) and a client.
func setup(tb testing.TB) *client.Client {
	once.Do(func() {
		d := tools.NewDispatcher(browser, nil)
		s := server.NewMCPServer("monkbrowse-bench", "0", server.WithToolCapabilities(false))
		for _, t := range protocol.Tools {
			name := t.Name
			s.AddTool(mcp.NewToolWithRawSchema(name, t.Description, t.InputSchema()),
				func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					raw, err := json.Marshal(req.GetRawArguments())
					if err != nil {
						return nil, err
					}
					r, err := d.CallTool(ctx, protocol.CallTool{Name: name, Args: raw})
					if err != nil {
						return nil, err
					}
					out := &mcp.CallToolResult{IsError: r.IsError}
					for _, c := range r.Content {
						if c.Type == "image" {
							out.Content = append(out.Content, mcp.NewImageContent(c.Data, c.MimeType))
						} else {
							out.Content = append(out.Content, mcp.NewTextContent(c.Text))
						}
					}
					return out, nil
				})
		}
		toServerR, toServerW := io.Pipe()
		toClientR, toClientW := io.Pipe()
		go func() { _ = server.NewStdioServer(s).Listen(context.Background(), toServerR, toClientW) }()
		logR, _ := io.Pipe()
		tr := transport.NewIO(toClientR, toServerW, logR)
		//lint:ignore SA1019 the MCP clients AI apps ship today still say initialize; we test that handshake on purpose
		c := client.NewClient(tr, client.WithLegacyProtocolOnly())
		if setupErr = c.Start(context.Background()); setupErr != nil {
			return
		}
		init := mcp.InitializeRequest{}
		init.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
		init.Params.ClientInfo = mcp.Implementation{Name: "serverbench", Version: "1"}
		if _, setupErr = c.Initialize(context.Background(), init); setupErr != nil {
			return
		}
		mcpc = c
	})
	if setupErr != nil {
		tb.Fatal(setupErr)
	}
	return mcpc
}

func call(tb testing.TB, c *client.Client, name string, args map[string]any) int {
	req := mcp.CallToolRequest{}
	req.Params.Name = name
	req.Params.Arguments = args
	res, err := c.CallTool(context.Background(), req)
	if err != nil {
		tb.Fatal(err)
	}
	n := 0
	for _, ct := range res.Content {
		if t, ok := ct.(mcp.TextContent); ok {
			n += len(t.Text)
		}
	}
	if res.IsError {
		tb.Fatalf("%s failed: %v", name, res.Content)
	}
	return n
}

// BenchmarkServerSnapshot is browser_snapshot through the Go side, per page.
func BenchmarkServerSnapshot(b *testing.B) {
	c := setup(b)
	for _, page := range []string{"signin", "app", "large"} {
		b.Run(page, func(b *testing.B) {
			browser.set(page, b)
			b.ReportAllocs()
			var n int
			for b.Loop() {
				n = call(b, c, "browser_snapshot", map[string]any{})
			}
			b.ReportMetric(float64(n), "text-bytes/op")
		})
	}
}

// BenchmarkServerClick is browser_click (which appends a fresh snapshot)
// through the Go side, per page.
func BenchmarkServerClick(b *testing.B) {
	c := setup(b)
	for _, page := range []string{"signin", "large"} {
		b.Run(page, func(b *testing.B) {
			browser.set(page, b)
			b.ReportAllocs()
			var n int
			for b.Loop() {
				n = call(b, c, "browser_click", map[string]any{"element": "a button", "ref": "e3"})
			}
			b.ReportMetric(float64(n), "text-bytes/op")
		})
	}
}

// TestServerSnapshot checks the stand-in wiring once, so go test ./... (and
// -race) covers it.
func TestServerSnapshot(t *testing.T) {
	c := setup(t)
	browser.set("signin", t)
	if n := call(t, c, "browser_snapshot", map[string]any{}); n < 1000 {
		t.Fatalf("snapshot result is %d bytes", n)
	}
}
