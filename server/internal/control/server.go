package control

import (
	"bytes"
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
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
)

// DefaultHelloTimeout is how long a connection may stay without an accepted
// fwd_hello before it is closed.
const DefaultHelloTimeout = 10 * time.Second

// Heartbeats on the control connection (issue 12, DECISIONS.md): the owner
// pings every forwarder each second and drops one that answered nothing for
// 10 s (a suspended or stuck forwarder must not hold a connection forever;
// it reconnects when it resumes).
const (
	DefaultHeartbeat = time.Second
	DefaultDropAfter = 10 * time.Second
)

// Failed fwd_hello attempts (a wrong or missing token): each is answered
// no sooner than FailedAuthDelay after it arrived, and all connections
// together get at most FailedAuthPerSecond answers a second; the rest wait
// their turn (at most maxFailWait, then the socket is just closed). A
// correct token is accepted at once, so a forwarder is never slowed down by
// someone else's failures.
const (
	FailedAuthDelay     = 250 * time.Millisecond
	FailedAuthPerSecond = 20
	maxFailWait         = 5 * time.Second
)

// callSentWait bounds the wait for a forwarder's answer to call_sent.
const callSentWait = 2 * time.Second

// MaxFrame bounds one frame from a forwarder (a call_tool carrying a
// 25 MiB upload is ~34 MiB of base64).
const MaxFrame = 64 << 20

// ErrLeaving may be returned (wrapped) by the Caller for a call it refused
// without running because the owner is handing over; the forwarder is then
// told the call was not run, and repeats it against the next owner.
var ErrLeaving = errors.New("control: owner leaving")

// Config configures a [Server].
type Config struct {
	// Token is the control token forwarders must present. Required.
	Token string
	// Caller runs call_tool requests. Required.
	Caller protocol.Caller
	// PID, Version and ControlPort are reported in status; 0/"" mean this
	// process's pid, protocol.Version and unknown.
	PID         int
	Version     string
	ControlPort int
	// Profiles, if set, lists the browser profiles for status.
	Profiles func() []protocol.ProfileStatus
	// ExtensionPort, if set, reports the owner's extension port for status.
	ExtensionPort func() int
	// App, if set, names the AI app that started the owner (sent in the
	// fwd_hello ack).
	App func() string
	// Logger receives diagnostics; nil discards them.
	Logger *zerolog.Logger
	// Heartbeat is how often each forwarder is pinged; a forwarder that
	// answers none for DropAfter is disconnected. 0 means
	// DefaultHeartbeat / DefaultDropAfter.
	Heartbeat, DropAfter time.Duration
	// HelloTimeout: 0 means DefaultHelloTimeout.
	HelloTimeout time.Duration
	// MaxPending caps the connections without an accepted fwd_hello; a new
	// one beyond it closes the oldest. 0 means netguard.DefaultMaxPending.
	MaxPending int
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

	pending *netguard.Pending // connections that have not said fwd_hello yet
	failLog netguard.Every    // refusals logged at most once a second
	refused atomic.Int64      // failed fwd_hello attempts

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
	sock     *rejectingSocket
	accepted atomic.Bool
	info     protocol.ForwarderInfo // set once when accepted, under Server.mu
	timer    *time.Timer
	release  func() // leaves the pending cap; idempotent
}

