package e2e

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/monkbrowse/monkbrowse/e2e/harness"
	"github.com/monkbrowse/monkbrowse/protocol"
)

// squatter is a program holding a port the extension may connect to: it
// answers the hello with a well-formed ack whose proof it cannot compute,
// and records every byte it receives.
type squatter struct {
	mu       sync.Mutex
	received []string
	port     int
	srv      *http.Server
}

func startSquatter(t *testing.T) *squatter {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	sq := &squatter{port: ln.Addr().(*net.TCPAddr).Port}
	up := websocket.Upgrader{CheckOrigin: func(*http.Request) bool { return true }}
	sq.srv = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ws, err := up.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer ws.Close()
		for {
			_, data, err := ws.ReadMessage()
			if err != nil {
				return
			}
			sq.mu.Lock()
			sq.received = append(sq.received, string(data))
			sq.mu.Unlock()
			var f struct {
				K, ID, Type string
			}
			if json.Unmarshal(data, &f) != nil {
				continue
			}
			switch {
			case f.K == "png":
				_ = ws.WriteMessage(websocket.TextMessage, []byte(`{"k":"pog"}`))
			case f.K == "req" && f.Type == protocol.MsgHello:
				ack, _ := json.Marshal(protocol.HelloAck{OK: true, Protocol: protocol.ProtocolVersion, ServerVersion: protocol.Version,
					Auth: protocol.AuthScheme, Nonce: protocol.NewNonce(), Proof: protocol.NewNonce()})
				_ = ws.WriteMessage(websocket.TextMessage, []byte(`{"k":"res","id":"`+f.ID+`","ok":true,"result":`+string(ack)+`}`))
				// And asks for the page at once, as a driver would.
				_ = ws.WriteMessage(websocket.TextMessage, []byte(`{"k":"req","id":"s1","type":"browser_snapshot","payload":{"tabId":1}}`))
			}
		}
	})}
	go func() { _ = sq.srv.Serve(ln) }()
	t.Cleanup(func() { _ = sq.srv.Close() })
	return sq
}

func (sq *squatter) all() string {
	sq.mu.Lock()
	defer sq.mu.Unlock()
	return strings.Join(sq.received, "\n")
}

