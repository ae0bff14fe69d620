package messaging

import (
	"context"
	"fmt"
	"sync"
)

// pipeBuffer is how many frames each direction of a Pipe holds before Send
// blocks. Enough that tests with many requests in flight do not stall on
// the pipe, small enough that a reader that stopped shows up as a blocked
// writer rather than as unbounded memory.
const pipeBuffer = 128

// Pipe returns an in-memory linked pair of sockets: what one side Sends the
// other Receives, in order. Closing either side closes the pair: the other
// side still receives the frames that were already sent (as a WebSocket
// delivers data sent before a close frame) and then an error wrapping
// [ErrClosed]. Frames are copied on Send, so callers may reuse their buffers.
//
// Pipe is meant for tests and for wiring two components of one process.
func Pipe() (PeerSocket, PeerSocket) {
	ab := make(chan []byte, pipeBuffer)
	ba := make(chan []byte, pipeBuffer)
	a := &pipeEnd{in: ba, out: ab, closed: make(chan struct{})}
	b := &pipeEnd{in: ab, out: ba, closed: make(chan struct{})}
	a.remote, b.remote = b.closed, a.closed
	return a, b
}

type pipeEnd struct {
	in     <-chan []byte
	out    chan<- []byte
	closed chan struct{} // closed by this end's Close
	remote chan struct{} // the other end's closed
	once   sync.Once
}

var errPipeClosed = fmt.Errorf("pipe: %w", ErrClosed)

func (p *pipeEnd) Send(ctx context.Context, frame []byte) error {
	// Checked first because select picks among ready cases at random: a
	// closed pipe must refuse even when the buffer has room.
	select {
	case <-p.closed:
		return errPipeClosed
	case <-p.remote:
		return errPipeClosed
	default:
	}
	msg := append([]byte(nil), frame...)
	select {
	case p.out <- msg:
		return nil
	case <-p.closed:
		return errPipeClosed
	case <-p.remote:
		return errPipeClosed
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (p *pipeEnd) Receive(ctx context.Context) ([]byte, error) {
	select {
	case <-p.closed:
		return nil, errPipeClosed
	default:
	}
	select {
	case msg := <-p.in:
		return msg, nil
	case <-p.closed:
		return nil, errPipeClosed
	case <-p.remote:
		// Deliver what the other side sent before it closed.
		select {
		case msg := <-p.in:
			return msg, nil
		default:
			return nil, errPipeClosed
		}
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (p *pipeEnd) Close() error {
	p.once.Do(func() { close(p.closed) })
	return nil
}
