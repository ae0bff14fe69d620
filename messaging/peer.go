// One cohesive concern, kept whole on purpose: the Peer's
// state machine (requests, responses, notifications, pings, cancels, close),
// whose methods share one mutex and one set of pending maps.

package messaging

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// Handler answers a request. Its result is marshalled into the response's
// "result" (nil leaves "result" out); a non-nil error becomes an ok:false
// response carrying err.Error(), so write it for the person who will read it.
// A panic is recovered and answered as an error. ctx is cancelled when the
// peer closes.
//
// An absent payload arrives as the JSON null, so json.Unmarshal into a struct
// always works. A handler must not call [Peer.Close] directly: Close waits for
// running handlers, the caller included. Use go p.Close() instead.
type Handler func(ctx context.Context, payload json.RawMessage) (any, error)

// NotifyHandler receives a notification. Notification handlers of one peer
// run one at a time, in the order the notifications arrived (see the package
// doc). ctx is cancelled when the peer closes.
type NotifyHandler func(ctx context.Context, payload json.RawMessage)

// Options configures a [Peer]. A nil *Options, and every zero field, means the
// default.
//
// There is no timeout here: a call waits as long as its context allows (see
// [WithRequestTimeout]).
type Options struct {
	// Logger receives diagnostics (dropped frames, handler panics). Nil
	// discards them: the core has no logging dependency of its own, and
	// callers bridge zerolog with zerolog.NewSlogHandler.
	Logger *slog.Logger
	// OnClose, if set, is called once after the peer has closed and every
	// goroutine it ran has ended, with the same error [Peer.Err] returns. It
	// runs on its own goroutine, so it may call any Peer method, Close
	// included.
	OnClose func(err error)
}

// Peer is one end of a messaging connection. Both ends are alike: either may
// send requests and notifications, and each answers the other's.
//
// All methods are safe for concurrent use. Handlers may be registered before
// or after [Peer.Start]; a request whose type has no handler when it arrives
// is answered with an error.
type Peer struct {
	sock    PeerSocket
	log     *slog.Logger
	onClose func(error)

	// writeLock is a one-slot channel rather than a mutex so that a writer
	// waiting for its turn can give up when its context ends.
	writeLock chan struct{}
	nextID    atomic.Uint64
	dropped   atomic.Uint64

	// ctx is the parent of every handler context and the context of the
	// socket reads; it is cancelled when the peer closes.
	ctx    context.Context
	cancel context.CancelFunc

	mu            sync.Mutex
	handlers      map[string]Handler
	notifiers     map[string]NotifyHandler
	pending       map[string]*call              // in-flight requests by id
	serving       map[string]context.CancelFunc // requests being handled, by id
	pings         []chan struct{}               // waiting pings, oldest first
	notifyQueue   []Frame                       // notifications not yet handed to a handler
	notifyRunning bool                          // a notify worker is running
	started       bool
	closed        bool
	cause         error // what ended the connection; nil for a local Close
	err           error // what Err reports
	sockCloseErr  error

	closeOnce sync.Once
	done      chan struct{}
	wg        sync.WaitGroup // read loop, handlers, notify worker, pong writers
}

// call is one in-flight request.
type call struct {
	typ string
	ch  chan reply // buffered: whoever completes the call never blocks
}

type reply struct {
	result json.RawMessage
	err    error
}

var (
	pingFrame = []byte(`{"k":"png"}`)
	pongFrame = []byte(`{"k":"pog"}`)
)

// NewPeer returns a peer that speaks over sock. Nothing is read until
// [Peer.Start]. The peer owns sock from now on: it closes it on Close.
func NewPeer(sock PeerSocket, opts *Options) *Peer {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Peer{
		sock:      sock,
		log:       o.Logger,
		onClose:   o.OnClose,
		writeLock: make(chan struct{}, 1),
		ctx:       ctx,
		cancel:    cancel,
		handlers:  make(map[string]Handler),
		notifiers: make(map[string]NotifyHandler),
		pending:   make(map[string]*call),
		serving:   make(map[string]context.CancelFunc),
		done:      make(chan struct{}),
	}
}