// New returns a server; call [Server.Serve] with the bound control listener.
func New(cfg Config) *Server {
	if cfg.PID == 0 {
		cfg.PID = os.Getpid()
	}
	if cfg.Version == "" {
		cfg.Version = protocol.Version
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
	log := zerolog.Nop()
	if cfg.Logger != nil {
		log = cfg.Logger.With().Str("component", "control").Logger()
	}
	s := &Server{
		cfg:     cfg,
		log:     log,
		since:   time.Now(),
		conns:   make(map[*conn]struct{}),
		pending: netguard.NewPending(cfg.MaxPending),
		failLog: netguard.Every{Interval: time.Second},
	}
	s.upgrader = websocket.Upgrader{
		// Checked in ServeHTTP already; repeated so that the upgrader can
		// never fall back to its same-host default.
		CheckOrigin: func(r *http.Request) bool { return len(r.Header.Values("Origin")) == 0 },
	}
	s.hs = &http.Server{Handler: s, ReadHeaderTimeout: 5 * time.Second, ErrorLog: nil}
	return s
}

// Serve accepts forwarders on ln until Leave or Close. It returns
// http.ErrServerClosed after those.
func (s *Server) Serve(ln net.Listener) error {
	return s.hs.Serve(ln)
}

// ServeHTTP refuses browsers and plain HTTP and upgrades everything else.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !netguard.LoopbackHost(r.Host) {
		if ok, n := s.failLog.Allow(); ok {
			s.log.Warn().Str("host", r.Host).Str("remote", r.RemoteAddr).Int("alsoRefused", n).Msg("refused a control-port request whose Host is not a loopback name")
		}
		http.Error(w, netguard.HostRefusal, http.StatusForbidden)
		return
	}
	if len(r.Header.Values("Origin")) > 0 {
		s.log.Warn().Str("origin", r.Header.Get("Origin")).Str("remote", r.RemoteAddr).Msg("refused a control-port connection from a browser origin")
		http.Error(w, "monkbrowse control port: connections from browsers (with an Origin header) are refused", http.StatusForbidden)
		return
	}
	if !websocket.IsWebSocketUpgrade(r) {
		w.Header().Set("Upgrade", "websocket")
		http.Error(w, "monkbrowse control port: WebSocket connections from monkbrowse processes only", http.StatusUpgradeRequired)
		return
	}
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
	// wsconn's default limit.
	c := &conn{sock: &rejectingSocket{PeerSocket: wsconn.New(ws, &wsconn.Options{ReadLimit: MaxFrame})}}
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
	c.peer.Handle(protocol.MsgCallTool, s.handleCallTool(c))
	c.peer.Handle(protocol.MsgStatus, s.handleStatus(c))

	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		c.peer.Close()
		return
	}
	s.conns[c] = struct{}{}
	// Until it says fwd_hello the connection counts against the cap of
	// silent connections; beyond it the oldest one is closed.
	c.release = s.pending.Add(func() { c.peer.Close() })
	c.timer = time.AfterFunc(s.cfg.HelloTimeout, func() {
		if !c.accepted.Load() {
			s.log.Warn().Msg("closing a control connection that did not say fwd_hello in time")
			c.peer.Close()
		}
	})
	s.mu.Unlock()
	c.peer.Start()
}

