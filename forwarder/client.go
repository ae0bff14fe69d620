package forwarder

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"
	"github.com/monkbrowse/monkbrowse/messaging"
	"github.com/monkbrowse/monkbrowse/messaging/neterr"
	"github.com/monkbrowse/monkbrowse/messaging/wsconn"
	"github.com/monkbrowse/monkbrowse/protocol"
)

// Defaults for [Options].
const (
	DefaultHandshakeTimeout = 5 * time.Second
	// DefaultCallTimeout is a backstop only: the owner bounds every tool
	// with its own timeouts, so this fires only for an owner that hangs.
	DefaultCallTimeout = 10 * time.Minute
	// DefaultHeartbeat is how often the forwarder pings its owner;
	// DefaultHungAfter is how long without a pong makes the owner "not
	// responding" (issue 12, DECISIONS.md).
	DefaultHeartbeat = time.Second
	DefaultHungAfter = 3 * time.Second
)

// Options configures [Dial]. A nil *Options, and every zero field, means the
// default.
type Options struct {
	// Port is the owner's control port; 0 means protocol.DefaultControlPort.
	Port int
	// Home decides where the token is read (see [protocol.TokenPath]); "" means $HOME.
	Home string
	// PID and Version are announced in fwd_hello; 0 and "" mean this
	// process's pid and protocol.Version.
	PID     int
	Version string
	// Logger receives diagnostics; nil discards them.
	Logger *slog.Logger
	// HandshakeTimeout bounds the WebSocket upgrade and the fwd_hello
	// exchange together; 0 means DefaultHandshakeTimeout.
	HandshakeTimeout time.Duration
	// CallTimeout bounds one call_tool; 0 means DefaultCallTimeout.
	CallTimeout time.Duration
	// Heartbeat and HungAfter: see DefaultHeartbeat; 0 means the default.
	Heartbeat, HungAfter time.Duration
}

// LossReason says why a [Client] lost its owner.
type LossReason int32

const (
	// NotLost: the connection is up.
	NotLost LossReason = iota
	// OwnerLeaving: the owner announced it is releasing its ports; try to
	// take over at once.
	OwnerLeaving
	// Disconnected: the connection dropped (owner crashed or was killed,
	// or the client was closed).
	Disconnected
)

func (r LossReason) String() string {
	switch r {
	case NotLost:
		return "connected"
	case OwnerLeaving:
		return "owner leaving"
	case Disconnected:
		return "disconnected"
	}
	return "LossReason(" + strconv.Itoa(int(r)) + ")"
}

// Client is one authenticated connection from a forwarder to the owner, and
// a protocol.Caller. A Client never reconnects: when it loses its owner, [Client.Lost] is
// closed and the daemon elects a new owner and dials again. All methods are
// safe for concurrent use.
type Client struct {
	peer         *messaging.Peer
	ownerVersion string
	callTimeout  time.Duration
	log          *slog.Logger

	reason   atomic.Int32 // a LossReason
	lostOnce sync.Once
	lost     chan struct{}
	watch    chan struct{} // closed when the watcher goroutine has ended

	ownerPID  int
	ownerApp  string
	heartbeat time.Duration
	hungAfter time.Duration
	hbDone    chan struct{} // closed when the heartbeat goroutine has ended
	beating   atomic.Bool   // the heartbeat goroutine was started

	hmu     sync.Mutex
	hung    bool                                  // the owner answered no ping for hungAfter
	running map[*struct{}]context.CancelCauseFunc // calls in flight

	// Sent or not (issue 12): an owner that announced callSent asks
	// call_sent before a call's first request leaves for the extension.
	tellsSent bool
	refSeq    atomic.Uint64
	smu       sync.Mutex
	sent      map[string]bool // by call ref, for calls in flight: true once the owner said call_sent
}

// errOwnerHung is the cause of an in-flight call's context when the owner
// stopped answering pings.
var errOwnerHung = errors.New("forwarder: the owner stopped answering")

