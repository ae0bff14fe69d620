// Package httpmcp serves monkbrowse's MCP endpoint over the streamable HTTP
// transport (issue 45): `monkbrowse serve --http`, for AI apps that cannot
// start a process where Chrome runs (a container, WSL, another session).
//
// It is a guard in front of mark3labs/mcp-go's StreamableHTTPServer, which
// serves the same mcpserver.Server as stdio (same tools, caps, progress,
// app names, the daemon's Caller). Every request passes, in this order:
//
//  1. the connection caps (connLimit): before a byte is read, a cap of
//     connections without the token that closes the oldest; after the
//     token, a cap of AI app connections; and at the first read, another
//     OS user's program answered 403 (netguard.PeerRefusal);
//  2. net/http's header bound (MaxHeaderBytes) and header timeout;
//  3. no Origin header (a web page's fetch has one): 403;
//  4. a Host this endpoint answers to (DNS rebinding): 403;
//  5. the path /mcp: 404;
//  6. the bearer token, compared in constant time: 401;
//  7. the body, read under http.MaxBytesReader: 413;
//  8. per-tab order: mcp-go hands each tools/call to the server's tool
//     handler, which takes the call's turn in the server's one per-tab
//     order (mcpserver's order.go, scoped to the MCP session), as over
//     stdio; a call whose request ends, or that is cancelled, while it
//     waits never runs.
//
// Nothing before step 6 reads the body or keeps state per request, so an
// unauthenticated flood costs a bounded number of connections with
// bounded headers.
package httpmcp

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	stdlog "log"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/server"
	"github.com/rs/zerolog"

	"github.com/monkbrowse/monkbrowse/protocol"
	"github.com/monkbrowse/monkbrowse/server/internal/mcpserver"
	"github.com/monkbrowse/monkbrowse/server/internal/netguard"
	"github.com/monkbrowse/monkbrowse/server/internal/portholder"
)

// DefaultAddr is where `monkbrowse serve --http` listens by default.
const DefaultAddr = "127.0.0.1:9220"

// Realm is the WWW-Authenticate header of a 401 (doctor recognises
// monkbrowse by it).
const Realm = `Bearer realm="monkbrowse"`

// Path is the MCP endpoint's path.
const Path = "/mcp"

// Defaults of Options' bounds.
const (
	DefaultMaxConns       = 64
	DefaultMaxHeaderBytes = 8 << 10
	DefaultMaxBody        = int64(mcpserver.MaxLine)
	DefaultSessionIdle    = 30 * time.Minute
	// headerTimeout bounds reading a request's headers: a client that
	// opens connections and sends nothing holds a slot this long at most.
	headerTimeout = 10 * time.Second
	// bodyTimeout bounds reading an authenticated request's body.
	bodyTimeout = 60 * time.Second
	idleTimeout = 2 * time.Minute
)

// Options configures an Endpoint. Zero fields are the defaults.
type Options struct {
	// Server is the MCP server to serve; required.
	Server *mcpserver.Server
	// Token returns the bearer token every request must carry; required.
	// It is called for each request, so a rotated token file takes effect
	// at once.
	Token func() (string, error)
	// Logger receives refusals and mcp-go's transport errors; nil discards.
	Logger *zerolog.Logger
	// MaxConns bounds the connections that have carried the token; a
	// request with the token beyond it is answered 503.
	MaxConns int
	// MaxPending bounds the connections that have not (yet) carried the
	// token: beyond it the oldest one is closed (netguard.Pending).
	MaxPending int
	// MaxHeaderBytes bounds a request's headers.
	MaxHeaderBytes int
	// MaxBody bounds an authenticated request's body.
	MaxBody int64
	// SessionIdle ends an MCP session (Mcp-Session-Id) idle this long.
	SessionIdle time.Duration
	// PeerUID attributes a connection to its OS user before anything is
	// read: another user's program is answered 403 (DESIGN §8), as on the
	// other ports. Nil: portholder.PeerUID (connections it cannot
	// attribute, from other machines, pass on to the token check).
	PeerUID netguard.PeerUID
	// UID is this process's user (0 with PeerUID nil: os.Getuid()).
	UID int
}

// Endpoint is the HTTP MCP endpoint on one listener.
type Endpoint struct {
	opts    Options
	log     zerolog.Logger
	ln      *connLimit
	hosts   hostCheck
	mcp     *server.StreamableHTTPServer
	srv     *http.Server
	handler http.Handler
}