func (s *Server) handleHello(c *conn) messaging.Handler {
	return func(ctx context.Context, payload json.RawMessage) (any, error) {
		if c.accepted.Load() {
			return nil, errors.New("fwd_hello was already accepted on this connection")
		}
		// It has spoken: it leaves the cap of silent connections (what it
		// holds from now on is bounded by the answer's delay).
		c.release()
		arrived := time.Now()
		var h protocol.FwdHello
		if err := json.Unmarshal(payload, &h); err != nil {
			return s.rejectAuth(ctx, c, arrived, fmt.Sprintf("fwd_hello payload is not valid: %v", err))
		}
		if h.Token == "" {
			return s.rejectAuth(ctx, c, arrived, "missing control token")
		}
		if subtle.ConstantTimeCompare([]byte(h.Token), []byte(s.cfg.Token)) != 1 {
			return s.rejectAuth(ctx, c, arrived, "wrong control token")
		}
		s.mu.Lock()
		c.info = protocol.ForwarderInfo{PID: h.PID, Version: h.Version, Connected: time.Now().UnixMilli()}
		c.accepted.Store(true)
		s.mu.Unlock()
		c.timer.Stop()
		c.release()
		ev := s.log.Info()
		if h.Version != s.cfg.Version {
			ev = s.log.Warn().Str("ownerVersion", s.cfg.Version)
		}
		ev.Int("pid", h.PID).Str("version", h.Version).Msg("forwarder connected")
		go s.heartbeat(c)
		app := ""
		if s.cfg.App != nil {
			app = s.cfg.App()
		}
		return protocol.FwdHelloAck{OK: true, Version: s.cfg.Version, PID: s.cfg.PID, App: app, CallSent: true}, nil
	}
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

// rejectAuth answers a failed fwd_hello after FailedAuthDelay and its turn
// under the global limit, logging at most one line a second. The socket
// closes right after the answer.
func (s *Server) rejectAuth(ctx context.Context, c *conn, arrived time.Time, reason string) (any, error) {
	n := s.refused.Add(1)
	s.failMu.Lock()
	now := time.Now()
	at := arrived.Add(FailedAuthDelay)
	if slot := s.failNext; slot.After(at) {
		at = slot
	}
	wait := at.Sub(now)
	if wait <= maxFailWait {
		s.failNext = at.Add(time.Second / FailedAuthPerSecond)
	}
	s.failMu.Unlock()
	if ok, held := s.failLog.Allow(); ok {
		s.log.Warn().Str("reason", reason).Int("alsoRefused", held).Int64("refusedSinceStart", n).
			Msg("refused a control-port connection (failed attempts are answered after 250 ms, at most 20 a second, and logged at most once a second)")
	}
	if wait > maxFailWait {
		// Too many failures queued: no answer, just a closed socket after
		// the delay.
		wait = time.Until(arrived.Add(FailedAuthDelay))
		c.sock.dropResponse.Store(true)
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
	c.sock.closeAfterResponse.Store(true)
	return protocol.FwdHelloAck{OK: false, Version: s.cfg.Version, Reason: reason}, nil
}

func (s *Server) handleCallTool(c *conn) messaging.Handler {
	return func(ctx context.Context, payload json.RawMessage) (any, error) {
		if !c.accepted.Load() {
			return nil, errors.New("call_tool refused: this connection has not been accepted yet; say fwd_hello with the control token first")
		}
		var ct protocol.CallTool
		if err := json.Unmarshal(payload, &ct); err != nil {
			return nil, fmt.Errorf("call_tool payload is not valid: %v", err)
		}
		if ct.Name == "" {
			return nil, errors.New("call_tool payload has no tool name")
		}
		if !s.beginCall() {
			return nil, refusedLeaving()
		}
		defer s.endCall()
		// Each forwarder is its own AI app: snapshot diffs after actions are
		// computed against what that app was shown, never another app's view.
		// Its grants are the ones it sent (its own flags and the upload its
		// process read under its roots), never this process's: a call
		// without any (an older forwarder) is allowed nothing.
		s.mu.Lock()
		ct.Client = fmt.Sprintf("forwarder pid %d", c.info.PID)
		s.mu.Unlock()
		ct.Sent = nil // never the forwarder's to set
		if ref := ct.Ref; ref != "" {
			// Sent or not (issue 12): tell the forwarder before the call's
			// first request leaves for the extension, and wait for its
			// answer, so that after this process dies the forwarder knows
			// a call it never heard about did not reach the browser. A
			// forwarder that does not answer in time does not hold the
			// call up for long.
			name := ct.Name
			ct.Sent = func(ctx context.Context) {
				sctx, cancel := context.WithTimeout(ctx, callSentWait)
				defer cancel()
				if _, err := c.peer.Request(sctx, protocol.MsgCallSent, protocol.CallSent{Ref: ref}, callSentWait); err != nil {
					s.log.Debug().Err(err).Str("tool", name).Msg("call_sent not answered; sending the call anyway")
				}
			}
		}
		res, err := s.cfg.Caller.CallTool(ctx, ct)
		if errors.Is(err, ErrLeaving) {
			return nil, refusedLeaving()
		}
		if err != nil {
			res = protocol.CallToolResult{Content: []protocol.ContentItem{{Type: "text", Text: err.Error()}}, IsError: true}
		}
		if res.Content == nil {
			res.Content = []protocol.ContentItem{}
		}
		return res, nil
	}
}

func (s *Server) handleStatus(c *conn) messaging.Handler {
	return func(ctx context.Context, payload json.RawMessage) (any, error) {
		if !c.accepted.Load() {
			return nil, errors.New("status refused: this connection has not been accepted yet; say fwd_hello with the control token first")
		}
		st := protocol.StatusResult{
			OwnerPID:    s.cfg.PID,
			Version:     s.cfg.Version,
			OwnerSince:  s.since.UnixMilli(),
			ControlPort: s.cfg.ControlPort,
			Forwarders:  []protocol.ForwarderInfo{},
			Profiles:    []protocol.ProfileStatus{},
		}
		st.Forwarders = append(st.Forwarders, s.forwarders(c)...)
		if s.cfg.ExtensionPort != nil {
			st.ExtensionPort = s.cfg.ExtensionPort()
		}
		if s.cfg.Profiles != nil {
			if p := s.cfg.Profiles(); p != nil {
				st.Profiles = p
			}
		}
		return st, nil
	}
}

// Forwarders lists the accepted forwarder connections, oldest first.
func (s *Server) Forwarders() []protocol.ForwarderInfo { return s.forwarders(nil) }

// forwarders lists the accepted connections but except.
func (s *Server) forwarders(except *conn) []protocol.ForwarderInfo {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []protocol.ForwarderInfo
	for c := range s.conns {
		if c != except && c.accepted.Load() {
			out = append(out, c.info)
		}
	}
	sortForwarders(out)
	return out
}

func sortForwarders(fs []protocol.ForwarderInfo) {
	for i := 1; i < len(fs); i++ {
		for j := i; j > 0 && (fs[j].Connected < fs[j-1].Connected || fs[j].Connected == fs[j-1].Connected && fs[j].PID < fs[j-1].PID); j-- {
			fs[j], fs[j-1] = fs[j-1], fs[j]
		}
	}
}

func (s *Server) beginCall() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopping {
		return false
	}
	s.inflight++
	s.calls.Add(1)
	return true
}

func (s *Server) endCall() {
	s.mu.Lock()
	s.inflight--
	s.mu.Unlock()
	s.calls.Done()
}

// StopCalls makes the server refuse every new call_tool with
// protocol.CodeOwnerLeaving (the forwarder repeats it against the next
// owner). Calls already running go on.
func (s *Server) StopCalls() {
	s.mu.Lock()
	s.stopping = true
	s.mu.Unlock()
}

// WaitCalls waits until the call_tool requests running when StopCalls was
// called have been answered, or ctx ends. It reports how many were still
// running then.
func (s *Server) WaitCalls(ctx context.Context) int {
	done := make(chan struct{})
	go func() {
		s.calls.Wait()
		close(done)
	}()
	select {
	case <-done:
		return 0
	case <-ctx.Done():
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.inflight
	}
}

// Leave hands over: it stops new calls, closes the listener (releasing the
// control port), tells every forwarder owner_leaving, waits for each to
// hang up (until ctx ends) and closes their connections. Call it after the extension port is released, so that the
// forwarder that wins the control port can bind the extension port at once.
// ctx bounds the notifications.
func (s *Server) Leave(ctx context.Context) {
	s.StopCalls()
	s.mu.Lock()
	s.closed = true
	conns := slices.Collect(maps.Keys(s.conns))
	s.mu.Unlock()
	// Close releases the port; hijacked WebSocket connections stay open.
	s.hs.Close()
	var wg sync.WaitGroup
	for _, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if c.accepted.Load() {
				// The forwarder hangs up when it has read owner_leaving;
				// closing first could drop the notification before its
				// handler ran.
				if err := c.peer.Notify(ctx, protocol.MsgOwnerLeaving, protocol.OwnerLeaving{}); err != nil {
					s.log.Debug().Err(err).Int("pid", c.info.PID).Msg("owner_leaving not delivered")
				} else {
					select {
					case <-c.peer.Done():
					case <-ctx.Done():
					}
				}
			}
			c.timer.Stop()
			c.peer.Close()
		}()
	}
	wg.Wait()
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

// rejectingSocket closes the connection right after the next response is
// written once closeAfterResponse is set: that is how a refused fwd_hello
// gets its answer and then loses its socket.
type rejectingSocket struct {
	messaging.PeerSocket
	closeAfterResponse atomic.Bool
	dropResponse       atomic.Bool // close instead of writing the next response
}

var responsePrefix = []byte(`{"k":"res"`)

func (r *rejectingSocket) Send(ctx context.Context, frame []byte) error {
	if r.dropResponse.Load() && bytes.HasPrefix(frame, responsePrefix) {
		return r.PeerSocket.Close()
	}
	err := r.PeerSocket.Send(ctx, frame)
	if r.closeAfterResponse.Load() && bytes.HasPrefix(frame, responsePrefix) {
		r.PeerSocket.Close()
	}
	return err
}

// refusedLeaving is the call_tool refusal of an owner releasing its ports:
// the forwarder recognises it by its code and repeats the call against the
// next owner (the owner promises it did not run it).
func refusedLeaving() error {
	return messaging.WithCode(protocol.CodeOwnerLeaving, errors.New("monkbrowse owner is handing over to another process; the call was not run"))
}
