package netguard

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"time"
)

// The header limits of the two ports (issue 40: Go's default of 1 MiB let
// 600 slow connections take the owner to 1.4 GiB before any check ran).
// http.Server answers a request whose line and headers exceed the limit
// (plus 4 KiB of bufio slack Go adds) with 431 and closes it.
const (
	// ExtensionMaxHeaderBytes: a browser's WebSocket upgrade is under
	// 1 KiB, but Chrome adds the cookies it holds for 127.0.0.1 (shared
	// by every port of it), so the extension port allows 16 KiB, the
	// figure Node.js uses by default.
	ExtensionMaxHeaderBytes = 16 << 10
	// ControlMaxHeaderBytes: only monkbrowse's own forwarders speak on
	// the control port; their upgrade is about 250 bytes.
	ControlMaxHeaderBytes = 4 << 10
)

// DefaultMaxUnupgraded is how many connections per port may be sending
// their headers at once. Each holds at most its header limit plus Go's
// buffers (~32 KiB on the extension port), so 256 cost at most ~8 MiB; the
// cap is larger than the hello cap because a burst of real connections
// (an extension reconnecting while a flood runs) must not evict each other
// before their headers, sent at once, are read.
const DefaultMaxUnupgraded = 256

// Gate is what one of monkbrowse's ports does to a connection before any
// of its bytes is read (issue 40):
//
//   - it counts the connection against a cap of connections not yet
//     upgraded to a WebSocket (Pending: beyond the cap the oldest one is
//     closed, so a flood of slow headers holds at most the cap's worth of
//     header buffers and a real client, which sends its headers at once,
//     still gets through); the upgrade (http.StateHijacked) or the close
//     releases it, and the WebSocket's own hello cap takes over;
//   - before the first read it asks the OS whose program is at the other
//     end (PeerUID) and answers another user's with a 403 written at
//     once, without reading its request.
//
// Use it as the http.Server's listener (Listener) and ConnState hook, with
// MaxHeaderBytes set. Safe for concurrent use.
type Gate struct {
	port     string // "extension port", "control port": for the log
	pending  *Pending
	lookup   PeerUID
	self     int
	refusals *Refusals
}

// NewGate returns the gate of the port named port (for the log), capping
// max connections that have not been upgraded yet (0 or less:
// DefaultMaxUnupgraded). lookup attributes a connection to its OS user (nil:
// no check); self is our uid; refusals logs refused connections.
func NewGate(port string, max int, lookup PeerUID, self int, refusals *Refusals) *Gate {
	if max <= 0 {
		max = DefaultMaxUnupgraded
	}
	return &Gate{port: port, pending: NewPending(max), lookup: lookup, self: self, refusals: refusals}
}

// Listener wraps ln: every connection it accepts goes through the gate.
func (g *Gate) Listener(ln net.Listener) net.Listener { return &gateListener{Listener: ln, g: g} }

// ConnState is the http.Server's ConnState hook: an upgraded (hijacked) or
// closed connection leaves the cap.
func (g *Gate) ConnState(c net.Conn, s http.ConnState) {
	if s != http.StateHijacked && s != http.StateClosed {
		return
	}
	if gc, ok := c.(*gateConn); ok {
		gc.release()
	}
}

// Waiting is how many connections have not been upgraded yet.
func (g *Gate) Waiting() int { return g.pending.Len() }

// Evicted is how many connections were closed to make room.
func (g *Gate) Evicted() uint64 { return g.pending.Evicted() }

// Changed returns a channel closed at the next change of Waiting.
func (g *Gate) Changed() <-chan struct{} { return g.pending.Changed() }

type gateListener struct {
	net.Listener
	g *Gate
}

func (l *gateListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	gc := &gateConn{Conn: c, g: l.g}
	gc.release = l.g.pending.Add(func() { _ = c.Close() })
	return gc, nil
}

// gateConn is an accepted connection: its first Read runs the uid check
// (on the connection's own goroutine, not the accept loop: on Linux it
// reads /proc/net/tcp).
type gateConn struct {
	net.Conn
	g       *Gate
	release func()
	once    sync.Once
	refused bool // set once, under once
}

func (c *gateConn) Read(p []byte) (int, error) {
	c.once.Do(c.judge)
	if c.refused {
		return 0, io.EOF
	}
	return c.Conn.Read(p)
}

func (c *gateConn) Close() error {
	c.release()
	return c.Conn.Close()
}

// CloseWrite half-closes the TCP connection, as http.Server does after a
// 431 or a 400 so that the client reads the answer before the close.
func (c *gateConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

func (c *gateConn) judge() {
	msg, uid := PeerRefusal(c.g.lookup, c.g.self, c.RemoteAddr().String(), c.LocalAddr().String())
	if msg == "" {
		return
	}
	c.refused = true
	remote := c.RemoteAddr().String()
	c.g.refusals.Refused("refused a "+c.g.port+" connection from another user's program",
		func(e Fields) { e.Int("uid", uid).Str("remote", remote) })
	refuseRaw(c.Conn, msg)
}

// refuseRaw answers a connection whose request was never read with a 403
// carrying msg, then reads and drops what the peer sends (at most 64 KiB,
// for at most a second) so that closing does not reset the connection
// before the peer has read the answer.
func refuseRaw(c net.Conn, msg string) {
	body := msg + "\n"
	_ = c.SetWriteDeadline(time.Now().Add(time.Second))
	_, _ = fmt.Fprintf(c, "HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s", len(body), body)
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		_ = cw.CloseWrite()
	}
	_ = c.SetReadDeadline(time.Now().Add(time.Second))
	_, _ = io.CopyN(io.Discard, c, 64<<10)
}
