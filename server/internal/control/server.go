package control

import (
	"log/slog"
	"maps"
	"net"
	"net/http"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"
	"github.com/rs/zerolog"

	"github.com/monkbrowse/monkbrowse/messaging"
	"github.com/monkbrowse/monkbrowse/messaging/wsconn"
	"github.com/monkbrowse/monkbrowse/protocol"
	"github.com/monkbrowse/monkbrowse/server/internal/netguard"
	"github.com/monkbrowse/monkbrowse/server/internal/portholder"
	"github.com/monkbrowse/monkbrowse/server/internal/proc"
)

// DefaultHelloTimeout is how long a connection may stay without having
// proven itself (fwd_hello, then an accepted fwd_auth) before it is closed.
const DefaultHelloTimeout = 10 * time.Second

// Heartbeats on the control connection (issue 12, DECISIONS.md): the owner
// pings every forwarder each second and drops one that answered nothing for
// 10 s (a suspended or stuck forwarder must not hold a connection forever;
// it reconnects when it resumes).
const (
	DefaultHeartbeat = time.Second
	DefaultDropAfter = 10 * time.Second
)

// MaxFrame bounds one frame from a forwarder (a call_tool carrying a
// 25 MiB upload is ~34 MiB of base64).
const MaxFrame = 64 << 20

// Config configures a [Server].
type Config struct {
	// Token is the control token forwarders must present. Required.
	Token string
	// Caller runs call_tool requests. Required.
	Caller protocol.Caller
	// PID and ControlPort are reported in status; 0 means this process's
	// pid and unknown.
	PID         int
	ControlPort int
	// Self is this process: the version reported in status and the acks,
	// the user other users' connections are told from, the logger
	// (proc.Self's defaults).
	proc.Self
	// Profiles, if set, lists the browser profiles for status.
	Profiles func() []protocol.ProfileStatus
	// ExtensionPort, if set, reports the owner's extension port for status.
	ExtensionPort func() int
	// HTTP, if set, reports this process's MCP endpoint over HTTP for
	// status (nil result: it serves none); each accepted forwarder is asked
	// for its own (http_status) too.
	HTTP func() *protocol.HTTPStatus
	// App, if set, names the AI app that started the owner (sent in the
	// fwd_hello ack).
	App func() string
	// Heartbeat is how often each forwarder is pinged; a forwarder that
	// answers none for DropAfter is disconnected. 0 means
	// DefaultHeartbeat / DefaultDropAfter.
	Heartbeat, DropAfter time.Duration
	// HelloTimeout: 0 means DefaultHelloTimeout.
	HelloTimeout time.Duration
	// MaxPending caps the connections that have not proven themselves; a
	// new one beyond it closes the oldest. 0 means
	// netguard.DefaultMaxPending.
	MaxPending int
	// MaxUnupgraded caps the connections whose WebSocket upgrade is not
	// done yet (their headers are being read, issue 40); a new one beyond
	// it closes the oldest. 0 means netguard.DefaultMaxUnupgraded.
	MaxUnupgraded int
	// PeerUID attributes an accepted connection to its OS user; one of
	// another user (not UID, not root) is refused before the upgrade
	// (DESIGN §8). nil means portholder.PeerUID; the user is Self.UID.
	PeerUID netguard.PeerUID
}

// Server is the owner's control-port server. Its methods are safe for
// concurrent use. It owns the goroutines of every forwarder connection and
// ends them in [Server.Leave] or [Server.Close].
type Server struct {
	cfg      Config
	log      zerolog.Logger
	since    time.Time
	upgrader websocket.Upgrader
	hs       *http.Server

	pending *netguard.Pending // connections that have not proven themselves yet
	entry   *netguard.Gate    // connections not yet upgraded; other users' refused
	// newNonce draws the owner's nonce of each connection's proof
	// (protocol.NewNonce): one per connection, so that a fwd_auth recorded
	// on one connection proves nothing on another.
	newNonce func() string
	refusals *netguard.Refusals // every refusal, logged at most once a second

	failMu   sync.Mutex
	failNext time.Time // when the next failure may be answered

	mu       sync.Mutex
	conns    map[*conn]struct{}
	stopping bool // refuse new call_tool
	closed   bool // refuse new connections
	calls    sync.WaitGroup
	inflight int
}

// conn is one forwarder connection.
type conn struct {
	peer     *messaging.Peer
	ws       *wsconn.Conn
	sock     *rejectingSocket
	accepted atomic.Bool
	info     protocol.ForwarderInfo // set once when accepted, under Server.mu
	timer    *time.Timer
	release  func() // leaves the pending cap; idempotent

	// The proof exchange (hello.go), under hmu.
	hmu                        sync.Mutex
	pid                        int
	version                    string
	nonceForwarder, nonceOwner string
}

