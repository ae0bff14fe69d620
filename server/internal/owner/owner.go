// Package owner is everything a monkbrowse owner runs: the extension
// listener on 127.0.0.1 (Origin policy, hello handshake, liveness), the
// profile registry with label and slug assignment, the per-tab FIFO queues,
// and the tools.Dispatcher that serves every AI tool call over them.
//
// The shared daemon (server/internal/daemon) decides when a process becomes
// owner; it calls [Start], serves [Owner.Caller] over MCP and the control
// port, and calls [Owner.Shutdown] to hand over.
package owner

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/monkbrowse/monkbrowse/messaging/neterr"
	"github.com/monkbrowse/monkbrowse/protocol"
	"github.com/monkbrowse/monkbrowse/server/internal/netguard"
	"github.com/monkbrowse/monkbrowse/server/internal/portholder"
	"github.com/monkbrowse/monkbrowse/server/internal/proc"
	"github.com/monkbrowse/monkbrowse/tools"
)

// Defaults of [Config].
const (
	DefaultMaxProfiles   = 20
	DefaultReadLimit     = 64 << 20
	DefaultHelloTimeout  = protocol.HelloTimeout
	DefaultPingInterval  = protocol.PingInterval
	DefaultMissedPongs   = 3
	DefaultReconnectWait = 5 * time.Second
	DefaultDrainTimeout  = time.Second
)

// Config configures an owner. Every zero field means its default.
type Config struct {
	// Port is the extension port on 127.0.0.1. Zero means protocol.DefaultExtensionPort (9222).
	Port int
	// Addr, if set, is the listen address instead of 127.0.0.1:Port; tests
	// use "127.0.0.1:0" for a port chosen by the OS. It must be loopback.
	Addr string
	// ControlPort is the owner↔forwarder port (used by the daemon, carried
	// here so that messages can name it). Zero means protocol.DefaultControlPort.
	ControlPort int
	// MaxProfiles caps the profiles connected at once (and the records
	// kept); a hello beyond it is rejected with a reason. Zero: 20.
	MaxProfiles int
	// AllowedExtensionIDs are extension ids accepted on the extension port
	// besides the pinned ones (PinnedExtensionIDs). Other extensions only
	// get a rejection; a web page is always refused.
	AllowedExtensionIDs []string
	// PairingSecret returns the pairing secret (issue 24, DESIGN §5.2),
	// read at each hello so that `monkbrowse pair --reset` takes effect for
	// the next connection. Both ends of the extension port prove they hold
	// it; while it returns an error (or is nil) every extension is refused
	// with that error, since the server cannot prove itself.
	PairingSecret func() (string, error)
	// PairingCodes looks up and redeems the one-time codes of `monkbrowse
	// pair` (protocol/paircode.go); nil: a hello naming a code is refused.
	PairingCodes PairingCodes
	// MaxPending caps the sockets that have not finished their hello; a
	// new one beyond it closes the oldest. Zero: netguard.DefaultMaxPending.
	MaxPending int
	// MaxUnupgraded caps the connections whose WebSocket upgrade is not
	// done yet (their headers are being read, issue 40); a new one beyond
	// it closes the oldest. Zero: netguard.DefaultMaxUnupgraded.
	MaxUnupgraded int
	// ReadLimit bounds one incoming frame in bytes once the socket's hello
	// is accepted (before it: protocol.MaxUnprovenFrame, or ReadLimit if
	// smaller). Zero: 64 MiB.
	ReadLimit int64
	// PeerUID attributes a connection to its OS user; one of another user
	// (not UID, not root) is refused before the upgrade (DESIGN §8). Nil
	// means portholder.PeerUID; the user is Self.UID.
	PeerUID netguard.PeerUID
	// HelloTimeout closes a socket that has not said an accepted hello in
	// time. Zero: 10 s.
	HelloTimeout time.Duration
	// PingInterval is how often each extension is pinged. Zero: 10 s;
	// negative disables pings.
	PingInterval time.Duration
	// PongTimeout is how long each ping waits for its pong. Zero:
	// PingInterval.
	PongTimeout time.Duration
	// MissedPongs is how many pings in a row may go unanswered before the
	// connection is closed. Zero: 3.
	MissedPongs int
	// ReconnectWait is how long a call waits for a known but disconnected
	// profile to come back (a hand-over, an extension reload). Zero: 5 s;
	// negative: do not wait.
	ReconnectWait time.Duration
	// DrainTimeout is how long Shutdown lets in-flight calls finish before
	// failing them. Zero: 1 s.
	DrainTimeout time.Duration
	// Timeout returns how long to wait for a wire message's answer. Nil
	// means protocol.TimeoutFor.
	Timeout func(typ string) time.Duration
	// Tools configures the dispatcher (upload limit, wait polling).
	Tools *tools.Options
	// Self is this process: the version reported in hello_ack, the user
	// other users' connections are told from, the logger (proc.Self's
	// defaults).
	proc.Self
}