// Handle sets the handler for requests of type typ, replacing any earlier
// one; a nil h removes it.
func (p *Peer) Handle(typ string, h Handler) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if h == nil {
		delete(p.handlers, typ)
	} else {
		p.handlers[typ] = h
	}
}

// HandleNotify sets the handler for notifications of type typ; a nil h
// removes it. Notifications without a handler are ignored.
func (p *Peer) HandleNotify(typ string, h NotifyHandler) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if h == nil {
		delete(p.notifiers, typ)
	} else {
		p.notifiers[typ] = h
	}
}

// Start starts reading the socket. Calls after the first, or after Close,
// do nothing. Requests may be sent before Start, but their responses are
// only read once it has been called.
func (p *Peer) Start() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.started || p.closed {
		return
	}
	p.started = true
	p.wg.Add(1)
	go p.readLoop()
}

// Request sends a request and waits for its response for as long as ctx
// allows: a request whose ctx has no deadline waits for its answer, the
// peer's close or ctx's cancellation. It returns the response's result (the
// JSON null when the other side sent none), or:
//   - the *[RequestTimeoutError] that is ctx's cause, when ctx ended because
//     of it (see [WithRequestTimeout]); the other side is not told;
//   - otherwise, when ctx ended first (cancelled, or a deadline with another
//     cause or none), an error wrapping ctx.Err() and the cause; the other
//     side is then sent a [CancelType] notification so its handler's context
//     is cancelled;
//   - *[RemoteError] for an ok:false response;
//   - an error matching [ErrClosed] that says "peer disconnected" when the
//     peer is or becomes closed.
//
// A response that arrives after the call gave up is dropped.
func (p *Peer) Request(ctx context.Context, typ string, payload any) (json.RawMessage, error) {
	return p.request(ctx, typ, payload, false)
}

// RequestSettled is Request for a caller that must know the other side is
// done before it moves on (a tab's queue hands the tab to the next call
// only then). When ctx is cancelled (or ends with a cause that is not a
// *[RequestTimeoutError]) before the response, it sends the [CancelType]
// notification and keeps waiting for the response until ctx's deadline, if
// it has one, passes or the peer closes; then it returns ctx's error,
// wrapped, whatever the response said. Give ctx a deadline (the request's
// own timeout) to bound that wait.
func (p *Peer) RequestSettled(ctx context.Context, typ string, payload any) (json.RawMessage, error) {
	return p.request(ctx, typ, payload, true)
}

// WithRequestTimeout returns a child of ctx that ends after d with a
// *[RequestTimeoutError]{Type: typ, Timeout: d} as its cause, so that a
// [Peer.Request], [Peer.RequestSettled] or [Peer.Ping] made with it fails
// with that typed error when d passes. A deadline of ctx that comes earlier
// wins, with ctx's own cause. Call cancel when the request has returned.
func WithRequestTimeout(ctx context.Context, typ string, d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeoutCause(ctx, d, &RequestTimeoutError{Type: typ, Timeout: d})
}

