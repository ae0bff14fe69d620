package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/monkbrowse/monkbrowse/protocol"
	"github.com/monkbrowse/monkbrowse/server/internal/fakeext"
)

// These tests build the real binary and drive it as an AI app would: over
// stdio with mcp-go's client, against the fake extension on a real socket.

var binPath string

const watchdog = 30 * time.Second

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "monkbrowse-e2e")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binPath = filepath.Join(dir, "monkbrowse")
	build := exec.Command("go", "build", "-o", binPath, ".")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building monkbrowse:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// proc is a running monkbrowse driven through mcp-go's stdio client.
type proc struct {
	c      *client.Client
	extURL string
	home   string // where its pairing secret is
	stderr *syncBuffer
}

// syncBuffer collects a process's stderr. Its writes are the events a test
// of another process can wait for (waitFor): no polling.
type syncBuffer struct {
	mu      sync.Mutex
	b       strings.Builder
	changed chan struct{} // closed and replaced at the next Write; nil while no one waits
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.changed != nil {
		close(s.changed)
		s.changed = nil
	}
	return s.b.Write(p)
}

// waitFor waits until has(the text so far) is true, re-checking it after
// every write. It reports false if the watchdog ran out first.
func (s *syncBuffer) waitFor(has func(string) bool) bool {
	deadline := time.NewTimer(watchdog)
	defer deadline.Stop()
	for {
		s.mu.Lock()
		ok := has(s.b.String())
		if !ok && s.changed == nil {
			s.changed = make(chan struct{})
		}
		changed := s.changed
		s.mu.Unlock()
		if ok {
			return true
		}
		select {
		case <-changed:
		case <-deadline.C:
			return false
		}
	}
}

// waitForText waits until the text holds substr (false: the watchdog ran
// out first).
func (s *syncBuffer) waitForText(substr string) bool {
	return s.waitFor(func(text string) bool { return strings.Contains(text, substr) })
}

// Len is how many bytes were written so far.
func (s *syncBuffer) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Len()
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// startProc runs monkbrowse --port 0 and learns the port from its log.
func startProc(t *testing.T, legacy bool, args ...string) *proc {
	t.Helper()
	return startProcWith(t, procOptions{legacy: legacy, args: args})
}

// procOptions varies startProc: processes that share home and controlPort
// form one shared daemon (the first is the owner); roots, when set, are the
// MCP client's roots (the client then declares the roots capability).
type procOptions struct {
	legacy      bool
	home        string
	controlPort int
	roots       *clientRoots
	forwarder   bool // do not wait for the extension port (a forwarder has none)
	args        []string
}

// clientRoots is an MCP client's roots, changeable during a test.
type clientRoots struct {
	mu   sync.Mutex
	uris []string
	asks int
}

func (r *clientRoots) set(uris ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.uris = uris
}

func (r *clientRoots) ListRoots(context.Context, mcp.ListRootsRequest) (*mcp.ListRootsResult, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.asks++
	res := &mcp.ListRootsResult{Roots: []mcp.Root{}}
	for _, u := range r.uris {
		res.Roots = append(res.Roots, mcp.Root{URI: u, Name: filepath.Base(u)})
	}
	return res, nil
}

