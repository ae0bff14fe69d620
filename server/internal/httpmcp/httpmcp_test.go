package httpmcp

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/rs/zerolog"

	"github.com/monkbrowse/monkbrowse/protocol"
	"github.com/monkbrowse/monkbrowse/server/internal/mcpserver"
)

const testToken = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

// gatedCaller answers every call with its tool, app and tab; a call whose
// "text" argument is "hold" waits until released (or its context ends).
type gatedCaller struct {
	started chan protocol.CallTool
	release chan struct{}
	ended   chan string // the tab of each call that ended by its context
}

func newGatedCaller() *gatedCaller {
	return &gatedCaller{started: make(chan protocol.CallTool, 16), release: make(chan struct{}), ended: make(chan string, 16)}
}

func (g *gatedCaller) CallTool(ctx context.Context, call protocol.CallTool) (protocol.CallToolResult, error) {
	var a struct {
		Tab  any    `json:"tab"`
		Text string `json:"text"`
	}
	_ = json.Unmarshal(call.Args, &a)
	g.started <- call
	if a.Text == "hold" {
		select {
		case <-g.release:
		case <-ctx.Done():
			g.ended <- fmt.Sprint(a.Tab)
			return protocol.ErrorResult("cancelled"), nil
		}
	}
	return protocol.CallToolResult{Content: []protocol.ContentItem{{Type: "text", Text: fmt.Sprintf("%s by %s on tab %v", call.Name, call.App, a.Tab)}}}, nil
}

type fixture struct {
	url   string
	token atomic.Pointer[string]
	call  *gatedCaller
	ep    *Endpoint
}

// start serves an Endpoint on a free loopback port until the test ends.
func start(t *testing.T, opts Options) *fixture {
	t.Helper()
	f := &fixture{call: newGatedCaller()}
	tok := testToken
	f.token.Store(&tok)
	log := zerolog.New(zerolog.NewTestWriter(t)).Level(zerolog.DebugLevel)
	opts.Server = mcpserver.New(f.call, &mcpserver.Options{Logger: &log, ProgressEvery: time.Millisecond})
	opts.Token = func() (string, error) { return *f.token.Load(), nil }
	opts.Logger = &log
	ln, err := Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f.ep = New(ln, opts)
	f.url = f.ep.URL()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- f.ep.Serve(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return f
}

// connect is an mcp-go streamable HTTP client named name, initialized.
func (f *fixture) connect(t *testing.T, name, query string, legacy bool) *client.Client {
	t.Helper()
	tr, err := transport.NewStreamableHTTP(f.url+query, transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + testToken}))
	if err != nil {
		t.Fatal(err)
	}
	var opts []client.ClientOption
	if legacy {
		//lint:ignore SA1019 the MCP clients AI apps ship today still say initialize; we test that handshake on purpose
		opts = append(opts, client.WithLegacyProtocolOnly())
	}
	c := client.NewClient(tr, opts...)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	req.Params.ClientInfo = mcp.Implementation{Name: name, Version: "1"}
	if _, err := c.Initialize(ctx, req); err != nil {
		t.Fatalf("initialize over HTTP: %v", err)
	}
	return c
}

func toolNames(t *testing.T, c *client.Client) map[string]bool {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	out := map[string]bool{}
	for _, tl := range res.Tools {
		out[tl.Name] = true
	}
	return out
}

