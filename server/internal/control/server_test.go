package control

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/monkbrowse/monkbrowse/forwarder"
	"github.com/monkbrowse/monkbrowse/messaging"
	"github.com/monkbrowse/monkbrowse/messaging/wsconn"
	"github.com/monkbrowse/monkbrowse/protocol"
	"github.com/monkbrowse/monkbrowse/tools"
)

func watchdog(t *testing.T, d time.Duration) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// fakeCaller records calls; a call to "block" marks itself sent to the
// browser (as a real session does before its first wire request) and waits
// until release is closed; "unsent" waits without being sent.
type fakeCaller struct {
	mu      sync.Mutex
	calls   []string
	last    protocol.CallTool
	client  string // tools.ClientOf the last call's context
	started chan string
	release chan struct{}
}

func newFakeCaller() *fakeCaller {
	return &fakeCaller{started: make(chan string, 16), release: make(chan struct{})}
}

func (f *fakeCaller) CallTool(ctx context.Context, call protocol.CallTool) (protocol.CallToolResult, error) {
	name := call.Name
	f.mu.Lock()
	f.calls = append(f.calls, name+" "+string(call.Args))
	f.last = call
	f.client = tools.ClientOf(ctx)
	f.mu.Unlock()
	if name == "block" {
		_ = tools.MarkSent(ctx)
	}
	f.started <- name
	switch name {
	case "block", "unsent":
		select {
		case <-f.release:
		case <-ctx.Done():
			return protocol.CallToolResult{}, ctx.Err()
		}
	case "fail":
		return protocol.CallToolResult{}, errors.New("no browser profile is connected")
	case "leaving":
		return protocol.CallToolResult{}, ErrLeaving
	}
	return protocol.CallToolResult{Content: []protocol.ContentItem{{Type: "text", Text: "ran " + name}}}, nil
}

func (f *fakeCaller) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.calls)
}

type fixture struct {
	srv    *Server
	caller *fakeCaller
	port   int
	home   string
	token  string
	served chan error
}

func start(t *testing.T, opts ...func(*Config)) *fixture {
	t.Helper()
	home := t.TempDir()
	tok, _, err := WriteToken(home)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{caller: newFakeCaller(), port: ln.Addr().(*net.TCPAddr).Port, home: home, token: tok, served: make(chan error, 1)}
	cfg := Config{Token: tok, Caller: f.caller, ControlPort: f.port, HelloTimeout: 2 * time.Second,
		Profiles: func() []protocol.ProfileStatus {
			return []protocol.ProfileStatus{{ProfileID: "p1", Label: "Work", Slug: "work", Connected: true, Tabs: []protocol.TabInfo{{TabID: 7, Slot: 1}}}}
		},
		ExtensionPort: func() int { return 9333 }}
	for _, o := range opts {
		o(&cfg)
	}
	f.srv = New(cfg)
	go func() { f.served <- f.srv.Serve(ln) }()
	t.Cleanup(func() {
		f.srv.Close()
		<-f.served
	})
	return f
}

func (f *fixture) url() string { return "ws://127.0.0.1:" + strconv.Itoa(f.port) + "/" }