func (c Config) withDefaults() Config {
	c.Self = c.Self.Defaulted()
	if c.Port == 0 {
		c.Port = protocol.DefaultExtensionPort
	}
	if c.Addr == "" {
		c.Addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(c.Port))
	}
	if c.ControlPort == 0 {
		c.ControlPort = protocol.DefaultControlPort
	}
	if c.MaxProfiles <= 0 {
		c.MaxProfiles = DefaultMaxProfiles
	}
	if c.ReadLimit <= 0 {
		c.ReadLimit = DefaultReadLimit
	}
	if c.PeerUID == nil {
		c.PeerUID = portholder.PeerUID
	}
	if c.HelloTimeout <= 0 {
		c.HelloTimeout = DefaultHelloTimeout
	}
	if c.PingInterval == 0 {
		c.PingInterval = DefaultPingInterval
	}
	if c.PongTimeout <= 0 {
		c.PongTimeout = c.PingInterval
	}
	if c.MissedPongs <= 0 {
		c.MissedPongs = DefaultMissedPongs
	}
	if c.ReconnectWait == 0 {
		c.ReconnectWait = DefaultReconnectWait
	}
	if c.DrainTimeout <= 0 {
		c.DrainTimeout = DefaultDrainTimeout
	}
	if c.Timeout == nil {
		c.Timeout = protocol.TimeoutFor
	}
	return c
}

// PortInUseError is returned by [Start] when another program holds the
// extension port. Its message is written for the person reading stderr and
// for the AI (main serves it as every tool call's answer).
type PortInUseError struct {
	Port int
	Err  error
}

func (e *PortInUseError) Error() string {
	return fmt.Sprintf("monkbrowse cannot listen for the browser extension on 127.0.0.1:%d: another program already holds that port. "+
		"Chrome's remote debugging (--remote-debugging-port=%d) commonly uses it. "+
		"Either stop that program, or pick another port on both sides: start monkbrowse with --port N (in your AI app's MCP server settings) "+
		"and set the same port in the monkbrowse extension's options page; then restart your AI app. "+
		"`monkbrowse doctor --port %d` tells who holds the port.", e.Port, e.Port, e.Port)
}

func (e *PortInUseError) Unwrap() error { return e.Err }

// Owner is a running owner. Its methods are safe for concurrent use.
type Owner struct {
	cfg  Config
	log  zerolog.Logger
	slog *slog.Logger
	reg  *registry
	ln   net.Listener
	srv  *http.Server
	disp *tools.Dispatcher
	gate *gate

	pending  *netguard.Pending  // sockets without an accepted hello
	entry    *netguard.Gate     // connections not yet upgraded; other users' refused
	refusals *netguard.Refusals // every refusal, logged at most once a second

	// stop is closed when Shutdown starts failing work; ctx is cancelled
	// with it and is the parent of every connection's background work.
	stop   chan struct{}
	ctx    context.Context
	cancel context.CancelFunc

	mu      sync.Mutex
	sockets map[*conn]struct{} // every accepted connection, live
	wg      sync.WaitGroup     // handshakes, ping loops, connection closers

	shutdownOnce sync.Once
	shutdownDone chan struct{}
}

// Start binds the extension port and starts serving extensions. ctx bounds
// only the start itself. A port held by another program is a
// *[PortInUseError].
func Start(ctx context.Context, cfg Config) (*Owner, error) {
	cfg = cfg.withDefaults()
	log := *cfg.Logger
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", cfg.Addr)
	if err != nil {
		if neterr.IsAddrInUse(err) {
			return nil, &PortInUseError{Port: cfg.Port, Err: err}
		}
		return nil, fmt.Errorf("owner: listening for the extension on %s: %w", cfg.Addr, err)
	}
	o := &Owner{
		cfg:          cfg,
		log:          log,
		slog:         slog.New(zerolog.NewSlogHandler(log)),
		reg:          newRegistry(cfg.MaxProfiles),
		ln:           ln,
		stop:         make(chan struct{}),
		sockets:      map[*conn]struct{}{},
		shutdownDone: make(chan struct{}),
		pending:      netguard.NewPending(cfg.MaxPending),
		refusals:     netguard.NewRefusals(log),
	}
	o.ctx, o.cancel = context.WithCancel(context.Background())
	var topts tools.Options
	if cfg.Tools != nil {
		topts = *cfg.Tools
	}
	if topts.Logger == nil {
		topts.Logger = o.slog
	}
	o.disp = tools.NewDispatcher(browser{o}, &topts)
	o.gate = newGate(o.disp)
	o.gate.paused = o.reg.pauseOf
	o.gate.refused = o.tellRefused
	o.entry = netguard.NewGate("extension-port", cfg.MaxUnupgraded, cfg.PeerUID, cfg.UID, o.refusals)
	o.srv = &http.Server{
		Handler:           http.HandlerFunc(o.serveHTTP),
		ReadHeaderTimeout: 10 * time.Second,
		MaxHeaderBytes:    netguard.ExtensionMaxHeaderBytes,
		ConnState:         o.entry.ConnState,
		ErrorLog:          nil,
		BaseContext:       func(net.Listener) context.Context { return o.ctx },
	}
	o.wg.Add(1)
	go func() {
		defer o.wg.Done()
		if err := o.srv.Serve(o.entry.Listener(ln)); err != nil && !errors.Is(err, http.ErrServerClosed) {
			o.log.Error().Err(err).Msg("extension listener stopped")
		}
	}()
	o.log.Info().Str("addr", ln.Addr().String()).Msg("listening for the monkbrowse extension")
	return o, nil
}

