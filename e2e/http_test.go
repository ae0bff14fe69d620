package e2e

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/monkbrowse/monkbrowse/e2e/harness"
)

// lineLog keeps a process's stderr and wakes those waiting for a line.
type lineLog struct {
	mu      sync.Mutex
	text    strings.Builder
	changed chan struct{}
}

func newLineLog() *lineLog { return &lineLog{changed: make(chan struct{})} }

func (l *lineLog) add(line string) {
	l.mu.Lock()
	l.text.WriteString(line + "\n")
	close(l.changed)
	l.changed = make(chan struct{})
	l.mu.Unlock()
}

func (l *lineLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.text.String()
}

// waitCount waits until sub occurs n times in the log.
func (l *lineLog) waitCount(ctx context.Context, t *testing.T, sub string, n int) {
	t.Helper()
	for {
		l.mu.Lock()
		got, ch := strings.Count(l.text.String(), sub), l.changed
		l.mu.Unlock()
		if got >= n {
			return
		}
		select {
		case <-ch:
		case <-ctx.Done():
			t.Fatalf("%q occurs %d times in the serve --http log, want %d:\n%s", sub, got, n, harness.Tail(l.String(), 30))
		}
	}
}

// startHTTPServe starts `monkbrowse serve --http ADDR` as a process of its
// own, as a person or a service manager does.
func startHTTPServe(ctx context.Context, t *testing.T, bin, home string, port, cport, hport int) (*exec.Cmd, *lineLog) {
	t.Helper()
	if err := harness.SeedPairing(home); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "serve", "--http", "127.0.0.1:"+strconv.Itoa(hport), "--port", strconv.Itoa(port),
		"--control-port", strconv.Itoa(cport), "--log-level", "debug", "--caps", "all")
	cmd.Env = append(os.Environ(), "HOME="+home)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	log := newLineLog()
	sink := logSink()
	go func() {
		sc := bufio.NewScanner(pipe)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			log.add(sc.Text())
			if sink != nil {
				fmt.Fprintf(sink, "[serve-http] %s\n", sc.Text())
			}
		}
	}()
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
		if t.Failed() {
			t.Logf("serve --http log:\n%s", harness.Tail(log.String(), 60))
		}
	})
	return cmd, log
}

// httpClient is an mcp-go streamable HTTP client named name.
func httpClient(ctx context.Context, t *testing.T, url, token, name string) *client.Client {
	t.Helper()
	tr, err := transport.NewStreamableHTTP(url, transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + token}))
	if err != nil {
		t.Fatal(err)
	}
	//lint:ignore SA1019 the MCP clients AI apps ship today still say initialize; we test that handshake on purpose
	c := client.NewClient(tr, client.WithLegacyProtocolOnly())
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: name, Version: "1"}
	if _, err := c.Initialize(ctx, init); err != nil {
		t.Fatalf("%s: initialize over HTTP: %v", name, err)
	}
	return c
}