func (f *fixture) dial(t *testing.T, ctx context.Context) *forwarder.Client {
	t.Helper()
	c, err := forwarder.Dial(ctx, &forwarder.Options{Port: f.port, Home: f.home})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// rawPeer opens a control connection without saying fwd_hello.
func (f *fixture) rawPeer(t *testing.T, ctx context.Context) *messaging.Peer {
	t.Helper()
	ws, _, err := websocket.DefaultDialer.DialContext(ctx, f.url(), nil)
	if err != nil {
		t.Fatal(err)
	}
	p := messaging.NewPeer(wsconn.New(ws, nil), nil)
	p.Start()
	t.Cleanup(func() { p.Close() })
	return p
}

func TestOriginUpgradeRefused(t *testing.T) {
	ctx := watchdog(t, 10*time.Second)
	f := start(t)
	for _, origin := range []string{"https://evil.example", "chrome-extension://abcdefghijklmnop", "null"} {
		h := http.Header{"Origin": {origin}}
		_, resp, err := websocket.DefaultDialer.DialContext(ctx, f.url(), h)
		if err == nil {
			t.Fatalf("upgrade with Origin %q accepted", origin)
		}
		if resp == nil || resp.StatusCode != http.StatusForbidden {
			t.Fatalf("Origin %q: resp = %v, want 403", origin, resp)
		}
	}
	// Plain HTTP is not served either.
	resp, err := http.Get("http://127.0.0.1:" + strconv.Itoa(f.port) + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUpgradeRequired {
		t.Errorf("plain GET: %d, want 426", resp.StatusCode)
	}
	// And the owner still serves a real forwarder.
	c := f.dial(t, ctx)
	if res, err := c.CallTool(ctx, protocol.CallTool{Name: "browser_snapshot"}); err != nil || res.IsError {
		t.Fatalf("call after refused attempts: %+v, %v", res, err)
	}
}

// hello says fwd_hello with a fresh nonce and returns the ack and the nonce.
func hello(t *testing.T, ctx context.Context, p *messaging.Peer) (protocol.FwdHelloAck, string) {
	t.Helper()
	nonce := protocol.NewNonce()
	raw, err := p.Request(ctx, protocol.MsgFwdHello, protocol.FwdHello{PID: 4242, Version: protocol.Version, Nonce: nonce})
	if err != nil {
		t.Fatalf("fwd_hello: %v", err)
	}
	var ack protocol.FwdHelloAck
	if err := json.Unmarshal(raw, &ack); err != nil {
		t.Fatal(err)
	}
	return ack, nonce
}

// helloAck runs the whole proof with token on p: fwd_hello (checking the
// owner's proof against token only when want is set), then fwd_auth.
func helloAck(t *testing.T, ctx context.Context, p *messaging.Peer, token string) protocol.FwdAuthAck {
	t.Helper()
	ack, nonce := hello(t, ctx, p)
	if !ack.OK || ack.Auth != protocol.AuthScheme {
		t.Fatalf("fwd_hello ack = %+v", ack)
	}
	raw, err := p.Request(ctx, protocol.MsgFwdAuth, protocol.FwdAuth{Proof: protocol.Proof(token, protocol.ProofLabelForwarder, nonce, ack.Nonce)})
	if err != nil {
		t.Fatalf("fwd_auth: %v", err)
	}
	var auth protocol.FwdAuthAck
	if err := json.Unmarshal(raw, &auth); err != nil {
		t.Fatal(err)
	}
	return auth
}

func waitClosed(t *testing.T, p *messaging.Peer) {
	t.Helper()
	select {
	case <-p.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the owner did not close the socket after a rejected fwd_hello")
	}
}

func TestBadTokensRejectedAndClosed(t *testing.T) {
	ctx := watchdog(t, 20*time.Second)
	f := start(t)
	// The owner proves itself first, with the token it holds.
	p := f.rawPeer(t, ctx)
	ack, nonce := hello(t, ctx, p)
	if !ack.OK || !protocol.CheckProof(f.token, protocol.ProofLabelOwner, nonce, ack.Nonce, ack.Proof) {
		t.Fatalf("the owner's proof does not check out: %+v", ack)
	}
	for _, tc := range []struct{ name, token string }{
		{"wrong", strings.Repeat("0", 64)},
		{"wrong length", "abc"},
		{"missing", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := f.rawPeer(t, ctx)
			auth := helloAck(t, ctx, p, tc.token)
			if auth.OK || !strings.Contains(auth.Reason, "wrong control token") {
				t.Fatalf("ack = %+v, want rejected", auth)
			}
			waitClosed(t, p)
		})
	}
	// The owner's own proof reflected back is not the forwarder's.
	p = f.rawPeer(t, ctx)
	ack, _ = hello(t, ctx, p)
	raw, err := p.Request(ctx, protocol.MsgFwdAuth, protocol.FwdAuth{Proof: ack.Proof})
	if err != nil || !strings.Contains(string(raw), `"ok":false`) {
		t.Fatalf("reflected proof: %s, %v", raw, err)
	}
	waitClosed(t, p)
	// A malformed hello, and one without a nonce, are rejected too.
	for _, bad := range []string{`{"pid":"x"}`, `{"pid":1,"version":"0.3.0"}`, `{"pid":1,"version":"0.3.0","nonce":"abcd"}`} {
		p := f.rawPeer(t, ctx)
		raw, err := p.Request(ctx, protocol.MsgFwdHello, json.RawMessage(bad))
		if err != nil || !strings.Contains(string(raw), `"ok":false`) {
			t.Fatalf("malformed hello %s: %s, %v", bad, raw, err)
		}
		waitClosed(t, p)
	}
	if n := f.caller.count(); n != 0 {
		t.Fatalf("%d calls ran", n)
	}
	if fw := f.srv.Forwarders(); len(fw) != 0 {
		t.Fatalf("rejected connections listed as forwarders: %+v", fw)
	}
	// The owner keeps serving.
	c := f.dial(t, ctx)
	res, err := c.CallTool(ctx, protocol.CallTool{Name: "browser_list_tabs", Args: json.RawMessage(`{}`)})
	if err != nil || res.IsError || res.Content[0].Text != "ran browser_list_tabs" {
		t.Fatalf("call after rejected attempts: %+v, %v", res, err)
	}
}

// TestOlderForwarderToldToUpdate: a forwarder from before the proof sends
// the token in fwd_hello; the owner answers "update" and never accepts it,
// even with the right token.
func TestOlderForwarderToldToUpdate(t *testing.T) {
	ctx := watchdog(t, 10*time.Second)
	f := start(t)
	p := f.rawPeer(t, ctx)
	raw, err := p.Request(ctx, protocol.MsgFwdHello, protocol.LegacyFwdHello{PID: 777, Version: "0.3.0", Token: f.token})
	if err != nil {
		t.Fatal(err)
	}
	var ack protocol.FwdHelloAck
	if err := json.Unmarshal(raw, &ack); err != nil {
		t.Fatal(err)
	}
	if ack.OK || !strings.Contains(ack.Reason, "update: an AI app is running an older monkbrowse (version 0.3.0, pid 777)") {
		t.Fatalf("legacy hello: %+v", ack)
	}
	waitClosed(t, p)
	if len(f.srv.Forwarders()) != 0 {
		t.Fatal("a legacy hello was accepted")
	}
}

// TestUnprovenConnectionsBoundedAndCapped: until fwd_auth is accepted a
// connection stays in the pending cap (a correct fwd_hello does not release
// it) and may send frames of at most protocol.MaxUnprovenFrame; after the
// proof it leaves the cap and big frames (uploads) pass.
func TestUnprovenConnectionsBoundedAndCapped(t *testing.T) {
	ctx := watchdog(t, 20*time.Second)
	f := start(t)
	big := json.RawMessage(`{"data":"` + strings.Repeat("a", protocol.MaxUnprovenFrame) + `"}`)

	p := f.rawPeer(t, ctx)
	if ack, _ := hello(t, ctx, p); !ack.OK {
		t.Fatalf("hello: %+v", ack)
	}
	if n := f.srv.pending.Len(); n != 1 {
		t.Fatalf("after fwd_hello %d pending connections, want 1 (it has proven nothing yet)", n)
	}
	_, err := p.Request(ctx, protocol.MsgCallTool, protocol.CallTool{Name: "browser_snapshot", Args: big})
	if !errors.Is(err, messaging.ErrClosed) {
		t.Fatalf("a %d-byte frame before the proof: %v, want the connection closed", len(big), err)
	}
	waitClosed(t, p)
	// The owner's side of the closed connection leaves the cap when its own
	// close has run, which may be after the client saw the close.
	for {
		changed := f.srv.pending.Changed()
		if f.srv.pending.Len() == 0 {
			break
		}
		select {
		case <-changed:
		case <-ctx.Done():
			t.Fatalf("the closed connection never left the pending cap (%d pending)", f.srv.pending.Len())
		}
	}

	p = f.rawPeer(t, ctx)
	if auth := helloAck(t, ctx, p, f.token); !auth.OK {
		t.Fatalf("proof: %+v", auth)
	}
	if n := f.srv.pending.Len(); n != 0 {
		t.Fatalf("after the proof %d pending connections, want 0", n)
	}
	raw, err := p.Request(ctx, protocol.MsgCallTool, protocol.CallTool{Name: "browser_snapshot", Args: big})
	if err != nil || !strings.Contains(string(raw), "ran browser_snapshot") {
		t.Fatalf("a big call after the proof: %.100s, %v", raw, err)
	}
}

func TestForwarderDialWithWrongTokenFile(t *testing.T) {
	ctx := watchdog(t, 10*time.Second)
	f := start(t)
	other := t.TempDir()
	if _, _, err := WriteToken(other); err != nil {
		t.Fatal(err)
	}
	// With another token the owner's proof does not check out: the
	// forwarder refuses the owner before proving anything itself.
	_, err := forwarder.Dial(ctx, &forwarder.Options{Port: f.port, Home: other})
	var no *forwarder.NotOwnerError
	if !errors.As(err, &no) || !no.NotYours || !strings.Contains(err.Error(), "not your monkbrowse") {
		t.Fatalf("err = %v, want *NotOwnerError{NotYours}", err)
	}
	if len(f.srv.Forwarders()) != 0 {
		t.Fatal("a forwarder with another token was accepted")
	}
}

func TestCallToolBeforeHelloRefused(t *testing.T) {
	ctx := watchdog(t, 10*time.Second)
	f := start(t)
	p := f.rawPeer(t, ctx)
	for _, typ := range []string{protocol.MsgCallTool, protocol.MsgStatus} {
		_, err := p.Request(ctx, typ, protocol.CallTool{Name: "browser_click", Args: json.RawMessage(`{}`)})
		var re *messaging.RemoteError
		if !errors.As(err, &re) || !strings.Contains(re.Message, "fwd_hello") {
			t.Fatalf("%s before hello: err = %v, want a refusal that mentions fwd_hello", typ, err)
		}
	}
	if n := f.caller.count(); n != 0 {
		t.Fatalf("a call ran before fwd_hello")
	}
	// Between fwd_hello and fwd_auth calls are refused too.
	if ack, _ := hello(t, ctx, p); !ack.OK {
		t.Fatalf("hello: %+v", ack)
	}
	if _, err := p.Request(ctx, protocol.MsgCallTool, protocol.CallTool{Name: "browser_click", Args: json.RawMessage(`{}`)}); err == nil {
		t.Fatal("call_tool between fwd_hello and fwd_auth ran")
	}
	if n := f.caller.count(); n != 0 {
		t.Fatalf("a call ran before fwd_auth")
	}
	p = f.rawPeer(t, ctx)
	// A new connection can say hello, prove and then call.
	if ack := helloAck(t, ctx, p, f.token); !ack.OK {
		t.Fatalf("hello after refused call: %+v", ack)
	}
	raw, err := p.Request(ctx, protocol.MsgCallTool, protocol.CallTool{Name: "browser_click", Args: json.RawMessage(`{"ref":"e1"}`)})
	if err != nil || !strings.Contains(string(raw), "ran browser_click") {
		t.Fatalf("call after hello: %s, %v", raw, err)
	}
}

func TestHelloDeadline(t *testing.T) {
	ctx := watchdog(t, 10*time.Second)
	f := start(t) // HelloTimeout 2s
	p := f.rawPeer(t, ctx)
	select {
	case <-p.Done():
	case <-time.After(6 * time.Second):
		t.Fatal("a silent connection was not closed after the hello deadline")
	}
}

func TestCallToolRunsThroughCaller(t *testing.T) {
	ctx := watchdog(t, 10*time.Second)
	f := start(t)
	c := f.dial(t, ctx)
	// The forwarder's grants travel with the call; the Client it names is
	// not sent: the owner names the call after its connection.
	res, err := c.CallTool(ctx, protocol.CallTool{Name: "browser_navigate", Args: json.RawMessage(`{"url":"https://example.com/"}`),
		Grants: protocol.AppGrants{AllowFileURLs: true}})
	if err != nil || res.IsError || res.Content[0].Text != "ran browser_navigate" {
		t.Fatalf("CallTool = %+v, %v", res, err)
	}
	f.caller.mu.Lock()
	got, last, client := f.caller.calls[0], f.caller.last, f.caller.client
	f.caller.mu.Unlock()
	if got != `browser_navigate {"url":"https://example.com/"}` {
		t.Errorf("the caller got %q", got)
	}
	if want := fmt.Sprintf("forwarder pid %d", os.Getpid()); client != want || !last.Grants.AllowFileURLs || last.Grants.Upload != nil {
		t.Errorf("the caller got client %q and grants %+v; want %q and the forwarder's grants", client, last.Grants, want)
	}
	// A call without grants is allowed nothing.
	if _, err := c.CallTool(ctx, protocol.CallTool{Name: "browser_snapshot"}); err != nil {
		t.Fatal(err)
	}
	f.caller.mu.Lock()
	last = f.caller.last
	f.caller.mu.Unlock()
	if last.Grants != (protocol.AppGrants{}) {
		t.Errorf("a call without grants arrived with %+v", last.Grants)
	}
	// A Go error from the caller comes back as a tool error.
	res, err = c.CallTool(ctx, protocol.CallTool{Name: "fail"})
	if err != nil || !res.IsError || !strings.Contains(res.Content[0].Text, "no browser profile") {
		t.Fatalf("failing call = %+v, %v", res, err)
	}
	// The caller refusing while leaving means "not run": safe to repeat.
	_, err = c.CallTool(ctx, protocol.CallTool{Name: "leaving"})
	if !errors.Is(err, forwarder.ErrNotSent) {
		t.Fatalf("leaving call: err = %v, want ErrNotSent", err)
	}
}

func TestStatus(t *testing.T) {
	ctx := watchdog(t, 10*time.Second)
	f := start(t)
	a := f.dial(t, ctx)
	_ = f.dial(t, ctx)
	st, err := a.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Version != protocol.Version || st.OwnerPID == 0 || st.ControlPort != f.port || st.OwnerSince == 0 || st.ExtensionPort != 9333 {
		t.Errorf("status = %+v", st)
	}
	if len(st.Forwarders) != 1 {
		t.Errorf("status lists %d forwarders, want 1 (everyone but the asker): %+v", len(st.Forwarders), st.Forwarders)
	}
	if len(st.Profiles) != 1 || st.Profiles[0].Slug != "work" || len(st.Profiles[0].Tabs) != 1 {
		t.Errorf("profiles = %+v", st.Profiles)
	}
	if n := len(f.srv.Forwarders()); n != 2 {
		t.Errorf("Forwarders() = %d, want 2", n)
	}
}

func TestStopCallsAndLeave(t *testing.T) {
	ctx := watchdog(t, 15*time.Second)
	f := start(t)
	c := f.dial(t, ctx)
	// One call in flight when the owner starts leaving.
	type result struct {
		res protocol.CallToolResult
		err error
	}
	inflight := make(chan result, 1)
	go func() {
		res, err := c.CallTool(ctx, protocol.CallTool{Name: "block"})
		inflight <- result{res, err}
	}()
	if name := <-f.caller.started; name != "block" {
		t.Fatalf("started %s", name)
	}
	f.srv.StopCalls()
	// New calls are refused as not run.
	if _, err := c.CallTool(ctx, protocol.CallTool{Name: "browser_click"}); !errors.Is(err, forwarder.ErrNotSent) {
		t.Fatalf("call after StopCalls: err = %v, want ErrNotSent", err)
	}
	wctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	if n := f.srv.WaitCalls(wctx); n != 1 {
		t.Errorf("WaitCalls reported %d running, want 1", n)
	}
	cancel()
	close(f.caller.release)
	if r := <-inflight; r.err != nil || r.res.IsError {
		t.Fatalf("in-flight call: %+v, %v", r.res, r.err)
	}
	if n := f.srv.WaitCalls(ctx); n != 0 {
		t.Fatalf("WaitCalls = %d after the call ended", n)
	}
	f.srv.Leave(ctx)
	select {
	case <-c.Lost():
	case <-ctx.Done():
		t.Fatal("forwarder not told the owner left")
	}
	if r := c.LossReason(); r != forwarder.OwnerLeaving {
		t.Errorf("LossReason = %v, want owner leaving", r)
	}
	if err := <-f.served; !errors.Is(err, http.ErrServerClosed) {
		t.Errorf("Serve returned %v", err)
	}
	f.served <- http.ErrServerClosed // for the cleanup
	// The control port is free again.
	ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(f.port))
	if err != nil {
		t.Fatalf("the control port is still held after Leave: %v", err)
	}
	ln.Close()
	if _, err := c.CallTool(ctx, protocol.CallTool{Name: "browser_click"}); !errors.Is(err, forwarder.ErrNotSent) {
		t.Fatalf("call after owner_leaving: err = %v, want ErrNotSent", err)
	}
}