func startProcWith(t *testing.T, o procOptions) *proc {
	t.Helper()
	legacy, args := o.legacy, o.args
	pr, pw := io.Pipe()
	p := &proc{stderr: &syncBuffer{}}
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			line := sc.Text()
			p.stderr.Write([]byte(line + "\n"))
			var l struct{ Addr, Message string }
			if json.Unmarshal([]byte(line), &l) == nil && l.Addr != "" {
				select {
				case addr <- l.Addr:
				default:
				}
			}
		}
	}()
	// Every process gets its own control port and home (for the control
	// token), so tests never meet a real monkbrowse or each other.
	if o.home == "" {
		o.home = t.TempDir()
	}
	if o.controlPort == 0 {
		o.controlPort = freePort(t)
	}
	p.home = o.home
	env := []string{"HOME=" + o.home}
	base := []string{"--port", "0", "--control-port", strconv.Itoa(o.controlPort), "--log-level", "debug"}
	tr := transport.NewStdioWithOptions(binPath, env, append(base, args...),
		transport.WithCommandStderrWriter(pw))
	if err := tr.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	var opts []client.ClientOption
	if legacy {
		//lint:ignore SA1019 the MCP clients AI apps ship today still say initialize; we test that handshake on purpose
		opts = append(opts, client.WithLegacyProtocolOnly())
	}
	if o.roots != nil {
		opts = append(opts, client.WithRootsHandler(o.roots))
	}
	p.c = client.NewClient(tr, opts...)
	// Start (the transport has started already) installs the handler of the
	// server's requests, such as roots/list.
	if err := p.c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		p.c.Close()
		pw.Close()
		if t.Failed() {
			t.Logf("monkbrowse stderr:\n%s", p.stderr.String())
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), watchdog)
	defer cancel()
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "e2e", Version: "1"}
	res, err := p.c.Initialize(ctx, init)
	if err != nil {
		t.Fatalf("initialize: %v", err)
	}
	if res.ServerInfo.Name != "monkbrowse" || !strings.Contains(res.Instructions, "browser_list_tabs") {
		t.Fatalf("initialize result %+v", res)
	}
	if o.forwarder {
		return p
	}
	select {
	case a := <-addr:
		p.extURL = "ws://" + a + "/"
	case <-time.After(watchdog):
		t.Fatalf("watchdog: no listening line on stderr:\n%s", p.stderr.String())
	}
	return p
}

// freePort returns a port the system chose as free just now.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

func (p *proc) connect(t *testing.T, opts fakeext.Options) *fakeext.Ext {
	t.Helper()
	opts.URL = p.extURL
	if opts.Home == "" && opts.Secret == "" {
		opts.Home = p.home
	}
	ctx, cancel := context.WithTimeout(context.Background(), watchdog)
	defer cancel()
	logged := p.stderr.Len()
	e, err := fakeext.Connect(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	// The owner logs "extension connected" once the profile is its
	// connection (after the ack the fake has seen): wait for that line,
	// logged after this Connect began, then the profile must be listed.
	profile := fmt.Sprintf(`"profile":%q`, e.Ack().AssignedSlug)
	if !p.stderr.waitFor(func(text string) bool {
		for _, l := range strings.Split(text[logged:], "\n") {
			if strings.Contains(l, `"message":"extension connected"`) && strings.Contains(l, profile) {
				return true
			}
		}
		return false
	}) {
		t.Fatalf("watchdog: the owner never logged the profile %s as connected", profile)
	}
	r := p.call(t, "browser_list_tabs", nil)
	if !strings.Contains(resultText(r), fmt.Sprintf("%q (", e.Ack().AssignedSlug)) || !strings.Contains(resultText(r), "connected)") {
		t.Fatalf("the connected profile is not listed as connected: %s", resultText(r))
	}
	return e
}

func (p *proc) call(t *testing.T, name string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), watchdog)
	defer cancel()
	req := mcp.CallToolRequest{}
	req.Params.Name = name
	if args != nil {
		req.Params.Arguments = args
	}
	res, err := p.c.CallTool(ctx, req)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res
}

