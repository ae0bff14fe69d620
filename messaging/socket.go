package messaging

import "context"

// PeerSocket is what a [Peer] needs from a transport: a bidirectional stream
// of whole frames, one JSON text frame per call.
//
// Rules every implementation keeps:
//   - Send may be called from several goroutines at once; the implementation
//     serialises writers (gorilla/websocket, for one, panics on two). It
//     returns when the frame is written or ctx is done, and must not keep
//     frame after it returns.
//   - Receive is called from one goroutine only. It returns when a frame
//     arrives, when ctx is done, or when the socket is closed; after Close on
//     either side it returns an error wrapping [ErrClosed] (or an io.EOF-like
//     error from the transport).
//   - Close is idempotent, safe from any goroutine, and unblocks a pending
//     Receive and any pending Send.
type PeerSocket interface {
	Send(ctx context.Context, frame []byte) error
	Receive(ctx context.Context) ([]byte, error)
	Close() error
}
