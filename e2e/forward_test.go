package e2e

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/monkbrowse/monkbrowse/e2e/harness"
)

// portForward is a TCP forward on loopback, as `ssh -L`, WSL's localhost
// forwarding or a container's published port give: connections to its own
// port are relayed to the target address byte for byte.
type portForward struct {
	ln      net.Listener
	target  string
	conns   atomic.Int64
	bytes   atomic.Int64
	wg      sync.WaitGroup
	mu      sync.Mutex
	pending []net.Conn
}

func startForward(t *testing.T, target string) *portForward {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &portForward{ln: ln, target: target}
	f.wg.Add(1)
	go f.accept()
	t.Cleanup(f.close)
	return f
}

func (f *portForward) port() int { return f.ln.Addr().(*net.TCPAddr).Port }

func (f *portForward) accept() {
	defer f.wg.Done()
	for {
		c, err := f.ln.Accept()
		if err != nil {
			return
		}
		up, err := net.Dial("tcp", f.target)
		if err != nil {
			c.Close()
			continue
		}
		f.conns.Add(1)
		f.mu.Lock()
		f.pending = append(f.pending, c, up)
		f.mu.Unlock()
		pipe := func(dst, src net.Conn) {
			defer f.wg.Done()
			n, _ := io.Copy(dst, src)
			f.bytes.Add(n)
			// Half-close as a forward does, then let the other side finish.
			if tc, ok := dst.(*net.TCPConn); ok {
				_ = tc.CloseWrite()
			}
		}
		f.wg.Add(2)
		go pipe(up, c)
		go pipe(c, up)
	}
}

func (f *portForward) close() {
	f.ln.Close()
	f.mu.Lock()
	for _, c := range f.pending {
		c.Close()
	}
	f.mu.Unlock()
	f.wg.Wait()
}

// upgrade sends a WebSocket upgrade request to addr with the given Host and
// Origin headers and returns the HTTP status of the answer.
func upgrade(ctx context.Context, addr, host, origin string) (int, error) {
	d := net.Dialer{Timeout: 5 * time.Second}
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return 0, err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	req := "GET / HTTP/1.1\r\nHost: " + host + "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
		"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
	if origin != "" {
		req += "Origin: " + origin + "\r\n"
	}
	if _, err := io.WriteString(c, req+"\r\n"); err != nil {
		return 0, err
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		return 0, err
	}
	resp.Body.Close()
	return resp.StatusCode, nil
}

// TestRemoteAppThroughPortForward: the AI app's monkbrowse runs "elsewhere"
// (WSL, a container, a remote machine) and listens on its own loopback; the
// desktop reaches it only through a port forward. The extension is set to
// the forward's port, connects through it, and the AI reads and drives a
// shared tab; a web page cannot use the forward, and the Host and Origin
// checks still hold for requests arriving through it.
func TestRemoteAppThroughPortForward(t *testing.T) {
	p := need(t)
	ctx := testContext(t, 3*time.Minute)
	fx := fixtures()
	port, _ := harness.FreePort()
	cport, _ := harness.FreePort()
	srv, err := harness.StartServer(ctx, harness.ServerConfig{
		Bin: p.bin, Port: port, ControlPort: cport, Home: mkdir(t, p, "home-forward"), Name: "remote-owner", Log: logSink(),
	})
	if err != nil {
		t.Fatal(err)
	}
	trackServer(srv)
	t.Cleanup(func() { _ = srv.Close() })

	fwd := startForward(t, net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if fwd.port() == port {
		t.Fatal("the forward must use another port")
	}
	pr := launchProfile(ctx, t, p, "chromium-forward", fwd.port(), "desktop")
	st := pr.waitConnected(ctx, t, fwd.port())
	if st.Port != fwd.port() {
		t.Fatalf("the extension reports port %d, want the forward's %d", st.Port, fwd.port())
	}
	if fwd.conns.Load() == 0 {
		t.Fatal("the extension is connected, but not through the forward")
	}
	pr.shareFixture(ctx, t, fx, "/links2.html")
	list := okOn(ctx, t, srv, "browser_list_tabs", nil)
	if !strings.Contains(list, "desktop") {
		t.Errorf("the desktop profile is not listed:\n%s", list)
	}
	if out := okOn(ctx, t, srv, "browser_get_text", map[string]any{"tab": pr.slot}); !strings.Contains(out, "You are on page two") {
		t.Errorf("the shared tab's text through the forward: %s", out)
	}
	if fwd.bytes.Load() == 0 {
		// Bytes are counted when a direction ends; the live connection
		// still carries them. Count at least the connection.
		t.Logf("forward: %d connection(s)", fwd.conns.Load())
	}

	// A web page (the fixture origin) trying the forwarded port is refused
	// by the Origin check, as on the server's own port.
	opened := js[string](ctx, t, pr.tab, fmt.Sprintf(`new Promise((resolve) => {
		const ws = new WebSocket("ws://127.0.0.1:%d/");
		ws.onopen = () => { resolve("open"); ws.close(); };
		ws.onerror = () => resolve("refused");
		setTimeout(() => resolve("timeout"), 8000);
	})`, fwd.port()))
	if opened != "refused" {
		t.Errorf("a web page's WebSocket through the forward: %s, want refused", opened)
	}

	// The same checks on raw upgrades through the forward: the extension's
	// origin with the forward's loopback Host is accepted (the Host port is
	// the forward's, not the server's), a foreign origin is not.
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(fwd.port()))
	host := addr
	if code, err := upgrade(ctx, addr, host, "chrome-extension://"+p.ext.ID); err != nil || code != http.StatusSwitchingProtocols {
		t.Errorf("the extension's upgrade through the forward: status %d, %v; want 101", code, err)
	}
	if code, err := upgrade(ctx, addr, "localhost:"+strconv.Itoa(fwd.port()), "chrome-extension://"+p.ext.ID); err != nil || code != http.StatusSwitchingProtocols {
		t.Errorf("Host localhost:<forward port>: status %d, %v; want 101", code, err)
	}
	// DNS rebinding through the forward: a foreign Host is refused even
	// with the extension's origin.
	if code, err := upgrade(ctx, addr, "evil.example:"+strconv.Itoa(fwd.port()), "chrome-extension://"+p.ext.ID); err == nil && code == http.StatusSwitchingProtocols {
		t.Errorf("a foreign Host was accepted through the forward")
	}
	for _, origin := range []string{"https://evil.example", fx.Origin()} {
		code, err := upgrade(ctx, addr, host, origin)
		if err != nil && !errors.Is(err, io.EOF) {
			t.Errorf("origin %s: %v", origin, err)
			continue
		}
		if code == http.StatusSwitchingProtocols {
			t.Errorf("origin %s was accepted through the forward", origin)
		}
	}
	// The extension stays connected through all of that.
	if _, err := pr.popup.WaitConnected(ctx, fwd.port()); err != nil {
		t.Errorf("after the refused attempts: %v", err)
	}
}