func callText(t *testing.T, ctx context.Context, c *client.Client, name string, args map[string]any) (string, error) {
	req := mcp.CallToolRequest{}
	req.Params.Name = name
	req.Params.Arguments = args
	res, err := c.CallTool(ctx, req)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, ct := range res.Content {
		if tc, ok := ct.(mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String(), nil
}

// optionalTool is a tool outside the core set, to see caps per client.
func optionalTool(t *testing.T) string {
	for _, tl := range protocol.Tools {
		if tl.Cap != "" {
			return tl.Name
		}
	}
	t.Skip("no optional tool in the catalog")
	return ""
}

func TestInitializeListAndCallOverHTTP(t *testing.T) {
	f := start(t, Options{})
	opt := optionalTool(t)
	for _, legacy := range []bool{true, false} {
		t.Run(fmt.Sprintf("legacy=%v", legacy), func(t *testing.T) {
			core := f.connect(t, "Alpha App", "", legacy)
			all := f.connect(t, "Beta App", "?caps=all", legacy)
			names := toolNames(t, core)
			if !names["browser_snapshot"] || names[opt] {
				t.Fatalf("core client's tools/list: snapshot %v, optional %s %v; want the core tools only", names["browser_snapshot"], opt, names[opt])
			}
			if !toolNames(t, all)[opt] {
				t.Fatalf("a client with ?caps=all does not list %s", opt)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			// Each client's calls carry its own name (its app identity).
			for c, want := range map[*client.Client]string{core: "Alpha App", all: "Beta App"} {
				got, err := callText(t, ctx, c, "browser_snapshot", map[string]any{"tab": 1})
				if err != nil {
					t.Fatal(err)
				}
				if want := "browser_snapshot by " + want + " on tab 1"; got != want {
					t.Fatalf("result %q, want %q", got, want)
				}
				<-f.call.started
			}
			// The core client's call to an optional tool is refused before
			// the Caller.
			got, err := callText(t, ctx, core, opt, map[string]any{})
			if err != nil || !strings.Contains(got, "--caps") {
				t.Fatalf("core client's %s = %q, %v; want the refusal naming --caps", opt, got, err)
			}
			select {
			case c := <-f.call.started:
				t.Fatalf("the Caller got %s from a client that did not switch it on", c.Name)
			default:
			}
		})
	}
}

// raw sends one request with the given headers and body; host overrides
// the Host header.
func raw(t *testing.T, method, url, host string, hdr map[string]string, body io.Reader) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, body)
	if err != nil {
		t.Fatal(err)
	}
	if host != "" {
		req.Host = host
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

const initBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`

func TestRefusals(t *testing.T) {
	f := start(t, Options{MaxBody: 1 << 16})
	auth := "Bearer " + testToken
	json := "application/json"
	accept := "application/json, text/event-stream"
	cases := []struct {
		name   string
		host   string
		hdr    map[string]string
		body   string
		status int
		says   string
	}{
		{"no token", "", map[string]string{"Content-Type": json, "Accept": accept}, initBody, 401, "monkbrowse http-token"},
		{"wrong token", "", map[string]string{"Authorization": "Bearer " + strings.Repeat("0", 64), "Content-Type": json, "Accept": accept}, initBody, 401, "Authorization: Bearer"},
		{"token as basic", "", map[string]string{"Authorization": "Basic " + testToken, "Content-Type": json, "Accept": accept}, initBody, 401, "Bearer"},
		{"a web page (Origin), even with the token", "", map[string]string{"Authorization": auth, "Origin": "http://evil.example", "Content-Type": json, "Accept": accept}, initBody, 403, "web pages"},
		{"a rebinding Host", "evil.example:9220", map[string]string{"Authorization": auth, "Content-Type": json, "Accept": accept}, initBody, 403, "DNS rebinding"},
		{"another path", "", map[string]string{"Authorization": auth}, "", 404, "/mcp"},
		{"oversized body", "", map[string]string{"Authorization": auth, "Content-Type": json, "Accept": accept}, `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"` + strings.Repeat("a", 1<<16) + `"}}`, 413, "at most"},
		{"unknown caps", "", map[string]string{"Authorization": auth, "Content-Type": json, "Accept": accept}, initBody, 400, "caps"},
		{"the token, localhost", "localhost:1", map[string]string{"Authorization": auth, "Content-Type": json, "Accept": accept}, initBody, 200, `"serverInfo"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			url := f.url
			switch tc.name {
			case "another path":
				url = strings.TrimSuffix(f.url, "/mcp") + "/other"
			case "unknown caps":
				url += "?caps=nonsense"
			}
			var body io.Reader
			if tc.body != "" {
				body = strings.NewReader(tc.body)
			}
			status, got := raw(t, http.MethodPost, url, tc.host, tc.hdr, body)
			if status != tc.status || !strings.Contains(got, tc.says) {
				t.Fatalf("status %d body %q; want %d saying %q", status, got, tc.status, tc.says)
			}
		})
	}
	// A body without a length (chunked) is bounded while it is read.
	t.Run("oversized chunked body", func(t *testing.T) {
		pr, pw := io.Pipe()
		go func() {
			pw.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"`))
			for i := 0; i < 64; i++ {
				if _, err := pw.Write([]byte(strings.Repeat("a", 4096))); err != nil {
					return
				}
			}
			pw.Close()
		}()
		status, got := raw(t, http.MethodPost, f.url, "", map[string]string{"Authorization": auth, "Content-Type": json, "Accept": accept}, pr)
		if status != 413 {
			t.Fatalf("status %d %q, want 413", status, got)
		}
	})
}