// Addr is the address the extension listener is bound to.
func (o *Owner) Addr() net.Addr { return o.ln.Addr() }

// Port is the bound extension port.
func (o *Owner) Port() int { return o.ln.Addr().(*net.TCPAddr).Port }

// Caller runs AI tool calls on this owner. After Shutdown starts it refuses
// new calls with a tool error.
func (o *Owner) Caller() protocol.Caller { return o.gate }

// LogUnsharedQueuedAborted is logged (debug) when calls waiting for a tab's
// turn are aborted because the tab left the shared tabs.
const LogUnsharedQueuedAborted = "calls waiting for a tab that is no longer shared were aborted: never sent"

// Pause stops every call in flight on browser profile profileID ("": on
// every profile, and calls not yet resolved to one) because the person
// paused the AI: waiting calls are never sent, running ones get the wire
// cancel; each is answered with code paused's sentence (DESIGN §5.5). It
// returns how many calls it stopped. It refuses nothing later: the
// extension's Stop, which it reports in tabs_changed, does (applyPause).
func (o *Owner) Pause(profileID string) int {
	who := "in this browser"
	if profileID != "" {
		who = "in this browser profile"
	}
	return o.gate.abort(func(r *callRec) bool { return profileID == "" || r.profileID == profileID }, pausedAbort(who))
}

// PauseApp is Pause for the calls of one AI app, on every profile: client
// is protocol.CallTool.Client ("" is the app this process serves over
// stdio; a forwarder's calls are "forwarder pid N").
func (o *Owner) PauseApp(client string) int {
	return o.gate.abort(func(r *callRec) bool { return r.client == client }, pausedAbort("for this AI app"))
}

// Profiles lists every known profile with its cached shared tabs.
func (o *Owner) Profiles() []tools.ProfileInfo { return o.reg.list() }

// Changed returns a channel that is closed at the next change of the
// registry (a profile connecting or disconnecting, tabs changing). Tests and
// status views wait on it instead of polling.
func (o *Owner) Changed() <-chan struct{} { return o.reg.changes() }

// EverConnected reports whether any extension has connected since Start.
func (o *Owner) EverConnected() bool {
	o.reg.mu.Lock()
	defer o.reg.mu.Unlock()
	return o.reg.everConnected
}

func (o *Owner) timeoutFor(typ string) time.Duration { return o.cfg.Timeout(typ) }

func (o *Owner) stopping() bool {
	select {
	case <-o.stop:
		return true
	default:
		return false
	}
}

// setupHelp is the answer to a call made before any extension connected.
func (o *Owner) setupHelp() string {
	return fmt.Sprintf("No browser is connected to monkbrowse yet. To connect one: "+
		"1) install the monkbrowse extension in Chrome (or load it unpacked from chrome://extensions with Developer mode on); "+
		"2) click its icon: the popup should say connected. It connects to port %d, the port this server listens on; if you started monkbrowse with another --port, set the same port in the extension's options page; "+
		"3) in the popup, switch Share on for the tabs the AI may use. Then call browser_list_tabs.", o.Port())
}

// Shutdown stops the owner: new calls are refused at once, in-flight calls
// get up to Config.DrainTimeout (or until ctx ends) to finish and are then
// failed with a message, every extension socket is closed and the port is
// released. It is idempotent; later calls wait for the first to finish.
func (o *Owner) Shutdown(ctx context.Context) error {
	o.shutdownOnce.Do(func() {
		defer close(o.shutdownDone)
		o.gate.close()
		drain, cancel := context.WithTimeout(ctx, o.cfg.DrainTimeout)
		o.gate.wait(drain)
		cancel()

		o.mu.Lock()
		close(o.stop) // under mu: no handler adds to wg or sockets after this
		o.mu.Unlock()
		o.cancel()
		_ = o.srv.Close() // closes the listener; hijacked sockets are ours
		o.mu.Lock()
		conns := slices.Collect(maps.Keys(o.sockets))
		o.mu.Unlock()
		o.reg.closeQueues(errShuttingDown)
		for _, c := range conns {
			_ = c.peer.Close()
		}
		o.gate.cancelAll()
		o.gate.wait(context.Background())
		o.wg.Wait()
		o.log.Info().Msg("owner stopped; extension port released")
	})
	select {
	case <-o.shutdownDone:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