func (p *Peer) request(ctx context.Context, typ string, payload any, settle bool) (json.RawMessage, error) {
	op := "request " + strconv.Quote(typ)
	raw, err := marshalValue(payload)
	if err != nil {
		return nil, fmt.Errorf("messaging: %s: encoding payload: %w", op, err)
	}
	id := strconv.FormatUint(p.nextID.Add(1), 10)
	frame, err := Frame{K: KindRequest, ID: id, Type: typ, Payload: raw}.Encode()
	if err != nil {
		return nil, fmt.Errorf("messaging: %s: %w", op, err)
	}

	c := &call{typ: typ, ch: make(chan reply, 1)}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil, p.closedError(op)
	}
	p.pending[id] = c
	p.mu.Unlock()

	if err := p.send(ctx, frame); err != nil {
		p.forget(id)
		return nil, p.sendError(ctx, op, err)
	}
	select {
	case r := <-c.ch:
		return r.result, r.err
	case <-ctx.Done():
	}
	if timedOut(ctx) {
		// The request's own timeout: give up without telling the other
		// side, but take an answer that raced with it.
		p.forget(id)
		select {
		case r := <-c.ch:
			return r.result, r.err
		default:
		}
		return nil, contextError(ctx, op)
	}
	// The caller gave up: tell the other side to stop.
	p.sendCancel(id)
	if settle {
		wait, cancel := untilDeadline(ctx)
		select {
		case <-c.ch:
		case <-wait.Done():
		case <-p.done:
		}
		cancel()
	}
	p.forget(id)
	return nil, contextError(ctx, op)
}

// untilDeadline is ctx's deadline without its cancellation: a settling
// request waits for the answer to its cancel at most until then (forever
// when ctx has no deadline; the peer's close still ends the wait).
func untilDeadline(ctx context.Context) (context.Context, context.CancelFunc) {
	detached := context.WithoutCancel(ctx)
	if dl, ok := ctx.Deadline(); ok {
		return context.WithDeadline(detached, dl)
	}
	return context.WithCancel(detached)
}

// sendCancel tells the other side that the request id is no longer
// wanted. Best effort: a peer that cannot be written to is closing anyway.
func (p *Peer) sendCancel(id string) {
	raw, _ := json.Marshal(CancelPayload{ID: id})
	frame, err := Frame{K: KindNotify, Type: CancelType, Payload: raw}.Encode()
	if err != nil {
		return
	}
	ctx, cancel := context.WithTimeout(p.ctx, 5*time.Second)
	defer cancel()
	if err := p.send(ctx, frame); err != nil {
		p.log.Debug("messaging: sending cancel", "id", id, "err", err)
	}
}

// Notify sends a notification. It waits only for the frame to be written,
// never for an answer (there is none).
func (p *Peer) Notify(ctx context.Context, typ string, payload any) error {
	op := "notify " + strconv.Quote(typ)
	raw, err := marshalValue(payload)
	if err != nil {
		return fmt.Errorf("messaging: %s: encoding payload: %w", op, err)
	}
	frame, err := Frame{K: KindNotify, Type: typ, Payload: raw}.Encode()
	if err != nil {
		return fmt.Errorf("messaging: %s: %w", op, err)
	}
	if p.isClosed() {
		return p.closedError(op)
	}
	if err := p.send(ctx, frame); err != nil {
		return p.sendError(ctx, op, err)
	}
	return nil
}

// Heartbeat pings the other side every interval (each ping waits at most
// interval) until the peer closes or beat returns false. After each ping beat
// learns how long the other side has been silent: 0 right after a pong,
// otherwise the time since the last pong (or since Heartbeat began).
func (p *Peer) Heartbeat(interval time.Duration, beat func(silent time.Duration) bool) {
	t := time.NewTicker(interval)
	defer t.Stop()
	last := time.Now()
	for {
		select {
		case <-p.Done():
			return
		case <-t.C:
		}
		ctx, cancel := WithRequestTimeout(context.Background(), "ping", interval)
		err := p.Ping(ctx)
		cancel()
		silent := time.Duration(0)
		if err == nil {
			last = time.Now()
		} else {
			silent = time.Since(last)
		}
		if !beat(silent) {
			return
		}
	}
}