// An owner that dies while a call is in flight: the forwarder says the call
// may or may not have run (an *InterruptedError: the daemon repeats only
// tools that never change anything), and does not claim it was not sent.
func TestOwnerGoneMidCall(t *testing.T) {
	ctx := watchdog(t, 10*time.Second)
	f := start(t)
	c := f.dial(t, ctx)
	done := make(chan struct{})
	var res protocol.CallToolResult
	var err error
	go func() {
		defer close(done)
		res, err = c.CallTool(ctx, protocol.CallTool{Name: "block"})
	}()
	<-f.caller.started
	f.srv.Close()
	<-done
	var ie *forwarder.InterruptedError
	if !errors.As(err, &ie) || errors.Is(err, forwarder.ErrNotSent) || !strings.Contains(err.Error(), "may or may not have run") {
		t.Fatalf("in-flight call on a vanished owner = %+v, %v", res, err)
	}
	<-c.Lost()
	if r := c.LossReason(); r != forwarder.Disconnected {
		t.Errorf("LossReason = %v, want disconnected", r)
	}
}

// An owner that dies while a call waits before anything was sent to the
// browser: the forwarder knows (no call_sent came) and says it was not run.
func TestOwnerGoneBeforeSendingSaysNotRun(t *testing.T) {
	ctx := watchdog(t, 10*time.Second)
	f := start(t)
	c := f.dial(t, ctx)
	done := make(chan error, 1)
	go func() {
		_, err := c.CallTool(ctx, protocol.CallTool{Name: "unsent"})
		done <- err
	}()
	<-f.caller.started
	f.srv.Close()
	err := <-done
	var ie *forwarder.InterruptedError
	if !errors.As(err, &ie) || !ie.NotSent || !strings.Contains(err.Error(), "unsent was not run") {
		t.Fatalf("unsent call on a vanished owner: %v", err)
	}
}