// Listen binds addr (host:port; port 0 picks a free one).
func Listen(addr string) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("monkbrowse cannot listen for HTTP on %s: %w (is another monkbrowse serve --http running? give another address with --http HOST:PORT)", addr, err)
	}
	return ln, nil
}

// New returns the endpoint that will serve on ln.
func New(ln net.Listener, opts Options) *Endpoint {
	if opts.MaxConns <= 0 {
		opts.MaxConns = DefaultMaxConns
	}
	if opts.PeerUID == nil {
		opts.PeerUID, opts.UID = portholder.PeerUID, os.Getuid()
	}
	if opts.MaxPending <= 0 {
		opts.MaxPending = netguard.DefaultMaxUnupgraded
	}
	if opts.MaxHeaderBytes <= 0 {
		opts.MaxHeaderBytes = DefaultMaxHeaderBytes
	}
	if opts.MaxBody <= 0 {
		opts.MaxBody = DefaultMaxBody
	}
	if opts.SessionIdle <= 0 {
		opts.SessionIdle = DefaultSessionIdle
	}
	e := &Endpoint{opts: opts, log: zerolog.Nop()}
	if opts.Logger != nil {
		e.log = *opts.Logger
	}
	e.ln = newConnLimit(ln, opts.MaxConns, opts.MaxPending)
	e.ln.judge = func(c net.Conn) bool {
		msg, uid := netguard.PeerRefusal(opts.PeerUID, opts.UID, c.RemoteAddr().String(), c.LocalAddr().String())
		if msg == "" {
			return true
		}
		e.log.Warn().Int("uid", uid).Str("remote", c.RemoteAddr().String()).Msg("refused an HTTP connection from another user's program")
		refuseRaw(c, msg)
		return false
	}
	e.hosts = newHostCheck(ln.Addr())
	e.mcp = server.NewStreamableHTTPServer(opts.Server.MCPServer(),
		// Sessions are real (an unknown or ended id is refused with 404)
		// and end when idle.
		server.WithStateful(true),
		server.WithSessionIdleTTL(opts.SessionIdle),
		server.WithStreamableHTTPLogger(slog.New(slog.NewTextHandler(logWriter{e.log}, nil))),
		server.WithHTTPContextFunc(func(ctx context.Context, r *http.Request) context.Context {
			if c, ok := r.Context().Value(capsKey{}).(protocol.CapSet); ok {
				ctx = mcpserver.WithCaps(ctx, c)
			}
			return ctx
		}),
	)
	e.handler = http.HandlerFunc(e.serveHTTP)
	e.srv = &http.Server{
		Handler:           e.handler,
		MaxHeaderBytes:    opts.MaxHeaderBytes,
		ReadHeaderTimeout: headerTimeout,
		IdleTimeout:       idleTimeout,
		ErrorLog:          stdlog.New(logWriter{e.log}, "http: ", 0),
		ConnContext: func(ctx context.Context, c net.Conn) context.Context {
			return context.WithValue(ctx, connKey{}, c)
		},
	}
	return e
}

// Addr is the listening address.
func (e *Endpoint) Addr() net.Addr { return e.ln.Addr() }

// URL is the endpoint's URL as a client on this machine reaches it.
func (e *Endpoint) URL() string {
	host, port, _ := net.SplitHostPort(e.ln.Addr().String())
	if ip := net.ParseIP(host); ip == nil || ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, port) + Path
}