// Dial connects to the owner on the control port, says fwd_hello with the
// control token, and returns the accepted connection. Errors:
//   - wrapping [ErrNoOwner] when nothing listens on the port;
//   - *[NotOwnerError] when the port is held by something that does not
//     behave as a monkbrowse owner (or no token file exists);
//   - *[RejectedError] when a monkbrowse owner refused the hello;
//   - ctx's error when ctx ended.
//
// The WebSocket upgrade carries no Origin header: the owner refuses any
// upgrade with one, because browsers always send it.
func Dial(ctx context.Context, opts *Options) (*Client, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Port == 0 {
		o.Port = protocol.DefaultControlPort
	}
	if o.PID == 0 {
		o.PID = os.Getpid()
	}
	if o.Version == "" {
		o.Version = protocol.Version
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.HandshakeTimeout <= 0 {
		o.HandshakeTimeout = DefaultHandshakeTimeout
	}
	if o.CallTimeout <= 0 {
		o.CallTimeout = DefaultCallTimeout
	}
	tokenPath, err := protocol.TokenPath(o.Home)
	if err != nil {
		return nil, err
	}

	hctx, cancel := context.WithTimeout(ctx, o.HandshakeTimeout)
	defer cancel()
	dialer := websocket.Dialer{HandshakeTimeout: o.HandshakeTimeout} // no Proxy: loopback only
	url := "ws://" + net.JoinHostPort("127.0.0.1", strconv.Itoa(o.Port)) + "/"
	ws, resp, err := dialer.DialContext(hctx, url, nil)
	if resp != nil && resp.Body != nil {
		resp.Body.Close()
	}
	if err != nil {
		return nil, dialError(ctx, o.Port, resp, err)
	}

	// The token is read only now, after the upgrade: a new owner writes it
	// before it starts serving, so an upgraded connection guarantees the
	// file is the current owner's.
	token, err := protocol.ReadToken(tokenPath)
	if err != nil {
		ws.Close()
		if errors.Is(err, protocol.ErrNoToken) {
			return nil, &NotOwnerError{Port: o.Port, Detail: fmt.Sprintf("it accepted a WebSocket but there is no control token at %s", tokenPath)}
		}
		return nil, err
	}

	if o.Heartbeat <= 0 {
		o.Heartbeat = DefaultHeartbeat
	}
	if o.HungAfter <= 0 {
		o.HungAfter = DefaultHungAfter
	}
	c := &Client{
		callTimeout: o.CallTimeout,
		log:         o.Logger,
		lost:        make(chan struct{}),
		watch:       make(chan struct{}),
		heartbeat:   o.Heartbeat,
		hungAfter:   o.HungAfter,
		hbDone:      make(chan struct{}),
		running:     map[*struct{}]context.CancelCauseFunc{},
		sent:        map[string]bool{},
	}
	c.peer = messaging.NewPeer(wsconn.New(ws, nil), &messaging.Options{Logger: o.Logger})
	c.peer.HandleNotify(protocol.MsgOwnerLeaving, func(context.Context, json.RawMessage) {
		c.markLost(OwnerLeaving)
		// The owner sends owner_leaving after its calls have been
		// answered and waits for us to hang up (a notification still
		// queued when a connection closes is dropped, so the owner must
		// not close first). Close may not be called from a handler.
		go c.peer.Close()
	})
	c.peer.Handle(protocol.MsgCallSent, func(_ context.Context, payload json.RawMessage) (any, error) {
		var cs protocol.CallSent
		if err := json.Unmarshal(payload, &cs); err != nil {
			return nil, fmt.Errorf("call_sent payload is not valid: %v", err)
		}
		c.smu.Lock()
		if _, ok := c.sent[cs.Ref]; ok {
			c.sent[cs.Ref] = true
		}
		c.smu.Unlock()
		return struct{}{}, nil
	})
	c.peer.Start()
	go func() {
		defer close(c.watch)
		<-c.peer.Done()
		c.markLost(Disconnected)
	}()

	raw, err := c.peer.Request(hctx, protocol.MsgFwdHello, protocol.FwdHello{PID: o.PID, Version: o.Version, Token: token}, o.HandshakeTimeout)
	if err != nil {
		c.Close()
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		var re *messaging.RemoteError
		switch {
		case errors.As(err, &re):
			return nil, &NotOwnerError{Port: o.Port, Detail: "it answered fwd_hello with an error: " + re.Message}
		case errors.Is(err, messaging.ErrClosed):
			// A monkbrowse owner that is leaving closes sockets; so does a
			// program that does not speak the protocol. Treat it as a lost
			// owner and let the caller re-run the election.
			return nil, fmt.Errorf("%w on 127.0.0.1:%d (the connection closed during fwd_hello)", ErrNoOwner, o.Port)
		default:
			return nil, &NotOwnerError{Port: o.Port, Silent: true, Detail: "no answer to fwd_hello: " + err.Error()}
		}
	}
	var ack protocol.FwdHelloAck
	if err := json.Unmarshal(raw, &ack); err != nil || (ack.Version == "" && !ack.OK && ack.Reason == "") {
		c.Close()
		return nil, &NotOwnerError{Port: o.Port, Detail: "its answer to fwd_hello is not a monkbrowse fwd_hello ack: " + truncate(string(raw), 120)}
	}
	if !ack.OK {
		c.Close()
		return nil, &RejectedError{Port: o.Port, Reason: ack.Reason}
	}
	c.ownerVersion = ack.Version
	c.ownerPID, c.ownerApp = ack.PID, ack.App
	c.tellsSent = ack.CallSent
	c.beating.Store(true)
	go c.beat()
	if ack.Version != o.Version {
		o.Logger.Warn("forwarder: the monkbrowse owner runs another version; tool calls go through anyway",
			"ownerVersion", ack.Version, "ourVersion", o.Version, "port", o.Port)
	}
	return c, nil
}

// dialError classifies a failed WebSocket dial.
func dialError(ctx context.Context, port int, resp *http.Response, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if resp != nil && resp.StatusCode == http.StatusServiceUnavailable && resp.Header.Get(protocol.HeaderLeaving) != "" {
		return fmt.Errorf("%w on 127.0.0.1:%d (the owner is shutting down)", ErrNoOwner, port)
	}
	if resp != nil {
		return &NotOwnerError{Port: port, Detail: fmt.Sprintf("it answered HTTP %s instead of a WebSocket upgrade", resp.Status)}
	}
	if neterr.IsConnRefused(err) {
		return fmt.Errorf("%w on 127.0.0.1:%d", ErrNoOwner, port)
	}
	if neterr.IsConnReset(err) {
		// An owner that is closing resets connections still in its
		// listen backlog.
		return fmt.Errorf("%w on 127.0.0.1:%d (connection reset)", ErrNoOwner, port)
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() || errors.Is(err, context.DeadlineExceeded) {
		return &NotOwnerError{Port: port, Silent: true, Detail: "it accepted the connection but did not answer the WebSocket upgrade"}
	}
	return &NotOwnerError{Port: port, Detail: "the WebSocket upgrade failed: " + err.Error()}
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

func (c *Client) markLost(r LossReason) {
	c.lostOnce.Do(func() {
		c.reason.Store(int32(r))
		close(c.lost)
	})
}

// Lost is closed when the owner announced owner_leaving or the connection
// dropped; [Client.LossReason] then says which.
func (c *Client) Lost() <-chan struct{} { return c.lost }

// LossReason reports why the owner was lost, or NotLost.
func (c *Client) LossReason() LossReason { return LossReason(c.reason.Load()) }

// Done is closed once the connection itself has closed; after owner_leaving
// the client hangs up by itself.
func (c *Client) Done() <-chan struct{} { return c.peer.Done() }

// OwnerVersion is the version the owner announced in its fwd_hello ack.
func (c *Client) OwnerVersion() string { return c.ownerVersion }

// CallTool sends call_tool to the owner and returns its result.
//
// A call that certainly did not run (the owner was already lost, or it
// refused the call while handing over) fails with an error wrapping
// [ErrNotSent], and may be repeated against the next owner. A call that was
// in flight when the owner went away fails with an *[InterruptedError]: it
// may or may not have run, so only a tool that never changes anything may
// be repeated (the caller decides; an action is never repeated on a guess).
// A cancelled ctx returns ctx's error.
func (c *Client) CallTool(ctx context.Context, call protocol.CallTool) (protocol.CallToolResult, error) {
	name := call.Name
	select {
	case <-c.lost:
		return protocol.CallToolResult{}, fmt.Errorf("%w: %s (%s)", ErrNotSent, name, c.LossReason())
	default:
	}
	if c.peer.Err() != nil {
		// Already closed (the owner died), and the watcher has not marked
		// the client lost yet: nothing is sent.
		return protocol.CallToolResult{}, fmt.Errorf("%w: %s (%s)", ErrNotSent, name, Disconnected)
	}
	if len(call.Args) == 0 {
		call.Args = json.RawMessage("{}")
	}
	outer := ctx
	ctx, done, hung := c.track(ctx)
	defer done()
	if hung {
		return protocol.ErrorResult(c.hungMessage() + " This call was not sent."), nil
	}
	ref := strconv.FormatUint(c.refSeq.Add(1), 10)
	c.smu.Lock()
	c.sent[ref] = false
	c.smu.Unlock()
	defer func() {
		c.smu.Lock()
		delete(c.sent, ref)
		c.smu.Unlock()
	}()
	call.Ref = ref
	// The call's grants (what this process's own AI app allows) go with it:
	// the owner applies them, not its own. Client is not sent.
	raw, err := c.peer.Request(ctx, protocol.MsgCallTool, call, c.callTimeout)
	if err != nil && outer.Err() == nil && errors.Is(context.Cause(ctx), errOwnerHung) {
		return protocol.ErrorResult(c.hungMessage() + " This call had been sent before it stopped answering, so it may or may not run when it resumes: check the page (browser_snapshot) before repeating it."), nil
	}
	if err == nil {
		var res protocol.CallToolResult
		if err := json.Unmarshal(raw, &res); err != nil {
			return protocol.ErrorResult(fmt.Sprintf("the monkbrowse owner sent an answer to %s that cannot be read (%v); the call may or may not have run", name, err)), nil
		}
		return res, nil
	}
	if ctx.Err() != nil {
		return protocol.CallToolResult{}, ctx.Err()
	}
	var re *messaging.RemoteError
	var te *messaging.RequestTimeoutError
	switch {
	case errors.As(err, &re) && re.Code == protocol.CodeOwnerLeaving:
		return protocol.CallToolResult{}, fmt.Errorf("%w: %s (owner handing over)", ErrNotSent, name)
	case errors.As(err, &re):
		// The owner refused the call without running it (for instance a
		// connection that never said fwd_hello): a tool error, as a local
		// refusal would be.
		return protocol.ErrorResult(re.Message), nil
	case errors.As(err, &te):
		return protocol.ErrorResult(fmt.Sprintf("the monkbrowse owner did not answer %s within %s; it may or may not have run. "+
			"Check the page (for example with browser_snapshot) before repeating it.", name, te.Timeout)), nil
	default:
		// The owner answers call_sent before the call's first request
		// leaves for the extension, and the handler has run by then: a
		// call it never told about did not reach the browser.
		c.smu.Lock()
		reached := c.sent[ref]
		c.smu.Unlock()
		return protocol.CallToolResult{}, &InterruptedError{Tool: name, NotSent: c.tellsSent && !reached}
	}
}

// track registers a call in flight; it is cancelled with errOwnerHung when
// the owner stops answering pings. hung reports that it already has.
func (c *Client) track(ctx context.Context) (context.Context, func(), bool) {
	ctx, cancel := context.WithCancelCause(ctx)
	key := new(struct{})
	c.hmu.Lock()
	hung := c.hung
	c.running[key] = cancel
	c.hmu.Unlock()
	return ctx, func() {
		c.hmu.Lock()
		delete(c.running, key)
		c.hmu.Unlock()
		cancel(nil)
	}, hung
}

func (c *Client) hungMessage() string { return HungMessage(c.ownerPID, c.ownerApp) }

// HungMessage is what the AI reads while the owner does not answer, naming
// it by its pid and the AI app that started it (either may be unknown: 0,
// "").
func HungMessage(pid int, app string) string {
	who := "the monkbrowse process that owns the browser connection"
	switch {
	case pid > 0 && app != "":
		who += fmt.Sprintf(" (pid %d, started by %s)", pid, app)
	case pid > 0:
		who += fmt.Sprintf(" (pid %d)", pid)
	}
	return fmt.Sprintf("monkbrowse cannot use the browser right now: %s is not responding — is it suspended (Ctrl-Z in a terminal) or stuck? "+
		"Resume it (fg in its terminal) or quit the AI app that started it; monkbrowse keeps trying and continues as soon as it answers.", who)
}

// beat pings the owner every heartbeat; after hungAfter without a pong the
// owner is "hung": calls in flight are answered with HungMessage and new
// ones are not sent, until a pong comes again.
func (c *Client) beat() {
	defer close(c.hbDone)
	c.peer.Heartbeat(c.heartbeat, func(silent time.Duration) bool {
		c.hmu.Lock()
		defer c.hmu.Unlock()
		switch {
		case silent == 0 && c.hung:
			c.hung = false
			c.log.Info("forwarder: the owner answers again", "ownerPid", c.ownerPID)
		case silent >= c.hungAfter && !c.hung:
			c.hung = true
			for _, cancel := range c.running {
				cancel(errOwnerHung)
			}
			c.log.Warn("forwarder: the owner stopped answering pings", "ownerPid", c.ownerPID, "silentFor", silent.String())
		}
		return true
	})
}

// Status asks the owner for the report `monkbrowse doctor` prints.
func (c *Client) Status(ctx context.Context) (protocol.StatusResult, error) {
	var st protocol.StatusResult
	raw, err := c.peer.Request(ctx, protocol.MsgStatus, protocol.Status{}, 0)
	if err != nil {
		return st, fmt.Errorf("forwarder: status: %w", err)
	}
	if err := json.Unmarshal(raw, &st); err != nil {
		return st, fmt.Errorf("forwarder: status: decoding the answer: %w", err)
	}
	return st, nil
}

// Close closes the connection; calls in flight fail as in-flight calls on a
// lost owner do. It is idempotent and waits for the client's goroutines.
func (c *Client) Close() error {
	err := c.peer.Close()
	<-c.watch
	if c.beating.Load() {
		<-c.hbDone
	}
	return err
}