// TestPairingRealExtension (issue 24): the real extension, given the
// pairing secret only through monkbrowse's native-messaging host (`monkbrowse
// install --native-host-only --browser-data-dir`), pairs and works; pointed
// at a program that cannot prove the pairing, it refuses it, says so in its
// status, and that program receives no tab URL or title, no profile, no
// answer to its request; an impostor extension with the pinned Origin and a
// seed-shaped profile is refused by the real server and never listed.
func TestPairingRealExtension(t *testing.T) {
	p := need(t)
	ctx := testContext(t, 2*time.Minute)
	port, _ := harness.FreePort()
	cport, _ := harness.FreePort()
	home := mkdir(t, p, "home-pairing")
	srv, err := harness.StartServer(ctx, harness.ServerConfig{Bin: p.bin, Port: port, ControlPort: cport, Home: home, Name: "owner-pairing", Log: logSink()})
	if err != nil {
		t.Fatal(err)
	}
	trackServer(srv)
	defer srv.Close()
	b, err := harness.Launch(ctx, harness.BrowserConfig{ExecPath: p.chromium, Monkbrowse: p.bin, Extension: p.ext, Output: logSink(), Name: "chromium-pairing"})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if err := b.SetSettings(ctx, port, "Paired"); err != nil {
		t.Fatal(err)
	}
	popup, err := b.OpenPopup(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer popup.Close()
	if _, err := popup.WaitConnected(ctx, port); err != nil {
		t.Fatalf("%v\nserver log:\n%s", err, harness.Tail(srv.Log(), 30))
	}
	fx := fixtures()
	url := fx.URL("/form.html?pairing=1")
	tab, err := b.NewTab(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer tab.Close()
	id, err := popup.ChromeTabIDByURL(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := popup.Share(ctx, id); err != nil {
		t.Fatal(err)
	}
	list, err := srv.Call(ctx, "browser_list_tabs", nil)
	if err != nil || list.IsError || !strings.Contains(list.Text, "Sign in fixture") {
		t.Fatalf("the paired extension's tab is not listed: %+v %v", list, err)
	}

	// An impostor: pinned Origin, a seed-shaped profile with a tab, no secret.
	ws, _, err := websocket.DefaultDialer.DialContext(ctx, "ws://127.0.0.1:"+itoa(port)+"/", http.Header{"Origin": {"chrome-extension://" + p.ext.ID}})
	if err != nil {
		t.Fatal(err)
	}
	ws.SetReadDeadline(time.Now().Add(30 * time.Second))
	nonce := protocol.NewNonce()
	hello, _ := json.Marshal(protocol.Hello{Protocol: protocol.ProtocolVersion, ExtVersion: protocol.Version, Nonce: nonce})
	ws.WriteMessage(websocket.TextMessage, []byte(`{"k":"req","id":"1","type":"hello","payload":`+string(hello)+`}`))
	var res struct {
		Result protocol.HelloAck `json:"result"`
	}
	if err := ws.ReadJSON(&res); err != nil || !res.Result.OK {
		t.Fatalf("impostor's hello: %+v %v", res, err)
	}
	auth, _ := json.Marshal(protocol.Auth{Proof: strings.Repeat("ab", 32), ProfileID: "work", Label: "work",
		Tabs: []protocol.TabInfo{{TabID: 5, Slot: 1, URL: "https://evil.example/upload", Title: "Upload your document here", Active: true, WindowID: 1}}})
	ws.WriteMessage(websocket.TextMessage, []byte(`{"k":"req","id":"2","type":"auth","payload":`+string(auth)+`}`))
	if err := ws.ReadJSON(&res); err != nil || res.Result.OK || !strings.Contains(res.Result.Reason, "could not prove it is paired") {
		t.Fatalf("impostor's auth: %+v %v", res, err)
	}
	if _, _, err := ws.ReadMessage(); err == nil {
		t.Fatal("the impostor's socket stayed open")
	}
	list, err = srv.Call(ctx, "browser_list_tabs", nil)
	if err != nil || strings.Contains(list.Text, "Upload your document") || strings.Contains(list.Text, "evil.example") {
		t.Fatalf("the impostor is listed: %+v %v", list, err)
	}
	if !strings.Contains(srv.Log(), "could not prove it is your monkbrowse extension") {
		t.Errorf("the server log does not name the unproven client:\n%s", harness.Tail(srv.Log(), 20))
	}

	// A squatter on another port: the extension refuses it.
	sq := startSquatter(t)
	if err := b.SetSettings(ctx, sq.port, "Paired"); err != nil {
		t.Fatal(err)
	}
	var st harness.ExtStatus
	for {
		st, err = popup.Status(ctx)
		if err == nil && st.Port == sq.port && st.State == "rejected" {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the extension never refused the squatter: %+v %v\nreceived: %s", st, err, sq.all())
		case <-time.After(100 * time.Millisecond):
		}
	}
	if !strings.Contains(st.Reason, "is not your monkbrowse (it could not prove the pairing)") {
		t.Errorf("status reason %q", st.Reason)
	}
	got := sq.all()
	if !strings.Contains(got, `"type":"hello"`) {
		t.Fatalf("the squatter saw no hello at all: %s", got)
	}
	for _, leak := range []string{"form.html", "pairing=1", "Sign in fixture", "Paired", `"type":"auth"`, "profileId", "s1"} {
		if strings.Contains(got, leak) {
			t.Errorf("the squatter received %q:\n%s", leak, got)
		}
	}
	// Every byte: each frame is a ping or a hello whose payload is exactly
	// protocol, extVersion and a nonce.
	sq.mu.Lock()
	frames := append([]string(nil), sq.received...)
	sq.mu.Unlock()
	for _, f := range frames {
		if err := onlyHelloOrPing(f); err != nil {
			t.Errorf("the squatter received a frame beyond a bare hello: %v: %s", err, f)
		}
	}

	// Back to the real server, then `monkbrowse pair --reset` where it
	// runs: the helper of this browser still knows only the old secret, so
	// the server disconnects the extension and the popup says how to pair.
	if err := b.SetSettings(ctx, port, "Paired"); err != nil {
		t.Fatal(err)
	}
	if _, err := popup.WaitConnected(ctx, port); err != nil {
		t.Fatalf("%v\nserver log:\n%s", err, harness.Tail(srv.Log(), 30))
	}
	runPair(t, ctx, p.bin, home, "--reset")
	for {
		st, err = popup.Status(ctx)
		if err == nil && st.Port == port && st.State == "rejected" && strings.Contains(st.Reason, "could not prove the pairing") {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the extension stayed paired after pair --reset: %+v %v\nserver log:\n%s", st, err, harness.Tail(srv.Log(), 30))
		case <-time.After(100 * time.Millisecond):
		}
	}
	if !strings.Contains(st.Reason, "run `monkbrowse install`") || !strings.Contains(st.Reason, "monkbrowse pair --reset") {
		t.Errorf("after the reset the popup says %q", st.Reason)
	}
}

// onlyHelloOrPing accepts a ping frame, or a hello request whose payload
// carries the current protocol, the extension's version and a nonce, and nothing
// else (no tab, label, profile or Chrome profile name).
func onlyHelloOrPing(frame string) error {
	var f map[string]json.RawMessage
	if err := json.Unmarshal([]byte(frame), &f); err != nil {
		return err
	}
	var k string
	_ = json.Unmarshal(f["k"], &k)
	if k == "png" && len(f) == 1 {
		return nil
	}
	var typ string
	_ = json.Unmarshal(f["type"], &typ)
	if k != "req" || typ != protocol.MsgHello || len(f) != 4 || f["id"] == nil {
		return fmt.Errorf("frame kind %q type %q with fields %d", k, typ, len(f))
	}
	var payload map[string]json.RawMessage
	if err := json.Unmarshal(f["payload"], &payload); err != nil {
		return err
	}
	var h protocol.Hello
	if err := json.Unmarshal(f["payload"], &h); err != nil {
		return err
	}
	if len(payload) != 3 || h.Protocol != protocol.ProtocolVersion || h.ExtVersion == "" || len(h.ExtVersion) > 20 {
		return fmt.Errorf("hello payload %s", f["payload"])
	}
	if _, err := protocol.DecodeNonce(h.Nonce); err != nil {
		return err
	}
	return nil
}