func resultText(r *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range r.Content {
		if tc, ok := c.(mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func ok(t *testing.T, r *mcp.CallToolResult, want ...string) string {
	t.Helper()
	s := resultText(r)
	if r.IsError {
		t.Fatalf("tool error: %s", s)
	}
	for _, w := range want {
		if !strings.Contains(s, w) {
			t.Errorf("result lacks %q:\n%s", w, s)
		}
	}
	return s
}

func e2eTabs() []fakeext.Tab {
	return []fakeext.Tab{
		{ID: 101, WindowID: 1, Shared: true, Slot: 1, Active: true, URL: "https://a.example/"},
		{ID: 102, WindowID: 1, Shared: true, Slot: 2, URL: "https://b.example/"},
		{ID: 103, WindowID: 1, URL: "https://private.example/"},
	}
}

func TestToolsList(t *testing.T) {
	p := startProc(t, true)
	ctx, cancel := context.WithTimeout(context.Background(), watchdog)
	defer cancel()
	res, err := p.c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Tools) != coreTools() {
		t.Fatalf("%d tools, want the %d core tools (no --caps)", len(res.Tools), coreTools())
	}
	byName := map[string]mcp.Tool{}
	for _, tool := range res.Tools {
		byName[tool.Name] = tool
	}
	for _, want := range protocol.Tools {
		if want.Cap != "" {
			continue
		}
		tool := byName[want.Name]
		if tool.Name != want.Name || tool.Title != want.Title || tool.InputSchema.Type != "object" {
			t.Errorf("tool %s: %s %q %+v", want.Name, tool.Name, tool.Title, tool.InputSchema)
		}
		// Hints left out mean MCP's defaults: not read-only,
		// destructive (for a tool that is not read-only), not
		// idempotent, open world.
		hint := func(p *bool, def bool) bool {
			if p == nil {
				return def
			}
			return *p
		}
		an := tool.Annotations
		if hint(an.ReadOnlyHint, false) != want.ReadOnly ||
			(!want.ReadOnly && hint(an.DestructiveHint, true) != want.Destructive) ||
			hint(an.IdempotentHint, false) != want.Idempotent || hint(an.OpenWorldHint, true) != !want.LocalOnly {
			t.Errorf("%s: annotations %+v", tool.Name, tool.Annotations)
		}
	}
	click := byName["browser_click"]
	if click.Name != "browser_click" || click.InputSchema.Properties["ref"] == nil || len(click.InputSchema.Required) != 2 {
		t.Errorf("browser_click schema: %+v", click.InputSchema)
	}
}

func TestEveryToolEndToEnd(t *testing.T) {
	uploads := t.TempDir()
	p := startProc(t, true, "--upload-root", uploads)
	e := p.connect(t, fakeext.Options{Label: "Work", Tabs: e2eTabs()})

	ok(t, p.call(t, "browser_list_tabs", nil), `profile "work" (Work, connected)`, "tab 1 (active): Page https://a.example/", "tab 2: Page https://b.example/")
	ok(t, p.call(t, "browser_list_tabs", map[string]any{"profile": "wo"}), `profile "work"`, "tab 2")
	ok(t, p.call(t, "browser_snapshot", map[string]any{"tab": 1}), "- Page URL: https://a.example/", "- Page Title: Page https://a.example/", "```yaml\n- heading", "[ref=e4]")

	ok(t, p.call(t, "browser_navigate", map[string]any{"url": "b.example/x", "tab": 2, "profile": "work"}),
		`Navigated tab 2 of profile "work".`, "- Page URL: https://b.example/x")
	if tab, _ := e.Tab(102); tab.URL != "https://b.example/x" {
		t.Fatalf("navigate: %s", tab.URL)
	}
	ok(t, p.call(t, "browser_go_back", map[string]any{"tab": 2}), "Went back", "- Page URL: https://b.example/\n")
	ok(t, p.call(t, "browser_go_forward", map[string]any{"tab": 2}), "Went forward", "- Page URL: https://b.example/x")
	ok(t, p.call(t, "browser_reload", map[string]any{"tab": 2}), "Reloaded tab 2")
	if e.Page(102).Reloads != 1 {
		t.Fatal("reload did not reach the page")
	}

	ok(t, p.call(t, "browser_get_text", map[string]any{"ref": "e3", "element": "Go button"}), "Go")
	shot := p.call(t, "browser_screenshot", nil)
	var img *mcp.ImageContent
	for _, c := range shot.Content {
		if ic, isImg := c.(mcp.ImageContent); isImg {
			img = &ic
		}
	}
	if shot.IsError || img == nil || img.MIMEType != "image/png" || img.Data != fakeext.ScreenshotPNG() {
		t.Fatalf("screenshot: %+v", shot)
	}
	ok(t, p.call(t, "browser_get_console_logs", nil), "[log] loaded https://a.example/")
	ok(t, p.call(t, "browser_evaluate", map[string]any{"expression": "document.title"}), `"Page https://a.example/"`)

	ok(t, p.call(t, "browser_click", map[string]any{"element": "Remember me", "ref": "e4"}), "Clicked", `checkbox "Remember me" [checked] [ref=e4]`)
	ok(t, p.call(t, "browser_hover", map[string]any{"element": "Go", "ref": "e3"}), "Hovered over")
	ok(t, p.call(t, "browser_type", map[string]any{"element": "Search", "ref": "e2", "text": "hello", "submit": true}), `Typed "hello"`, "pressed Enter", `textbox "Search" [ref=e2]: hello`)
	ok(t, p.call(t, "browser_select_option", map[string]any{"element": "Color", "ref": "e6", "values": []string{"blue"}}), `Selected "blue"`, "[ref=e6]: blue")
	ok(t, p.call(t, "browser_press_key", map[string]any{"key": "Ctrl+A"}), "Pressed Ctrl+A")
	ok(t, p.call(t, "browser_scroll", map[string]any{"direction": "down", "amount": 300}), "Scrolled down by 300 pixels")
	ok(t, p.call(t, "browser_drag", map[string]any{"startElement": "Go", "startRef": "e3", "endElement": "Search", "endRef": "e2"}), "Dragged")

	file := filepath.Join(uploads, "report.txt")
	os.WriteFile(file, []byte("quarterly numbers"), 0o600)
	ok(t, p.call(t, "browser_upload_file", map[string]any{"element": "Attachment", "ref": "e7", "path": file}), "Put report.txt (17 bytes)", "[ref=e7]: report.txt")

	page := e.Page(101)
	el := func(ref string) fakeext.Element { x, _ := page.Element(ref); return *x }
	switch {
	case !el("e4").Checked, page.Hovered != "e3", el("e2").Value != "hello",
		strings.Join(page.Keys, ",") != "Enter,Ctrl+A", el("e6").Selected[0] != "blue", page.ScrollY != 300,
		len(page.Drags) != 1 || page.Drags[0] != [2]string{"e3", "e2"},
		len(el("e7").Files) != 1 || string(el("e7").Files[0].Data) != "quarterly numbers":
		t.Fatalf("page state after the actions: %+v", page)
	}

	ok(t, p.call(t, "browser_wait", map[string]any{"time": 0.01}), "Waited 10ms")
	gets := 0
	e.SetHook(func(_ context.Context, r fakeext.Request) error {
		if r.Type == protocol.MsgGetText {
			if gets++; gets == 3 {
				e.SetText(101, "Order confirmed")
			}
		}
		return nil
	})
	ok(t, p.call(t, "browser_wait", map[string]any{"text": "Order confirmed", "time": 20}), `The text "Order confirmed" appeared in tab 1`)
	e.SetHook(nil)
	if r := p.call(t, "browser_wait", map[string]any{"text": "never there", "time": 0.3}); !r.IsError || !strings.Contains(resultText(r), "did not appear") {
		t.Fatalf("wait for absent text: %s", resultText(r))
	}

	ok(t, p.call(t, "browser_switch_tab", map[string]any{"tab": 2}), "Tab 2 of profile \"work\" is now the active tab")
	if tab, _ := e.Tab(102); !tab.Active {
		t.Fatal("switch_tab did not activate tab 102")
	}
	ok(t, p.call(t, "browser_new_tab", map[string]any{"url": "https://c.example/"}), `Opened tab 3 in profile "work" at https://c.example/`, "tab=3")
	var newID int
	for _, tab := range e.Tabs() {
		if tab.URL == "https://c.example/" && tab.Shared && tab.Slot == 3 {
			newID = tab.ID
		}
	}
	if newID == 0 {
		t.Fatalf("new tab missing: %+v", e.Tabs())
	}
	ok(t, p.call(t, "browser_close_tab", map[string]any{"tab": 3}), "Closed tab 3")
	if _, exists := e.Tab(newID); exists {
		t.Fatal("close_tab left the tab open")
	}

	// The unshared tab 103 never received anything.
	if n := len(e.Order(103)); n != 0 {
		t.Fatalf("unshared tab got %d requests", n)
	}
}

func TestInvalidArgumentsNameTheField(t *testing.T) {
	p := startProc(t, true)
	cases := map[string]map[string]any{
		`field "tab" must be an integer ≥ 1, got a string "2"`:  {"tab": "2"},
		`unknown field "colour"`:                                {"colour": "red"},
		`missing required field "ref"`:                          {"element": "Go"},
		`field "tab" must be at least 1, got 0`:                 {"tab": 0, "ref": "e1", "element": "x"},
		`field "direction" must be one of "up", "down", "left"`: {"direction": "diagonal"},
	}
	tools := map[string]string{
		`field "tab" must be an integer ≥ 1, got a string "2"`:  "browser_snapshot",
		`unknown field "colour"`:                                "browser_snapshot",
		`missing required field "ref"`:                          "browser_click",
		`field "tab" must be at least 1, got 0`:                 "browser_click",
		`field "direction" must be one of "up", "down", "left"`: "browser_scroll",
	}
	for want, args := range cases {
		r := p.call(t, tools[want], args)
		if !r.IsError || !strings.Contains(resultText(r), want) {
			t.Errorf("%s %v: %s", tools[want], args, resultText(r))
		}
	}
}

func TestParallelTabsOverlapSameTabSerialised(t *testing.T) {
	p := startProc(t, true)
	const n = 8 // above mcp-go's default worker pool of 5
	var tabs []fakeext.Tab
	for i := 1; i <= n; i++ {
		tabs = append(tabs, fakeext.Tab{ID: 100 + i, WindowID: 1, Shared: true, Slot: i, Active: i == 1, URL: fmt.Sprintf("https://t%d.example/", i)})
	}
	e := p.connect(t, fakeext.Options{Tabs: tabs})

	// n reads to n tabs must all be inside the extension at once.
	var mu sync.Mutex
	inside := 0
	all := make(chan struct{})
	e.SetHook(func(ctx context.Context, r fakeext.Request) error {
		if r.Type != protocol.MsgGetText {
			return nil
		}
		mu.Lock()
		if inside++; inside == n {
			close(all)
		}
		mu.Unlock()
		select {
		case <-all:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	})
	var wg sync.WaitGroup
	for i := 1; i <= n; i++ {
		wg.Add(1)
		go func() { defer wg.Done(); ok(t, p.call(t, "browser_get_text", map[string]any{"tab": i})) }()
	}
	wg.Wait()

	// Calls to one tab never overlap, and each press keeps its snapshot.
	busy := 0
	maxBusy := 0
	e.SetHook(func(ctx context.Context, r fakeext.Request) error {
		if r.TabID != 101 {
			return nil
		}
		mu.Lock()
		busy++
		maxBusy = max(maxBusy, busy)
		mu.Unlock()
		defer func() { mu.Lock(); busy--; mu.Unlock() }()
		return nil
	})
	for i := 0; i < 6; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ok(t, p.call(t, "browser_press_key", map[string]any{"key": "k" + strconv.Itoa(i), "tab": 1}))
		}()
	}
	wg.Wait()
	var order []string
	for _, typ := range e.Order(101) {
		if typ != protocol.MsgGetText {
			order = append(order, typ)
		}
	}
	if maxBusy != 1 || len(order) != 12 {
		t.Fatalf("max %d at once on one tab; order %v", maxBusy, order)
	}
	for i := 0; i < len(order); i += 2 {
		if order[i] != protocol.MsgPressKey || order[i+1] != protocol.MsgSnapshot {
			t.Fatalf("interleaved: %v", order)
		}
	}
}

func TestNewerClientProtocol(t *testing.T) {
	p := startProc(t, false)
	p.connect(t, fakeext.Options{})
	ok(t, p.call(t, "browser_snapshot", nil), "- Page URL: https://example.com/")
}

// coreTools is how many tools are listed without --caps.
func coreTools() int {
	n := 0
	for _, t := range protocol.Tools {
		if t.Cap == "" {
			n++
		}
	}
	return n
}
