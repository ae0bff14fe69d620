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

	"github.com/gorilla/websocket"

	"github.com/monkbrowse/monkbrowse/messaging"
	"github.com/monkbrowse/monkbrowse/messaging/neterr"
	"github.com/monkbrowse/monkbrowse/messaging/wsconn"
	"github.com/monkbrowse/monkbrowse/protocol"
)

// Dial connects to the owner on the control port, runs the mutual proof of
// DESIGN §5.4 and returns the accepted connection: fwd_hello with a fresh
// nonce, the owner's proof checked (nothing else is sent to a listener that
// cannot prove it holds the control token), then fwd_auth with this
// process's proof. The token itself never leaves the process. Errors:
//   - wrapping [ErrNoOwner] when nothing listens on the port;
//   - *[NotOwnerError] when the port is held by something that does not
//     behave as a monkbrowse owner (or no token file exists), with NotYours
//     set when it answered but could not prove the token;
//   - *[OutdatedOwnerError] when the owner is a monkbrowse older than the
//     proof;
//   - *[RejectedError] when a monkbrowse owner refused the hello or proof;
//   - ctx's error when ctx was cancelled.
//
// ctx bounds the dial and the proof exchange: without a deadline of its
// own they get [DefaultHandshakeTimeout]. Something that has not finished
// the handshake by the deadline is reported as a silent *[NotOwnerError].
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
	tokenPath, err := protocol.TokenPath(o.Home)
	if err != nil {
		return nil, err
	}

	hctx := ctx
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		hctx, cancel = messaging.WithRequestTimeout(ctx, protocol.MsgFwdHello, DefaultHandshakeTimeout)
		defer cancel()
	}
	dialer := websocket.Dialer{} // hctx bounds the upgrade; no Proxy: loopback only
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
		log:       o.Logger,
		lost:      make(chan struct{}),
		watch:     make(chan struct{}),
		heartbeat: o.Heartbeat,
		hungAfter: o.HungAfter,
		hbDone:    make(chan struct{}),
		running:   map[*struct{}]context.CancelCauseFunc{},
		sent:      map[string]*sentState{},
	}
	// Frames from the other side are small until it has proven itself.
	sock := wsconn.New(ws, &wsconn.Options{UnprovenLimit: protocol.MaxUnprovenFrame})
	c.peer = messaging.NewPeer(sock, &messaging.Options{Logger: o.Logger})
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
		// The forwarder's one place where an abort is honoured (DESIGN
		// §5.5): under smu, the call is either let go (and counts as sent
		// from now on) or refused because its client cancelled it (or it
		// has already returned): cancelled means never sent.
		c.smu.Lock()
		defer c.smu.Unlock()
		st := c.sent[cs.Ref]
		if st == nil || st.ctx.Err() != nil {
			return nil, messaging.WithCode(protocol.CodeCancelled, fmt.Errorf("call %s was cancelled by its MCP client (or has already been answered): do not send it", cs.Ref))
		}
		st.sent = true
		return struct{}{}, nil
	})
	c.peer.Handle(protocol.MsgHTTPStatus, func(context.Context, json.RawMessage) (any, error) {
		if o.HTTP != nil {
			if h := o.HTTP(); h != nil {
				return h, nil
			}
		}
		return protocol.HTTPStatus{}, nil
	})
	c.peer.Start()
	go func() {
		defer close(c.watch)
		<-c.peer.Done()
		c.markLost(Disconnected)
	}()

	nonce := protocol.NewNonce()
	raw, err := c.peer.Request(hctx, protocol.MsgFwdHello, protocol.FwdHello{PID: o.PID, Version: o.Version, Nonce: nonce})
	if err != nil {
		c.Close()
		return nil, handshakeError(ctx, o.Port, protocol.MsgFwdHello, err)
	}
	var ack protocol.FwdHelloAck
	if err := json.Unmarshal(raw, &ack); err != nil || (ack.Version == "" && !ack.OK && ack.Reason == "") {
		c.Close()
		return nil, &NotOwnerError{Port: o.Port, Detail: "its answer to fwd_hello is not a monkbrowse fwd_hello ack; " + protocol.QuoteUnverified(o.Port, string(raw))}
	}
	if ack.Auth == "" {
		// An owner older than the proof answers a hello without a token
		// with a rejection and nothing else; never send it one.
		c.Close()
		return nil, &OutdatedOwnerError{Port: o.Port, Version: ack.Version}
	}
	if !ack.OK {
		c.Close()
		// Before the owner's proof: the reason is the words of whatever
		// holds the port.
		return nil, &RejectedError{Port: o.Port, Reason: ack.Reason, Unproven: true}
	}
	if ack.Auth != protocol.AuthScheme || !protocol.CheckProof(token, protocol.ProofLabelOwner, nonce, ack.Nonce, ack.Proof) {
		c.Close()
		return nil, &NotOwnerError{Port: o.Port, NotYours: true, Detail: "it could not prove that it holds your control token (" + tokenPath + ")"}
	}
	// The owner has proven itself: its frames may be big from now on.
	sock.RaiseReadLimit()
	raw, err = c.peer.Request(hctx, protocol.MsgFwdAuth, protocol.FwdAuth{Proof: protocol.Proof(token, protocol.ProofLabelForwarder, nonce, ack.Nonce)})
	if err != nil {
		c.Close()
		return nil, handshakeError(ctx, o.Port, protocol.MsgFwdAuth, err)
	}
	var auth protocol.FwdAuthAck
	if err := json.Unmarshal(raw, &auth); err != nil {
		c.Close()
		return nil, &NotOwnerError{Port: o.Port, Detail: "its answer to fwd_auth is not a monkbrowse fwd_auth ack: " + strconv.Quote(protocol.Cut(string(raw), 120))}
	}
	if !auth.OK {
		c.Close()
		return nil, &RejectedError{Port: o.Port, Reason: auth.Reason}
	}
	c.ownerVersion = ack.Version
	c.ownerPID, c.ownerApp = auth.PID, auth.App
	c.tellsSent = auth.CallSent
	c.beating.Store(true)
	go c.beat()
	if ack.Version != o.Version {
		o.Logger.Warn("forwarder: the monkbrowse owner runs another version; tool calls go through anyway",
			"ownerVersion", ack.Version, "ourVersion", o.Version, "port", o.Port)
	}
	return c, nil
}