func httpCall(ctx context.Context, c *client.Client, name string, args map[string]any) (string, bool, error) {
	req := mcp.CallToolRequest{}
	req.Params.Name = name
	req.Params.Arguments = args
	res, err := c.CallTool(ctx, req)
	if err != nil {
		return "", false, err
	}
	var b strings.Builder
	for _, ct := range res.Content {
		if tc, ok := ct.(mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String(), res.IsError, nil
}

// TestHTTPTransport (issue 45): `monkbrowse serve --http` is the owner;
// two AI apps over HTTP and one over stdio (a forwarder) drive the real
// extension at once. Calls to one tab never overlap and one app's calls run
// in the order it sent them; a call cancelled while it waits never runs; a
// page's fetch to the endpoint is refused; the serving process killed, the
// stdio app takes over.
func TestHTTPTransport(t *testing.T) {
	p := need(t)
	ctx := testContext(t, 3*time.Minute)
	fx := fixtures()
	port, _ := harness.FreePort()
	cport, _ := harness.FreePort()
	hport, _ := harness.FreePort()
	home := mkdir(t, p, "home-http")
	serve, slog := startHTTPServe(ctx, t, p.bin, home, port, cport, hport)
	slog.waitCount(ctx, t, "owner: serving the extension port", 1)
	slog.waitCount(ctx, t, "serving MCP over HTTP", 1)
	url := "http://127.0.0.1:" + strconv.Itoa(hport) + "/mcp"
	tokb, err := os.ReadFile(filepath.Join(home, ".monkbrowse", "http-token"))
	if err != nil {
		t.Fatal(err)
	}
	token := strings.TrimSpace(string(tokb))

	pr := launchProfile(ctx, t, p, "chromium-http", port, "http")
	pr.waitConnected(ctx, t, port)
	if err := pr.b.SetAllowJavaScript(ctx, true); err != nil {
		t.Fatal(err)
	}
	pr.shareFixture(ctx, t, fx, "/links3.html")

	one := httpClient(ctx, t, url, token, "HTTP App One")
	two := httpClient(ctx, t, url, token, "HTTP App Two")
	stdio, err := harness.StartServer(ctx, harness.ServerConfig{Bin: p.bin, Port: port, ControlPort: cport, Home: home, Name: "http-stdio", Log: logSink(), ClientName: "Stdio App"})
	if err != nil {
		t.Fatal(err)
	}
	trackServer(stdio)
	t.Cleanup(func() { _ = stdio.Close() })
	if out := okOn(ctx, t, stdio, "browser_list_tabs", nil); !strings.Contains(out, "Links three") {
		t.Fatalf("the stdio app (a forwarder of serve --http) does not see the shared tab: %s", out)
	}

	// Per-tab order and a cancel. App One's first evaluate holds the tab
	// until the test releases it; its second and third wait behind it in
	// the HTTP endpoint's FIFO; the third is cancelled while it waits.
	// App Two clicks and the stdio app reads the same tab meanwhile: the
	// page never has two calls at once.
	inc := ref(t, snapshotOn(ctx, t, stdio, map[string]any{"tab": pr.slot}), "button", "Increment")
	js[bool](ctx, t, pr.tab, "(window.entered = [], window.active = 0, window.maxActive = 0, true)")
	enter := func(mark string) string {
		return "window.active++; window.maxActive = Math.max(window.maxActive, window.active); window.entered.push('" + mark + "');"
	}
	hold := "new Promise(r => { " + enter("first") + " window.releaseFirst = () => { window.active--; r('first'); }; })"
	quick := func(mark string) string {
		return "(() => { " + enter(mark) + " window.active--; return '" + mark + "'; })()"
	}
	var wg sync.WaitGroup
	results := make(chan string, 8)
	callAsync := func(ctx context.Context, c *client.Client, who, tool string, args map[string]any) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out, isErr, err := httpCall(ctx, c, tool, args)
			results <- fmt.Sprintf("%s %s: %q isError=%v err=%v", who, tool, harness.Clip(out, 80), isErr, err)
		}()
	}
	callAsync(ctx, one, "one", "browser_evaluate", map[string]any{"expression": hold, "tab": pr.slot})
	waitJS(ctx, t, pr.tab, "window.entered.length === 1")
	callAsync(ctx, one, "one", "browser_evaluate", map[string]any{"expression": quick("second"), "tab": pr.slot})
	slog.waitCount(ctx, t, "a tool call over HTTP waits behind the running call on its tab", 1)
	cctx, cancelThird := context.WithCancel(ctx)
	callAsync(cctx, one, "one", "browser_evaluate", map[string]any{"expression": quick("third"), "tab": pr.slot})
	slog.waitCount(ctx, t, "a tool call over HTTP waits behind the running call on its tab", 2)
	cancelThird()
	slog.waitCount(ctx, t, "a waiting tool call over HTTP was cancelled: it will never run", 1)
	callAsync(ctx, two, "two", "browser_click", map[string]any{"element": "Increment", "ref": inc, "tab": pr.slot})
	wg.Add(1)
	go func() {
		defer wg.Done()
		res := callOn(ctx, t, stdio, "browser_get_text", map[string]any{"tab": pr.slot})
		results <- fmt.Sprintf("stdio browser_get_text: isError=%v %q", res.IsError, harness.Clip(res.Text, 80))
	}()
	js[bool](ctx, t, pr.tab, "(window.releaseFirst(), true)")
	wg.Wait()
	close(results)
	for r := range results {
		t.Log(r)
		if strings.Contains(r, "isError=true") || (strings.Contains(r, "err=") && !strings.Contains(r, "err=<nil>") && !strings.Contains(r, "context canceled")) {
			t.Errorf("a call failed: %s", r)
		}
	}
	if got := js[string](ctx, t, pr.tab, "window.entered.join(',')"); got != "first,second" {
		t.Errorf("the page saw %q, want first,second: App One's calls in the order sent, the cancelled third never run", got)
	}
	if m := js[int](ctx, t, pr.tab, "window.maxActive"); m != 1 {
		t.Errorf("%d calls ran on the tab at once, want 1", m)
	}
	waitJS(ctx, t, pr.tab, "document.getElementById('counter').textContent === '1'")

	// A web page's fetch to the endpoint: refused by the Origin guard
	// (a no-cors POST reaches the server; a fetch with the token is
	// stopped at its preflight), and nothing runs.
	got := js[string](ctx, t, pr.tab, `fetch(`+strconv.Quote(url)+`, {method: "POST", mode: "no-cors", headers: {"Content-Type": "text/plain"},
		body: JSON.stringify({jsonrpc: "2.0", id: 1, method: "tools/list"})}).then(r => r.type, e => "error: " + e)`)
	if got != "opaque" && !strings.HasPrefix(got, "error") {
		t.Errorf("the page's no-cors fetch: %q", got)
	}
	got = js[string](ctx, t, pr.tab, `fetch(`+strconv.Quote(url)+`, {method: "POST", headers: {"Content-Type": "application/json", "Authorization": "Bearer `+token+`"},
		body: JSON.stringify({jsonrpc: "2.0", id: 1, method: "tools/list"})}).then(r => "status " + r.status, e => "error: " + e)`)
	if !strings.HasPrefix(got, "error") {
		t.Errorf("the page's fetch with the token was answered (%s), want it refused", got)
	}
	slog.waitCount(ctx, t, "monkbrowse refuses requests from web pages", 2)
	// A rebinding Host, and no token.
	for _, c := range []struct {
		host, auth string
		want       int
	}{{"evil.example:" + strconv.Itoa(hport), "Bearer " + token, 403}, {"", "", 401}} {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		req.Header.Set("Content-Type", "application/json")
		if c.host != "" {
			req.Host = c.host
		}
		if c.auth != "" {
			req.Header.Set("Authorization", c.auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != c.want {
			t.Errorf("Host %q auth %v: %d %q, want %d", c.host, c.auth != "", resp.StatusCode, b, c.want)
		}
	}

	// A hand-off answered while its HTTP stream waits: App Two asks the
	// person; the popup names App Two; the person's click on Done in the
	// popup answers the same call.
	progress := make(chan struct{}, 64)
	two.OnNotification(func(n mcp.JSONRPCNotification) {
		if n.Method == "notifications/progress" {
			select {
			case progress <- struct{}{}:
			default:
			}
		}
	})
	asked := make(chan string, 1)
	go func() {
		req := mcp.CallToolRequest{}
		req.Params.Name = "browser_ask_user"
		req.Params.Arguments = map[string]any{"tab": pr.slot, "message": "Please check the counter, then press Done."}
		req.Params.Meta = &mcp.Meta{ProgressToken: "http-ask"}
		res, err := two.CallTool(ctx, req)
		if err != nil {
			asked <- "error: " + err.Error()
			return
		}
		var b strings.Builder
		for _, ct := range res.Content {
			if tc, ok := ct.(mcp.TextContent); ok {
				b.WriteString(tc.Text)
			}
		}
		asked <- b.String()
	}()
	waitJS(ctx, t, pr.tab, `!!document.querySelector('monkbrowse-ask')`)
	if err := pr.popup.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	waitJS(ctx, t, pr.popup.Tab, `!document.querySelector('#asks').hidden && document.querySelector('#ask-list').textContent.includes('HTTP App Two asks you')`)
	if err := pr.popup.Tab.Do(ctx, chromedp.Click(chromedp.CSS("#ask-list button.done"))); err != nil {
		t.Fatal(err)
	}
	if got := <-asked; !strings.Contains(got, "pressed Done (in the monkbrowse popup)") {
		t.Fatalf("App Two's browser_ask_user over HTTP: %s", got)
	}
	t.Logf("the hand-off over HTTP was answered in the same call (%d progress notifications meanwhile)", len(progress))

	// The serving process dies: the stdio app takes over and clicks.
	_ = serve.Process.Signal(syscall.SIGKILL)
	killed := time.Now()
	firstCallAfterHandover(ctx, t, stdio, pr.slot, killed, "serve --http was killed")
	okOn(ctx, t, stdio, "browser_click", map[string]any{"element": "Increment", "ref": ref(t, snapshotOn(ctx, t, stdio, map[string]any{"tab": pr.slot}), "button", "Increment"), "tab": pr.slot})
	waitJS(ctx, t, pr.tab, "document.getElementById('counter').textContent === '2'")
	t.Logf("the stdio app took over and clicked %s after serve --http was killed", time.Since(killed).Round(time.Millisecond))
}