func TestRotatedTokenRefusedAtOnce(t *testing.T) {
	f := start(t, Options{})
	hdr := map[string]string{"Authorization": "Bearer " + testToken, "Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
	if status, _ := raw(t, http.MethodPost, f.url, "", hdr, strings.NewReader(initBody)); status != 200 {
		t.Fatalf("status %d with the token, want 200", status)
	}
	fresh := strings.Repeat("f", 64)
	f.token.Store(&fresh)
	if status, _ := raw(t, http.MethodPost, f.url, "", hdr, strings.NewReader(initBody)); status != 401 {
		t.Fatalf("status %d with the old token after rotation, want 401", status)
	}
}

func TestConnectionCapBeforeAuthentication(t *testing.T) {
	const maxPending = 4
	f := start(t, Options{MaxPending: maxPending, MaxConns: 1})
	addr := strings.TrimSuffix(strings.TrimPrefix(f.url, "http://"), "/mcp")
	// A flood of idle connections without the token: beyond the cap the
	// oldest are closed, before anything is read from them.
	var idle []net.Conn
	defer func() {
		for _, c := range idle {
			c.Close()
		}
	}()
	for i := 0; i < maxPending; i++ {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		idle = append(idle, c)
	}
	// An AI app's request still gets through, on a new connection: the
	// oldest idle connection makes room.
	hdr := map[string]string{"Authorization": "Bearer " + testToken, "Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
	tr := &http.Transport{MaxConnsPerHost: 1}
	defer tr.CloseIdleConnections()
	app := &http.Client{Transport: tr}
	post := func(c *http.Client) int {
		req, _ := http.NewRequest(http.MethodPost, f.url, strings.NewReader(initBody))
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}
	if status := post(app); status != 200 {
		t.Fatalf("an AI app's request during the flood: %d, want 200", status)
	}
	// Closed when the app's connection was accepted (on a goroutine of
	// its own: a few seconds are plenty).
	idle[0].SetReadDeadline(time.Now().Add(5 * time.Second))
	var ne net.Error
	if n, err := idle[0].Read(make([]byte, 1)); err == nil || n != 0 || errors.As(err, &ne) && ne.Timeout() {
		t.Fatalf("the oldest idle connection is still open (read %d, %v)", n, err)
	}
	// The app's connection (kept alive) holds the one slot for AI app
	// connections: another connection with the token is answered 503.
	other := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	if status := post(other); status != http.StatusServiceUnavailable {
		t.Fatalf("a second AI app connection over MaxConns: %d, want 503", status)
	}
	if status := post(app); status != 200 {
		t.Fatalf("the app's own connection after the refusal: %d, want 200", status)
	}
}

func TestHeadersBounded(t *testing.T) {
	f := start(t, Options{})
	hdr := map[string]string{"X-Big": strings.Repeat("a", 4*DefaultMaxHeaderBytes)}
	if status, _ := raw(t, http.MethodPost, f.url, "", hdr, strings.NewReader("{}")); status != http.StatusRequestHeaderFieldsTooLarge {
		t.Fatalf("status %d for %d KiB of headers, want 431", status, 4*DefaultMaxHeaderBytes>>10)
	}
}

// Calls for one tab run one after another in the order they were read; a
// call for another tab runs meanwhile; a waiting call whose request ends
// never runs.
func TestPerTabOrderAndCancelOverHTTP(t *testing.T) {
	f := start(t, Options{})
	c := f.connect(t, "Order App", "", true)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	results := make(chan string, 4)
	call := func(ctx context.Context, args map[string]any) {
		defer wg.Done()
		got, err := callText(t, ctx, c, "browser_wait", args)
		if err != nil {
			results <- "error: " + err.Error()
			return
		}
		results <- got
	}
	wg.Add(1)
	go call(ctx, map[string]any{"tab": 1, "text": "hold"})
	<-f.call.started // tab 1's first call runs and holds
	// A second call for tab 1 waits behind it; cancelled while it waits.
	cctx, ccancel := context.WithCancel(ctx)
	wg.Add(1)
	go call(cctx, map[string]any{"tab": 1, "text": "second"})
	waitWaiting(t, f.ep.opts.Server, 1, f.call.started)
	// A third call for tab 1 queues behind the second.
	wg.Add(1)
	go call(ctx, map[string]any{"tab": 1, "text": "third"})
	waitWaiting(t, f.ep.opts.Server, 2, f.call.started)
	// Another tab is not held up by tab 1.
	got, err := callText(t, ctx, c, "browser_wait", map[string]any{"tab": 2, "text": "other"})
	if err != nil || !strings.Contains(got, "tab 2") {
		t.Fatalf("tab 2's call = %q, %v while tab 1 was busy", got, err)
	}
	if s := <-f.call.started; !strings.Contains(string(s.Args), `"other"`) {
		t.Fatalf("the Caller got %s before tab 2's call", s.Args)
	}
	ccancel()
	waitWaiting(t, f.ep.opts.Server, 1, f.call.started)
	select {
	case s := <-f.call.started:
		t.Fatalf("a call started while tab 1's first held: %s", s.Args)
	default:
	}
	close(f.call.release)
	if s := <-f.call.started; !strings.Contains(string(s.Args), `"third"`) {
		t.Fatalf("after the first call the Caller got %s, want the third (the second was cancelled)", s.Args)
	}
	wg.Wait()
	close(results)
	n := 0
	for r := range results {
		if strings.HasPrefix(r, "browser_wait") {
			n++
		}
	}
	if n != 2 {
		t.Fatalf("%d calls answered, want 2 (the first and the third)", n)
	}
}

// waitWaiting waits until n calls wait for their turn.
// A call reaching the Caller meanwhile fails the test at once (it should
// be waiting).
func waitWaiting(t *testing.T, srv *mcpserver.Server, n int, started <-chan protocol.CallTool) {
	t.Helper()
	timeout := time.After(20 * time.Second)
	for {
		w, ch := srv.WaitingCalls()
		if w == n {
			return
		}
		select {
		case <-ch:
		case c := <-started:
			t.Fatalf("%s %s started while it should wait for its turn", c.Name, c.Args)
		case <-timeout:
			w, _ := srv.WaitingCalls()
			t.Fatalf("%d calls wait for their turn after 20 s, want %d", w, n)
		}
	}
}

// A browser_ask_user waiting for the person sends notifications/progress
// on its HTTP stream, as over stdio (clients reset their timeout on it).
func TestProgressOverHTTP(t *testing.T) {
	f := start(t, Options{})
	for _, legacy := range []bool{true, false} {
		c := f.connect(t, "Progress App", "", legacy)
		got := make(chan mcp.JSONRPCNotification, 16)
		c.OnNotification(func(n mcp.JSONRPCNotification) {
			if n.Method == "notifications/progress" {
				select {
				case got <- n:
				default:
				}
			}
		})
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		done := make(chan error, 1)
		go func() {
			req := mcp.CallToolRequest{}
			req.Params.Name = "browser_ask_user"
			req.Params.Arguments = map[string]any{"message": "Sign in", "text": "hold"}
			req.Params.Meta = &mcp.Meta{ProgressToken: "tok-http"}
			_, err := c.CallTool(ctx, req)
			done <- err
		}()
		select {
		case n := <-got:
			if tok := n.Params.AdditionalFields["progressToken"]; tok != "tok-http" {
				t.Fatalf("legacy=%v: progress for token %v, want tok-http", legacy, tok)
			}
		case err := <-done:
			t.Fatalf("legacy=%v: the call ended (%v) before any progress", legacy, err)
		case <-ctx.Done():
			t.Fatalf("legacy=%v: no notifications/progress over HTTP while browser_ask_user waited", legacy)
		}
		<-f.call.started
		f.call.release <- struct{}{}
		if err := <-done; err != nil {
			t.Fatalf("legacy=%v: %v", legacy, err)
		}
		cancel()
	}
}

// Sessions are real: an unknown session id, or one the client ended
// (DELETE), is refused with 404; the idle sweeper ends them the same way.
func TestSessionsEnd(t *testing.T) {
	f := start(t, Options{})
	hdr := map[string]string{"Authorization": "Bearer " + testToken, "Content-Type": "application/json", "Accept": "application/json, text/event-stream",
		"Mcp-Session-Id": "mcp-session-00000000-0000-4000-8000-000000000000", "Mcp-Protocol-Version": "2025-06-18"}
	if status, body := raw(t, http.MethodPost, f.url, "", hdr, strings.NewReader(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)); status != http.StatusNotFound {
		t.Fatalf("an unknown session: %d %q, want 404", status, body)
	}
	req, _ := http.NewRequest(http.MethodPost, f.url, strings.NewReader(initBody))
	for k, v := range hdr {
		if k != "Mcp-Session-Id" {
			req.Header.Set(k, v)
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	id := resp.Header.Get("Mcp-Session-Id")
	if id == "" {
		t.Fatal("initialize gave no session id")
	}
	hdr["Mcp-Session-Id"] = id
	if status, body := raw(t, http.MethodPost, f.url, "", hdr, strings.NewReader(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)); status != 200 {
		t.Fatalf("the session's tools/list: %d %q", status, body)
	}
	if status, _ := raw(t, http.MethodDelete, f.url, "", hdr, nil); status != 200 {
		t.Fatalf("DELETE of the session: %d", status)
	}
	if status, _ := raw(t, http.MethodPost, f.url, "", hdr, strings.NewReader(`{"jsonrpc":"2.0","id":3,"method":"tools/list"}`)); status != http.StatusNotFound {
		t.Fatalf("the ended session: %d, want 404", status)
	}
}

// A connection from another OS user's program is answered 403 before its
// request is read, even with the token (as on the other ports).
func TestAnotherUsersConnectionRefused(t *testing.T) {
	f := start(t, Options{PeerUID: func(string, string) (int, bool) { return 4242, true }, UID: 1000})
	hdr := map[string]string{"Authorization": "Bearer " + testToken, "Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
	// A raw connection: the answer comes before the request is read, so an
	// http.Client may see it before it has written (an "unsolicited
	// response").
	c, err := net.Dial("tcp", strings.TrimSuffix(strings.TrimPrefix(f.url, "http://"), "/mcp"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", testToken, len(initBody), initBody)
	c.SetReadDeadline(time.Now().Add(20 * time.Second))
	br := bufio.NewReader(c)
	status, _ := br.ReadString('\n')
	if !strings.HasPrefix(status, "HTTP/1.1 403") {
		t.Fatalf("another user's connection got %q, want 403", status)
	}
	if rest, _ := io.ReadAll(br); !strings.Contains(string(rest), "another user") {
		t.Fatalf("the 403 does not say why: %q", rest)
	}
	// Root, and connections it cannot attribute, go on to the token.
	g := start(t, Options{PeerUID: func(string, string) (int, bool) { return 0, true }, UID: 1000})
	if status, body := raw(t, http.MethodPost, g.url, "", hdr, strings.NewReader(initBody)); status != 200 {
		t.Fatalf("root's connection: %d %q, want 200", status, body)
	}
}

// TestStatusNamesTheClients (issue 45): the endpoint's status, which
// doctor shows, lists each connected AI app by the name it gave, with its
// tool calls, and drops it when its session ends.
func TestStatusNamesTheClients(t *testing.T) {
	f := start(t, Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	a := f.connect(t, "claude-code", "", true)
	b := f.connect(t, "Some Agent", "", true)
	for range 2 {
		if _, err := callText(t, ctx, a, "browser_snapshot", map[string]any{"tab": 1}); err != nil {
			t.Fatal(err)
		}
		<-f.call.started
	}
	st := f.ep.Status()
	if st.URL != f.url || st.PID != os.Getpid() || len(st.Clients) != 2 {
		t.Fatalf("status %+v", st)
	}
	calls := map[string]int{}
	for _, c := range st.Clients {
		calls[c.Name] = c.Calls
		if c.Since == 0 {
			t.Errorf("%s has no since", c.Name)
		}
	}
	if calls["Claude Code"] != 2 || calls["Some Agent"] != 0 {
		t.Fatalf("clients %+v, want Claude Code with 2 calls and Some Agent with none", st.Clients)
	}
	// The session's DELETE (sent by hand: mcp-go's client sends its own
	// without the Authorization header, refused 401) is answered once
	// mcp-go has unregistered the session.
	hdr := map[string]string{"Authorization": "Bearer " + testToken, "Mcp-Session-Id": b.GetSessionId(), "Mcp-Protocol-Version": mcp.LATEST_LEGACY_PROTOCOL_VERSION}
	if status, body := raw(t, http.MethodDelete, f.url, "", hdr, nil); status != http.StatusOK {
		t.Fatalf("DELETE of Some Agent's session: %d %q", status, body)
	}
	if st := f.ep.Status(); len(st.Clients) != 1 || st.Clients[0].Name != "Claude Code" {
		t.Fatalf("after Some Agent closed: %+v", st.Clients)
	}
}
