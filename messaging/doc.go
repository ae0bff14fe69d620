// Package messaging is the request/response/notify layer shared by the
// monkbrowse server, its forwarders and (in TypeScript) the extension.
//
// A [Peer] speaks the envelope of DESIGN.md §4 over any [PeerSocket]: one JSON
// text frame per message, requests matched to responses by a decimal id from a
// per-peer counter, notifications that are never answered, and a
// messaging-level ping/pong because browser JavaScript cannot send WebSocket
// ping frames.
//
//	{"k":"req","id":"7","type":"browser_click","payload":{...}}
//	{"k":"res","id":"7","ok":true,"result":{...}}
//	{"k":"res","id":"7","ok":false,"error":"..."}
//	{"k":"ntf","type":"tabs_changed","payload":{...}}
//	{"k":"png"}  {"k":"pog"}
//
// The package keeps transports out of the core so that it has no third-party
// dependency: [Pipe] gives an in-memory linked pair for tests, and the
// subpackage wsconn adapts a gorilla/websocket connection. The subpackage
// neterr recognises the network errors both ends act on (port in use,
// refused, reset) on every OS.
//
// # Concurrency
//
// One goroutine reads the socket. Request handlers each run in their own
// goroutine, so a slow handler never holds up reads, responses or other
// requests. Notification handlers run one at a time in arrival order on a
// worker that exists only while notifications are queued: a notification
// such as tabs_changed describes state, and applying two of them out of
// order would leave the older state in place. Writes are serialised by the
// Peer itself, so a [PeerSocket] that is not safe for concurrent writers still
// works.
//
// # Timeouts
//
// The context is the one way to bound a call, as in golang.org/x/tools'
// jsonrpc2: the Peer has no timeout of its own, and a request whose context
// has no deadline waits for its answer, the peer's close or its context's
// cancellation. A request's timeout is a context made by [WithRequestTimeout]
// (a child of the caller's, so an earlier deadline of the caller's wins by
// construction); its cause, a *[RequestTimeoutError], is what the call
// returns when the timeout passes.
//
// # Closing
//
// [Peer.Close] (or the socket failing) fails every in-flight request and ping
// at once with an error that matches [ErrClosed] and says "peer
// disconnected"; later calls fail the same way without touching the socket.
// Handler contexts are cancelled, and Close returns once every goroutine the
// Peer started has ended.
package messaging