// Ping sends a ping and waits for a pong for as long as ctx allows (give it
// a deadline, for instance with [WithRequestTimeout] and Type "ping"). Pongs carry
// no id, so each pong completes the oldest waiting ping: either way it proves
// the other side is reading and writing.
func (p *Peer) Ping(ctx context.Context) error {
	const op = "ping"
	ch := make(chan struct{}, 1)
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return p.closedError(op)
	}
	p.pings = append(p.pings, ch)
	p.mu.Unlock()

	if err := p.send(ctx, pingFrame); err != nil {
		p.forgetPing(ch)
		return p.sendError(ctx, op, err)
	}
	select {
	case <-ch:
		return nil
	case <-p.done:
		// shutdown drops the waiting pings rather than completing them.
		select {
		case <-ch:
			return nil
		default:
		}
		return p.closedError(op)
	case <-ctx.Done():
		p.forgetPing(ch)
		return contextError(ctx, op)
	}
}

// Close closes the peer: it stops reading, fails every in-flight request and
// ping, cancels handler contexts, closes the socket and waits for every
// goroutine the peer started (handlers included) to return. It is safe to
// call more than once and from several goroutines, but not from inside a
// handler (see [Handler]). It returns the socket's Close error.
func (p *Peer) Close() error {
	p.shutdown(nil)
	p.wg.Wait()
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.sockCloseErr
}

// Done is closed when the peer has closed, by Close or because the socket
// failed.
func (p *Peer) Done() <-chan struct{} { return p.done }

// Err says why the peer closed: nil while it is open, [ErrClosed] after a
// local Close, and otherwise an error matching ErrClosed that says "peer
// disconnected" and unwraps to the transport's error.
func (p *Peer) Err() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err
}

// Dropped returns how many malformed frames (bad JSON, unknown kind, missing
// id or type) the peer has received and ignored.
func (p *Peer) Dropped() uint64 { return p.dropped.Load() }

// readLoop is the one goroutine that reads the socket.
func (p *Peer) readLoop() {
	defer p.wg.Done()
	for {
		data, err := p.sock.Receive(p.ctx)
		if err != nil {
			p.shutdown(err)
			return
		}
		p.dispatch(data)
	}
}

// dispatch handles one received frame. It never blocks on the socket or on a
// handler: anything that writes or runs user code gets its own goroutine.
// Goroutines are added to wg here, on the read loop, which is itself counted
// in wg, so the adds never race with Close's Wait.
func (p *Peer) dispatch(data []byte) {
	f, err := DecodeFrame(data)
	if err != nil {
		n := p.dropped.Add(1)
		p.log.Warn("messaging: dropped malformed frame", "err", err, "bytes", len(data), "dropped", n)
		return
	}
	switch f.K {
	case KindRequest:
		p.wg.Add(1)
		go p.serveRequest(f)
	case KindResponse:
		p.complete(f)
	case KindNotify:
		if f.Type == CancelType {
			p.cancelServing(f.Payload)
			return
		}
		p.enqueueNotify(f)
	case KindPing:
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			if err := p.send(p.ctx, pongFrame); err != nil {
				p.log.Debug("messaging: sending pong", "err", err)
			}
		}()
	case KindPong:
		p.mu.Lock()
		if len(p.pings) > 0 {
			p.pings[0] <- struct{}{}
			p.pings = p.pings[1:]
		}
		p.mu.Unlock()
	}
}

// complete hands a response to its waiting Request.
func (p *Peer) complete(f Frame) {
	p.mu.Lock()
	c := p.pending[f.ID]
	delete(p.pending, f.ID)
	p.mu.Unlock()
	if c == nil {
		// Normal after a timeout or cancellation: the caller has gone.
		p.log.Debug("messaging: response for no waiting request", "id", f.ID)
		return
	}
	if *f.OK {
		c.ch <- reply{result: orNull(f.Result)}
	} else {
		c.ch <- reply{err: &RemoteError{Type: c.typ, Message: f.Error, Code: f.Code}}
	}
}