// New returns a server; call [Server.Serve] with the bound control listener.
func New(cfg Config) *Server {
	if cfg.PID == 0 {
		cfg.PID = os.Getpid()
	}
	cfg.Self = cfg.Self.Defaulted()
	if cfg.PeerUID == nil {
		cfg.PeerUID = portholder.PeerUID
	}
	if cfg.HelloTimeout <= 0 {
		cfg.HelloTimeout = DefaultHelloTimeout
	}
	if cfg.Heartbeat <= 0 {
		cfg.Heartbeat = DefaultHeartbeat
	}
	if cfg.DropAfter <= 0 {
		cfg.DropAfter = DefaultDropAfter
	}
	log := cfg.Logger.With().Str("component", "control").Logger()
	s := &Server{
		cfg:      cfg,
		log:      log,
		since:    time.Now(),
		conns:    make(map[*conn]struct{}),
		pending:  netguard.NewPending(cfg.MaxPending),
		refusals: netguard.NewRefusals(log),
	}
	s.newNonce = protocol.NewNonce
	s.upgrader = websocket.Upgrader{
		// Checked in ServeHTTP already; repeated so that the upgrader can
		// never fall back to its same-host default.
		CheckOrigin: func(r *http.Request) bool { return len(r.Header.Values("Origin")) == 0 },
	}
	s.entry = netguard.NewGate("control-port", cfg.MaxUnupgraded, cfg.PeerUID, cfg.UID, s.refusals)
	s.hs = &http.Server{Handler: s, ReadHeaderTimeout: 5 * time.Second, ErrorLog: nil,
		MaxHeaderBytes: netguard.ControlMaxHeaderBytes, ConnState: s.entry.ConnState}
	return s
}

// Serve accepts forwarders on ln until Leave or Close. It returns
// http.ErrServerClosed after those.
func (s *Server) Serve(ln net.Listener) error {
	return s.hs.Serve(s.entry.Listener(ln))
}

// ServeHTTP refuses browsers and plain HTTP and upgrades everything else.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !netguard.LoopbackHost(r.Host) {
		s.refusals.Refused("refused a control-port request whose Host is not a loopback name",
			func(e netguard.Fields) { e.Str("host", r.Host).Str("remote", r.RemoteAddr) })
		http.Error(w, netguard.HostRefusal, http.StatusForbidden)
		return
	}
	if len(r.Header.Values("Origin")) > 0 {
		s.refusals.Refused("refused a control-port connection from a browser origin",
			func(e netguard.Fields) { e.Str("origin", r.Header.Get("Origin")).Str("remote", r.RemoteAddr) })
		http.Error(w, "monkbrowse control port: connections from browsers (with an Origin header) are refused", http.StatusForbidden)
		return
	}
	if !websocket.IsWebSocketUpgrade(r) {
		w.Header().Set("Upgrade", "websocket")
		http.Error(w, "monkbrowse control port: WebSocket connections from monkbrowse processes only", http.StatusUpgradeRequired)
		return
	}
	// Another user's program was refused before its first byte was read
	// (netguard.Gate).
	s.mu.Lock()
	closed := s.closed
	s.mu.Unlock()
	if closed {
		// The header tells a forwarder this is a monkbrowse owner on its
		// way out, not a foreign program: it elects again at once.
		w.Header().Set(protocol.HeaderLeaving, "leaving")
		http.Error(w, "monkbrowse owner is shutting down", http.StatusServiceUnavailable)
		return
	}
	ws, err := s.upgrader.Upgrade(w, r, nil)
	if err != nil {
		return // the upgrader has answered
	}
	s.startConn(ws)
}

func (s *Server) startConn(ws *websocket.Conn) {
	// An upload travels in call_tool: 25 MiB in base64 is more than
	// wsconn's default limit. Until both proofs are done frames are at
	// most protocol.MaxUnprovenFrame.
	c := &conn{ws: wsconn.New(ws, &wsconn.Options{ReadLimit: MaxFrame, UnprovenLimit: protocol.MaxUnprovenFrame})}
	c.sock = &rejectingSocket{PeerSocket: c.ws}
	c.peer = messaging.NewPeer(c.sock, &messaging.Options{
		Logger: slog.New(slog.DiscardHandler),
		OnClose: func(error) {
			c.release()
			s.mu.Lock()
			delete(s.conns, c)
			s.mu.Unlock()
			if c.accepted.Load() {
				s.log.Info().Int("pid", c.info.PID).Msg("forwarder disconnected")
			}
		},
	})
	c.release = func() {}
	c.peer.Handle(protocol.MsgFwdHello, s.handleHello(c))
	c.peer.Handle(protocol.MsgFwdAuth, s.handleAuth(c))
	c.peer.Handle(protocol.MsgCallTool, s.handleCallTool(c))
	c.peer.Handle(protocol.MsgStatus, s.handleStatus(c))

	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		c.peer.Close()
		return
	}
	s.conns[c] = struct{}{}
	// Until it has proven itself (fwd_auth accepted) the connection counts
	// against the cap of unproven connections; beyond it the oldest one is
	// closed.
	c.release = s.pending.Add(func() { c.peer.Close() })
	c.timer = time.AfterFunc(s.cfg.HelloTimeout, func() {
		if !c.accepted.Load() {
			s.refusals.Refused("closing a control connection that did not prove itself in time", nil)
			c.peer.Close()
		}
	})
	s.mu.Unlock()
	c.peer.Start()
}

// heartbeat pings an accepted forwarder every Heartbeat and closes its
// connection when no pong came for DropAfter. It ends with the connection.
func (s *Server) heartbeat(c *conn) {
	c.peer.Heartbeat(s.cfg.Heartbeat, func(silent time.Duration) bool {
		if silent < s.cfg.DropAfter {
			return true
		}
		s.log.Warn().Int("pid", c.info.PID).Dur("silentFor", silent).
			Msg("dropping a forwarder that stopped answering pings (suspended or stuck?)")
		c.peer.Close()
		return false
	})
}

// Close closes the listener and every connection at once, without
// owner_leaving. It is idempotent.
func (s *Server) Close() error {
	s.mu.Lock()
	s.stopping, s.closed = true, true
	conns := slices.Collect(maps.Keys(s.conns))
	s.mu.Unlock()
	err := s.hs.Close()
	for _, c := range conns {
		c.timer.Stop()
		c.peer.Close()
	}
	return err
}