// handshakeError classifies a failed fwd_hello or fwd_auth request.
func handshakeError(ctx context.Context, port int, msg string, err error) error {
	if errors.Is(ctx.Err(), context.Canceled) {
		return ctx.Err()
	}
	var re *messaging.RemoteError
	switch {
	case errors.As(err, &re):
		if msg == protocol.MsgFwdHello {
			// Nothing has proven itself yet: the words of whatever
			// holds the port.
			return &NotOwnerError{Port: port, Detail: "it answered " + msg + " with an error; " + protocol.QuoteUnverified(port, re.Message)}
		}
		return &NotOwnerError{Port: port, Detail: "it answered " + msg + " with an error: " + strconv.Quote(protocol.Cut(re.Message, protocol.MaxQuoted))}
	case errors.Is(err, messaging.ErrClosed):
		// A monkbrowse owner that is leaving closes sockets; so does a
		// program that does not speak the protocol. Treat it as a lost
		// owner and let the caller re-run the election.
		return fmt.Errorf("%w on 127.0.0.1:%d (the connection closed during %s)", ErrNoOwner, port, msg)
	default:
		return &NotOwnerError{Port: port, Silent: true, Detail: "no answer to " + msg + ": " + err.Error()}
	}
}

// dialError classifies a failed WebSocket dial.
func dialError(ctx context.Context, port int, resp *http.Response, err error) error {
	// Only a cancellation is the caller's own; a deadline that ends the
	// upgrade, whoever set it, means the holder did not answer.
	if errors.Is(ctx.Err(), context.Canceled) {
		return ctx.Err()
	}
	if resp != nil && resp.StatusCode == http.StatusServiceUnavailable && resp.Header.Get(protocol.HeaderLeaving) != "" {
		return fmt.Errorf("%w on 127.0.0.1:%d (the owner is shutting down)", ErrNoOwner, port)
	}
	if resp != nil {
		// The status code only: the reason phrase is the holder's words.
		return &NotOwnerError{Port: port, Detail: fmt.Sprintf("it answered HTTP %d instead of a WebSocket upgrade", resp.StatusCode)}
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