// serveRequest runs the handler for one request and writes the response.
func (p *Peer) serveRequest(f Frame) {
	defer p.wg.Done()
	p.mu.Lock()
	h := p.handlers[f.Type]
	p.mu.Unlock()

	var result any
	var err error
	if h == nil {
		err = fmt.Errorf("no handler for request %q", f.Type)
	} else {
		ctx, cancel := context.WithCancel(p.ctx)
		p.mu.Lock()
		p.serving[f.ID] = cancel
		p.mu.Unlock()
		result, err = p.runHandler(ctx, h, f)
		p.mu.Lock()
		delete(p.serving, f.ID)
		p.mu.Unlock()
		cancel()
	}
	data, err := encodeResponse(f, result, err)
	if err != nil {
		// The handler's result was not encodable (for example an invalid
		// json.RawMessage): say so rather than leave the caller waiting.
		data, _ = encodeResponse(f, nil, fmt.Errorf("handler for %q returned a result that cannot be encoded: %v", f.Type, err))
	}
	if err := p.send(p.ctx, data); err != nil {
		p.log.Debug("messaging: sending response", "type", f.Type, "id", f.ID, "err", err)
	}
}

func encodeResponse(req Frame, result any, herr error) ([]byte, error) {
	res := Frame{K: KindResponse, ID: req.ID}
	ok := herr == nil
	res.OK = &ok
	if herr != nil {
		res.Error = herr.Error()
		res.Code = ErrorCode(herr)
		return res.Encode()
	}
	raw, err := marshalValue(result)
	if err != nil {
		return nil, err
	}
	res.Result = raw
	return res.Encode()
}

func (p *Peer) runHandler(ctx context.Context, h Handler, f Frame) (result any, err error) {
	defer func() {
		if r := recover(); r != nil {
			p.log.Error("messaging: request handler panicked", "type", f.Type, "panic", r, "stack", string(debug.Stack()))
			result, err = nil, fmt.Errorf("handler for %q panicked: %v", f.Type, r)
		}
	}()
	return h(ctx, orNull(f.Payload))
}

// cancelServing applies a [CancelType] notification: the handler serving
// that request id sees its context cancelled. Unknown ids (finished
// already) are ignored.
func (p *Peer) cancelServing(payload json.RawMessage) {
	var c CancelPayload
	if json.Unmarshal(payload, &c) != nil {
		p.dropped.Add(1)
		return
	}
	p.mu.Lock()
	cancel := p.serving[c.ID]
	p.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// enqueueNotify queues a notification and starts the worker if none is
// running; the worker exits when the queue is empty, so an idle peer holds no
// goroutine for it.
func (p *Peer) enqueueNotify(f Frame) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return
	}
	p.notifyQueue = append(p.notifyQueue, f)
	if !p.notifyRunning {
		p.notifyRunning = true
		p.wg.Add(1)
		go p.notifyWorker()
	}
}

func (p *Peer) notifyWorker() {
	defer p.wg.Done()
	for {
		p.mu.Lock()
		if len(p.notifyQueue) == 0 || p.closed {
			p.notifyQueue = nil
			p.notifyRunning = false
			p.mu.Unlock()
			return
		}
		f := p.notifyQueue[0]
		p.notifyQueue[0] = Frame{} // let the payload be collected
		p.notifyQueue = p.notifyQueue[1:]
		h := p.notifiers[f.Type]
		p.mu.Unlock()
		if h == nil {
			p.log.Debug("messaging: notification without handler", "type", f.Type)
			continue
		}
		p.runNotify(h, f)
	}
}

func (p *Peer) runNotify(h NotifyHandler, f Frame) {
	defer func() {
		if r := recover(); r != nil {
			p.log.Error("messaging: notification handler panicked", "type", f.Type, "panic", r, "stack", string(debug.Stack()))
		}
	}()
	h(p.ctx, orNull(f.Payload))
}

