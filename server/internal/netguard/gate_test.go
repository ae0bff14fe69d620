package netguard

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

// serveGate serves h on 127.0.0.1 through g, as both ports do.
func serveGate(t *testing.T, g *Gate, h http.HandlerFunc) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h, MaxHeaderBytes: 4 << 10, ConnState: g.ConnState, ReadHeaderTimeout: time.Minute}
	done := make(chan struct{})
	go func() { defer close(done); _ = srv.Serve(g.Listener(ln)) }()
	t.Cleanup(func() { srv.Close(); <-done })
	return ln.Addr().String()
}

// slowHeader opens a connection that has sent the start of a request and
// nothing more, as a slow-header flood does.
func slowHeader(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if _, err := io.WriteString(c, "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Pad: "+strings.Repeat("a", 1000)); err != nil {
		t.Fatal(err)
	}
	return c
}

// closedByServer waits (watchdog 10 s) until the server closes c.
func closedByServer(t *testing.T, c net.Conn) {
	t.Helper()
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := c.Read(make([]byte, 1)); !errors.Is(err, io.EOF) && !isReset(err) {
		t.Fatalf("the server did not close the connection: %v", err)
	}
}

func isReset(err error) bool { return err != nil && strings.Contains(err.Error(), "reset") }

// waitWaiting waits until the gate's count is n, re-checking it at each
// change (Gate.Changed); the watchdog only turns a hang into a failure.
func waitWaiting(t *testing.T, g *Gate, n int) {
	t.Helper()
	watchdog := time.NewTimer(10 * time.Second)
	defer watchdog.Stop()
	for {
		changed := g.Changed()
		if g.Waiting() == n {
			return
		}
		select {
		case <-changed:
		case <-watchdog.C:
			t.Fatalf("watchdog: %d connections waiting for their upgrade, want %d", g.Waiting(), n)
		}
	}
}

// TestGateCapsConnectionsNotYetUpgraded (issue 40): with a cap of 3, a 4th
// connection still sending its headers closes the oldest; the count never
// exceeds the cap; an upgraded (hijacked) connection leaves it, and a
// closed one too.
func TestGateCapsConnectionsNotYetUpgraded(t *testing.T) {
	g := NewGate("test port", 3, nil, 0, NewRefusals(zerolog.Nop()))
	hijacked := make(chan net.Conn, 1)
	addr := serveGate(t, g, func(w http.ResponseWriter, r *http.Request) {
		c, _, err := http.NewResponseController(w).Hijack()
		if err != nil {
			t.Error(err)
			return
		}
		hijacked <- c
	})
	c1, c2, c3 := slowHeader(t, addr), slowHeader(t, addr), slowHeader(t, addr)
	waitWaiting(t, g, 3)
	c4 := slowHeader(t, addr)
	closedByServer(t, c1)
	waitWaiting(t, g, 3)
	if g.Evicted() != 1 {
		t.Fatalf("evicted %d, want 1", g.Evicted())
	}
	// The newer ones are still open: the server is still reading them.
	for i, c := range []net.Conn{c2, c3, c4} {
		_ = c.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
		var ne net.Error
		if _, err := c.Read(make([]byte, 1)); !errors.As(err, &ne) || !ne.Timeout() {
			t.Fatalf("connection %d: %v, want still open", i+2, err)
		}
	}
	// A request that finishes its headers and is upgraded leaves the cap
	// (and evicts the oldest on its way in: c2).
	up, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer up.Close()
	if _, err := io.WriteString(up, "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	sc := <-hijacked
	defer sc.Close()
	waitWaiting(t, g, 2)
	c3.Close()
	waitWaiting(t, g, 1)
}

// TestGateRefusesAnotherUserBeforeReading (issue 40): a connection the OS
// attributes to another user is answered 403 before the server reads a
// byte of it (the client has sent nothing), and no handler runs.
func TestGateRefusesAnotherUserBeforeReading(t *testing.T) {
	var ran atomic.Bool
	g := NewGate("test port", 0, func(remote, local string) (int, bool) { return 1001, true }, 1000, NewRefusals(zerolog.New(os.Stderr)))
	addr := serveGate(t, g, func(http.ResponseWriter, *http.Request) { ran.Store(true) })
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("no answer before the request was sent: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusForbidden || !strings.Contains(string(body), "another user of this computer (uid 1001)") {
		t.Fatalf("%s %q", resp.Status, body)
	}
	closedByServer(t, c)
	if ran.Load() {
		t.Fatal("the handler ran for another user's connection")
	}
	waitWaiting(t, g, 0)
}
