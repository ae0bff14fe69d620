// Package wsconn adapts a gorilla/websocket connection to the
// messaging.PeerSocket interface, so that a messaging.Peer can run over the
// extension's WebSocket and over the control port.
//
// gorilla/websocket allows one concurrent writer and one concurrent reader,
// and handles control frames only while a read is in progress. The adapter
// serialises writers itself and expects the Peer's single read loop to be
// reading at all times. A write or read that fails or is interrupted leaves
// a WebSocket in an unknown state (a frame may be half written), so the
// adapter closes the connection whenever that happens: the Peer then sees
// the connection end and fails its calls with "peer disconnected" instead of
// writing into a broken stream.
package wsconn

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"
	"github.com/monkbrowse/monkbrowse/messaging"
)

// DefaultReadLimit bounds one incoming frame. It is large enough for a full
// page screenshot or a file upload in base64 and small enough that a
// misbehaving client cannot make the server buffer without limit.
const DefaultReadLimit = 32 << 20

// closeWait bounds how long Close spends sending the close frame to a peer
// that may have stopped reading.
const closeWait = time.Second

// Options configures the adapter. A nil *Options means the defaults.
type Options struct {
	// ReadLimit is the largest frame accepted, in bytes. Zero means
	// DefaultReadLimit (32 MiB); negative means no limit. A larger frame
	// closes the connection with status 1009 (message too big).
	ReadLimit int64
	// UnprovenLimit, if positive and below ReadLimit, is the largest frame
	// accepted until [Conn.RaiseReadLimit] is called: a connection that has
	// not proven itself yet may make the process buffer only this much. A
	// larger frame closes the connection with 1009 after at most
	// UnprovenLimit+1 bytes of it were read.
	UnprovenLimit int64
}

// Conn is a messaging.PeerSocket over a gorilla *websocket.Conn. It sends
// text frames and accepts text or binary ones.
type Conn struct {
	ws        *websocket.Conn
	limit     atomic.Int64  // the current read limit; 0: none
	full      int64         // the limit after RaiseReadLimit
	writeLock chan struct{} // one slot: lets a waiting writer give up on ctx
	closeOnce sync.Once
	closed    chan struct{} // closed by Close
	closeErr  error
}

var _ messaging.PeerSocket = (*Conn)(nil)

// New wraps conn. The returned socket owns conn: its Close closes conn.
func New(conn *websocket.Conn, opts *Options) *Conn {
	limit := int64(DefaultReadLimit)
	if opts != nil && opts.ReadLimit != 0 {
		limit = opts.ReadLimit
	}
	if limit < 0 {
		limit = 0 // gorilla's "no limit"
	}
	// gorilla checks its limit at every frame header, before it buffers
	// the frame: it holds the full limit. The unproven limit is enforced
	// in Receive, also before buffering more than it, because it must be
	// raisable while a read is already waiting (gorilla's limit may only
	// be changed by the reading goroutine).
	conn.SetReadLimit(limit)
	c := &Conn{ws: conn, full: limit, writeLock: make(chan struct{}, 1), closed: make(chan struct{})}
	c.limit.Store(limit)
	if opts != nil && opts.UnprovenLimit > 0 && (limit == 0 || opts.UnprovenLimit < limit) {
		c.limit.Store(opts.UnprovenLimit)
	}
	return c
}

// RaiseReadLimit lifts the UnprovenLimit: from the next message whose
// first frame arrives after the call, frames up to ReadLimit are accepted.
// Call it once the connection has proven itself, before answering the
// proof (the other side sends big frames only after that answer). Safe
// from any goroutine.
func (c *Conn) RaiseReadLimit() { c.limit.Store(c.full) }

// closedError is returned once the connection is over; it matches
// messaging.ErrClosed and, when the other side or the network ended it,
// unwraps to gorilla's error (a *websocket.CloseError carries the code).
type closedError struct{ cause error }

func (e *closedError) Error() string {
	if e.cause == nil {
		return "wsconn: connection closed"
	}
	return "wsconn: connection closed: " + e.cause.Error()
}
func (e *closedError) Is(target error) bool { return target == messaging.ErrClosed }
func (e *closedError) Unwrap() error        { return e.cause }