// send writes one frame, holding the write lock so that at most one frame is
// being written at a time whatever the socket promises.
func (p *Peer) send(ctx context.Context, frame []byte) error {
	select {
	case p.writeLock <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	case <-p.done:
		return ErrClosed
	}
	defer func() { <-p.writeLock }()
	// The frame is committed once the write lock is held: a cancellation
	// now must not interrupt the write, since a socket can abandon a write
	// only by closing the connection (wsconn), which would fail every
	// other call on it (issue 21: a cancel at the wrong moment dropped the
	// extension and the forwarders). The caller's deadline still bounds the
	// write, and so does sendTimeout.
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), sendTimeout)
	defer cancel()
	if dl, ok := ctx.Deadline(); ok {
		var cancelDL context.CancelFunc
		wctx, cancelDL = context.WithDeadline(wctx, dl)
		defer cancelDL()
	}
	return p.sock.Send(wctx, frame)
}

// sendTimeout bounds one committed write.
const sendTimeout = 30 * time.Second

// shutdown closes the peer once. cause is the socket error that ended the
// read loop, or nil for a local Close.
func (p *Peer) shutdown(cause error) {
	p.closeOnce.Do(func() {
		p.mu.Lock()
		p.closed = true
		if cause == nil {
			p.err = ErrClosed
			p.cause = ErrClosed
		} else {
			p.err = &disconnectedError{cause: cause}
			p.cause = cause
		}
		pending := p.pending
		p.pending = make(map[string]*call)
		p.pings = nil
		p.notifyQueue = nil
		p.mu.Unlock()

		// The socket is closed before the context is cancelled: a socket
		// may abandon a read on cancellation by dropping the connection
		// (wsconn does), and Close must get to send its clean close first.
		sockErr := p.sock.Close()
		p.cancel()
		p.mu.Lock()
		p.sockCloseErr = sockErr
		p.mu.Unlock()

		for _, c := range pending {
			c.ch <- reply{err: p.closedError("request " + strconv.Quote(c.typ))}
		}
		close(p.done)

		if p.onClose != nil {
			err := p.Err()
			go func() {
				p.wg.Wait()
				p.onClose(err)
			}()
		}
	})
}

func (p *Peer) isClosed() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.closed
}

// closedError is what a call on a closed peer returns.
func (p *Peer) closedError(op string) error {
	p.mu.Lock()
	cause := p.cause
	p.mu.Unlock()
	return &disconnectedError{op: op, cause: cause}
}

func (p *Peer) forget(id string) {
	p.mu.Lock()
	delete(p.pending, id)
	p.mu.Unlock()
}

func (p *Peer) forgetPing(ch chan struct{}) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for i, c := range p.pings {
		if c == ch {
			p.pings = append(p.pings[:i:i], p.pings[i+1:]...)
			return
		}
	}
}

// sendError explains a failed write: the call's own timeout or context, the
// peer having closed, or the transport's error.
func (p *Peer) sendError(ctx context.Context, op string, err error) error {
	if ctx.Err() != nil {
		return contextError(ctx, op)
	}
	if p.isClosed() || errors.Is(err, ErrClosed) {
		return p.closedError(op)
	}
	return fmt.Errorf("messaging: %s: %w", op, err)
}

// timedOut reports whether ctx ended because of a request timeout
// (a *[RequestTimeoutError] cause, see [WithRequestTimeout]).
func timedOut(ctx context.Context) bool {
	var te *RequestTimeoutError
	return errors.As(context.Cause(ctx), &te)
}

// contextError reports why ctx ended: a request timeout as the typed error
// (ctx's cause), anything else as ctx.Err() wrapped together with the cause
// when there is a distinct one (errors.Is finds both).
func contextError(ctx context.Context, op string) error {
	cause := context.Cause(ctx)
	var te *RequestTimeoutError
	if errors.As(cause, &te) {
		return te
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) && cause == ctx.Err() {
		return fmt.Errorf("messaging: %s: no answer before the context's deadline: %w", op, ctx.Err())
	}
	if cause != nil && cause != ctx.Err() {
		return fmt.Errorf("messaging: %s: %w (%w)", op, ctx.Err(), cause)
	}
	return fmt.Errorf("messaging: %s: %w", op, ctx.Err())
}

func orNull(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return json.RawMessage("null") // a fresh copy: callers may write to it
	}
	return raw
}