func TestVersionDifferenceNotFatal(t *testing.T) {
	ctx := watchdog(t, 10*time.Second)
	f := start(t)
	c, err := forwarder.Dial(ctx, &forwarder.Options{Port: f.port, Home: f.home, Version: "0.2.9"})
	if err != nil {
		t.Fatalf("a forwarder of another version was refused: %v", err)
	}
	defer c.Close()
	if c.OwnerVersion() != protocol.Version {
		t.Errorf("OwnerVersion = %q", c.OwnerVersion())
	}
	if res, err := c.CallTool(ctx, protocol.CallTool{Name: "browser_snapshot"}); err != nil || res.IsError {
		t.Fatalf("call = %+v, %v", res, err)
	}
	if fw := f.srv.Forwarders(); len(fw) != 1 || fw[0].Version != "0.2.9" || fw[0].PID == 0 {
		t.Errorf("Forwarders() = %+v", fw)
	}
}

// TestRecordedAuthReplayedOnANewConnectionRefused (issue 40, finding 9): an
// eavesdropper records a whole, accepted proof exchange (the forwarder's
// nonce and its fwd_auth proof) and replays it on a new connection. The
// owner draws a new nonce for that connection, so the recorded proof does
// not fit and is refused; with one owner nonce per process it would be
// accepted.
func TestRecordedAuthReplayedOnANewConnectionRefused(t *testing.T) {
	ctx := watchdog(t, 10*time.Second)
	f := start(t)
	// The recorded exchange: a real forwarder's, accepted.
	p := f.rawPeer(t, ctx)
	ack, nonce := hello(t, ctx, p)
	if !ack.OK {
		t.Fatalf("fwd_hello: %+v", ack)
	}
	proof := protocol.Proof(f.token, protocol.ProofLabelForwarder, nonce, ack.Nonce)
	raw, err := p.Request(ctx, protocol.MsgFwdAuth, protocol.FwdAuth{Proof: proof})
	if err != nil || !strings.Contains(string(raw), `"ok":true`) {
		t.Fatalf("the recorded exchange itself: %s, %v", raw, err)
	}
	// The replay: same fwd_hello, same fwd_auth, on a new connection.
	r := f.rawPeer(t, ctx)
	raw, err = r.Request(ctx, protocol.MsgFwdHello, protocol.FwdHello{PID: 4242, Version: protocol.Version, Nonce: nonce})
	if err != nil {
		t.Fatal(err)
	}
	var ack2 protocol.FwdHelloAck
	if err := json.Unmarshal(raw, &ack2); err != nil || !ack2.OK {
		t.Fatalf("replayed fwd_hello: %s, %v", raw, err)
	}
	if ack2.Nonce == ack.Nonce {
		t.Errorf("the owner sent the same nonce on two connections (%s): its proofs can be replayed", ack.Nonce)
	}
	raw, err = r.Request(ctx, protocol.MsgFwdAuth, protocol.FwdAuth{Proof: proof})
	if err != nil {
		t.Fatal(err)
	}
	var auth protocol.FwdAuthAck
	if err := json.Unmarshal(raw, &auth); err != nil {
		t.Fatal(err)
	}
	if auth.OK || !strings.Contains(auth.Reason, "wrong control token") {
		t.Fatalf("a recorded fwd_auth replayed on a new connection was answered %+v, want refused", auth)
	}
	waitClosed(t, r)
	if n := len(f.srv.Forwarders()); n != 1 {
		t.Fatalf("%d forwarders listed, want only the recorded one", n)
	}
}