// Send writes frame as one text message. It returns when the message is
// written, when ctx ends (closing the connection if the write had started),
// or when the connection closes. ctx's deadline becomes the write deadline.
func (c *Conn) Send(ctx context.Context, frame []byte) error {
	select {
	case <-c.closed:
		return &closedError{}
	default:
	}
	select {
	case c.writeLock <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	case <-c.closed:
		return &closedError{}
	}
	defer func() { <-c.writeLock }()
	if err := ctx.Err(); err != nil {
		return err // nothing written yet: no need to break the connection
	}

	deadline, _ := ctx.Deadline() // zero: no deadline
	if err := c.ws.SetWriteDeadline(deadline); err != nil {
		return c.fail(err)
	}
	// gorilla cannot abandon a write half way; closing the connection is
	// the only way to unblock it, and the connection is unusable after an
	// interrupted write anyway.
	stop := context.AfterFunc(ctx, func() { c.ws.Close() })
	err := c.ws.WriteMessage(websocket.TextMessage, frame)
	interrupted := !stop()
	if err == nil {
		return nil
	}
	if interrupted && ctx.Err() != nil {
		c.shut()
		return ctx.Err()
	}
	return c.fail(err)
}

// Receive returns the next message. A cancelled ctx closes the connection,
// because a gorilla read cannot be abandoned otherwise. After Close, or once
// the other side has closed, it returns an error matching
// messaging.ErrClosed.
func (c *Conn) Receive(ctx context.Context) ([]byte, error) {
	select {
	case <-c.closed:
		return nil, &closedError{}
	default:
	}
	stop := context.AfterFunc(ctx, func() { c.ws.Close() })
	data, err := c.read()
	stop()
	if err == nil {
		return data, nil
	}
	if ctx.Err() != nil {
		c.shut()
		return nil, ctx.Err()
	}
	return nil, c.fail(err)
}

// read reads one message, refusing one larger than the current limit after
// reading at most limit+1 bytes of it.
func (c *Conn) read() ([]byte, error) {
	_, r, err := c.ws.NextReader()
	if err != nil {
		return nil, err
	}
	limit := c.limit.Load()
	if limit == 0 || limit == c.full {
		return io.ReadAll(r) // gorilla enforces the full limit itself
	}
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		// What gorilla does at its own limit: close 1009, then give up.
		_ = c.ws.WriteControl(websocket.CloseMessage,
			websocket.FormatCloseMessage(websocket.CloseMessageTooBig, ""), time.Now().Add(closeWait))
		return nil, fmt.Errorf("%w (%d bytes before the connection proved itself)", websocket.ErrReadLimit, limit)
	}
	return data, nil
}

// fail closes the connection after an error that leaves it unusable and
// returns the error to report.
func (c *Conn) fail(err error) error {
	select {
	case <-c.closed:
		return &closedError{} // closed locally: the error is a consequence
	default:
	}
	c.shut()
	if errors.Is(err, websocket.ErrReadLimit) {
		return &closedError{cause: fmt.Errorf("incoming frame larger than the read limit: %w", err)}
	}
	return &closedError{cause: err}
}

// Close sends a normal-closure close frame, so the other side sees a clean
// 1000 rather than an abnormal 1006, and closes the connection. It is
// idempotent, safe from any goroutine, and unblocks Send and Receive.
func (c *Conn) Close() error {
	c.closeOnce.Do(func() {
		close(c.closed)
		// WriteControl is safe alongside another writer; it fails
		// harmlessly if the connection is already broken.
		_ = c.ws.WriteControl(websocket.CloseMessage,
			websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""), time.Now().Add(closeWait))
		c.closeErr = c.ws.Close()
	})
	return c.closeErr
}

// shut closes the connection without a close frame, for connections that
// are already broken.
func (c *Conn) shut() {
	c.closeOnce.Do(func() {
		close(c.closed)
		c.closeErr = c.ws.Close()
	})
}