// Serve serves until ctx ends, then stops taking requests, ends the
// sessions and waits (a little) for the requests in flight.
func (e *Endpoint) Serve(ctx context.Context) error {
	errc := make(chan error, 1)
	go func() { errc <- e.srv.Serve(e.ln) }()
	select {
	case err := <-errc:
		e.mcp.Shutdown(context.Background())
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	e.mcp.Shutdown(sctx) // ends the idle sweeper and the sessions
	if err := e.srv.Shutdown(sctx); err != nil {
		e.srv.Close() // streams still open (a waiting hand-off): cut them
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// Handler is the guarded endpoint, for tests that serve it themselves.
func (e *Endpoint) Handler() http.Handler { return e.handler }

type capsKey struct{}

// refuse answers status with one sentence for the person or AI app that
// sent the request.
func (e *Endpoint) refuse(w http.ResponseWriter, r *http.Request, status int, msg string) {
	e.log.Debug().Int("status", status).Str("remote", r.RemoteAddr).Str("host", r.Host).Msg("refused an HTTP request: " + msg)
	if status == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", Realm)
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Connection", "close")
	w.WriteHeader(status)
	io.WriteString(w, msg+"\n")
}

func (e *Endpoint) serveHTTP(w http.ResponseWriter, r *http.Request) {
	if _, ok := r.Header["Origin"]; ok {
		e.refuse(w, r, http.StatusForbidden, "monkbrowse refuses requests from web pages (this one has an Origin header): only AI apps may use this endpoint.")
		return
	}
	if !e.hosts.ok(r.Host) {
		e.refuse(w, r, http.StatusForbidden, fmt.Sprintf("monkbrowse does not answer to the host name %q (a DNS rebinding guard): use %s.", r.Host, e.URL()))
		return
	}
	if r.URL.Path != Path {
		e.refuse(w, r, http.StatusNotFound, "monkbrowse serves MCP at "+Path+" only.")
		return
	}
	if !e.authorized(r) {
		e.refuse(w, r, http.StatusUnauthorized, "monkbrowse needs its HTTP token: send the header Authorization: Bearer <token>, where the token is what `monkbrowse http-token` prints on the machine running monkbrowse.")
		return
	}
	if c := connOf(r.Context()); c != nil && !c.admit() {
		e.refuse(w, r, http.StatusServiceUnavailable, fmt.Sprintf("monkbrowse has %d AI app connections open already; close one, or try again in a moment.", e.opts.MaxConns))
		return
	}
	ctx := r.Context()
	if q, ok := r.URL.Query()["caps"]; ok {
		var names []string
		for _, v := range q {
			names = append(names, strings.Split(v, ",")...)
		}
		caps, err := protocol.ParseCaps(names)
		if err != nil {
			e.refuse(w, r, http.StatusBadRequest, fmt.Sprintf("monkbrowse: the caps in the URL: %v", err))
			return
		}
		ctx = context.WithValue(ctx, capsKey{}, caps)
	}
	if r.Method != http.MethodPost {
		e.mcp.ServeHTTP(w, r.WithContext(ctx))
		return
	}
	if r.ContentLength > e.opts.MaxBody {
		e.refuse(w, r, http.StatusRequestEntityTooLarge, fmt.Sprintf("monkbrowse takes MCP messages of at most %d MiB over HTTP; this one was not read.", e.opts.MaxBody>>20))
		return
	}
	_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(bodyTimeout))
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, e.opts.MaxBody))
	_ = http.NewResponseController(w).SetReadDeadline(time.Time{})
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			e.refuse(w, r, http.StatusRequestEntityTooLarge, fmt.Sprintf("monkbrowse takes MCP messages of at most %d MiB over HTTP; this one was not read.", e.opts.MaxBody>>20))
			return
		}
		e.refuse(w, r, http.StatusBadRequest, fmt.Sprintf("monkbrowse could not read the request's body: %v.", err))
		return
	}
	r = r.WithContext(ctx)
	r.Body = io.NopCloser(bytes.NewReader(body))
	e.mcp.ServeHTTP(w, r)
}

// authorized reports whether r carries the bearer token. Both sides are
// hashed first so the comparison takes the same time whatever the
// length or content of the guess.
func (e *Endpoint) authorized(r *http.Request) bool {
	h := r.Header.Get("Authorization")
	const scheme = "bearer "
	if len(h) <= len(scheme) || !strings.EqualFold(h[:len(scheme)], scheme) {
		return false
	}
	want, err := e.opts.Token()
	if err != nil || want == "" {
		e.log.Warn().Err(err).Msg("monkbrowse has no HTTP token to check requests against; every request is refused")
		return false
	}
	got := sha256.Sum256([]byte(strings.TrimSpace(h[len(scheme):])))
	exp := sha256.Sum256([]byte(want))
	return subtle.ConstantTimeCompare(got[:], exp[:]) == 1
}

// hostCheck is the DNS-rebinding guard: the Host names this endpoint
// answers to. On loopback: the localhost names only; on one address: that
// address too; on every address (0.0.0.0): any name, since a client on
// another machine names this one as it knows it (the token still applies,
// and mcp-go refuses a non-localhost Host on a loopback connection).
type hostCheck struct {
	any   bool
	names map[string]bool
}

func newHostCheck(a net.Addr) hostCheck {
	hc := hostCheck{names: map[string]bool{"localhost": true, "127.0.0.1": true, "::1": true}}
	if ta, ok := a.(*net.TCPAddr); ok {
		switch {
		case ta.IP.IsUnspecified():
			hc.any = true
		case !ta.IP.IsLoopback():
			hc.names[ta.IP.String()] = true
		}
	}
	return hc
}

func (hc hostCheck) ok(host string) bool {
	if hc.any {
		return true
	}
	h := host
	if hh, _, err := net.SplitHostPort(host); err == nil {
		h = hh
	}
	h = strings.TrimSuffix(strings.ToLower(strings.Trim(h, "[]")), ".")
	return hc.names[h]
}

// logWriter turns mcp-go's and net/http's log lines into debug lines.
type logWriter struct{ log zerolog.Logger }

func (l logWriter) Write(p []byte) (int, error) {
	l.log.Debug().Msg(strings.TrimSpace(string(p)))
	return len(p), nil
}

// connLimit is the listener's bound on open connections, in two parts.
// A connection that has not yet sent a request with the token is pending
// (netguard.Pending: beyond its cap the oldest pending connection is
// closed, so a flood of idle or slow connections holds a bounded number of
// header buffers and an AI app, which sends its request at once, still gets
// through). Once a request on it carries the token it leaves the pending
// cap and takes one of max authenticated slots; beyond them the request is
// answered 503.
type connLimit struct {
	net.Listener
	pending *netguard.Pending
	slots   chan struct{}
	// judge runs before a connection's first byte is read; false: it was
	// refused (answered and to be closed).
	judge func(net.Conn) bool
}

func newConnLimit(ln net.Listener, max, maxPending int) *connLimit {
	return &connLimit{Listener: ln, pending: netguard.NewPending(maxPending), slots: make(chan struct{}, max)}
}

func (l *connLimit) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	lc := &limitedConn{Conn: c, l: l}
	lc.unpend = l.pending.Add(func() { c.Close() })
	return lc, nil
}

type limitedConn struct {
	net.Conn
	l       *connLimit
	unpend  func()
	judged  sync.Once
	refused bool // set once, under judged
	mu      sync.Mutex
	authed  bool // holds a slot
	closed  bool
}

// Read runs the listener's judge first (on the connection's goroutine,
// not the accept loop: on Linux it reads /proc/net/tcp).
func (c *limitedConn) Read(p []byte) (int, error) {
	c.judged.Do(func() { c.refused = c.l.judge != nil && !c.l.judge(c.Conn) })
	if c.refused {
		return 0, io.EOF
	}
	return c.Conn.Read(p)
}

// CloseWrite half-closes the TCP connection, as http.Server does after a
// 431 or a 400 so that the client reads the answer before the close.
func (c *limitedConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

// refuseRaw answers a connection whose request was never read with a 403
// carrying msg, then drops what the peer sends (at most 64 KiB, for at
// most a second) so that the close does not reset the connection before
// the peer has read the answer.
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

// admit moves c from the pending cap to an authenticated slot; false when
// every slot is taken.
func (c *limitedConn) admit() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.authed {
		return true
	}
	if c.closed {
		return false
	}
	select {
	case c.l.slots <- struct{}{}:
		c.authed = true
		c.unpend()
		return true
	default:
		return false
	}
}

func (c *limitedConn) Close() error {
	err := c.Conn.Close()
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.closed {
		c.closed = true
		c.unpend()
		if c.authed {
			<-c.l.slots
		}
	}
	return err
}

type connKey struct{}

// connOf is the connection a request came on (nil in tests that serve the
// handler without the listener).
func connOf(ctx context.Context) *limitedConn {
	c, _ := ctx.Value(connKey{}).(*limitedConn)
	return c
}

// Status is this endpoint as `monkbrowse doctor` shows it (over the
// control port): its URL, this process and the AI apps connected.
func (e *Endpoint) Status() protocol.HTTPStatus {
	return protocol.HTTPStatus{URL: e.URL(), PID: os.Getpid(), Clients: e.opts.Server.Clients()}
}
