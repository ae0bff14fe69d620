package forwarder

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/monkbrowse/monkbrowse/messaging"
	"github.com/monkbrowse/monkbrowse/protocol"
)

// Defaults for [Options], and for contexts without a deadline.
const (
	// DefaultHandshakeTimeout bounds [Dial] when its ctx has no deadline.
	DefaultHandshakeTimeout = 5 * time.Second
	// DefaultCallTimeout bounds one [Client.CallTool] whose ctx has no
	// deadline. It is a backstop only: the owner bounds every tool with its
	// own timeouts, so this fires only for an owner that hangs.
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
	// Heartbeat and HungAfter: see DefaultHeartbeat; 0 means the default.
	Heartbeat, HungAfter time.Duration
	// HTTP, if set, answers the owner's http_status with this process's
	// MCP endpoint over HTTP (nil result: none), for `monkbrowse doctor`.
	HTTP func() *protocol.HTTPStatus
}

// Client is one authenticated connection from a forwarder to the owner, and
// a protocol.Caller. A Client never reconnects: when it loses its owner, [Client.Lost] is
// closed and the daemon elects a new owner and dials again. All methods are
// safe for concurrent use.
type Client struct {
	peer         *messaging.Peer
	ownerVersion string
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
	sent      map[string]*sentState // by call ref, for calls in flight
}

// sentState is one call in flight, under Client.smu: its context (once it
// has ended, call_sent is refused with code cancelled) and whether the
// owner was let send it.
type sentState struct {
	ctx  context.Context
	sent bool
}

// Done is closed once the connection itself has closed; after owner_leaving
// the client hangs up by itself.
func (c *Client) Done() <-chan struct{} { return c.peer.Done() }

// OwnerVersion is the version the owner announced in its fwd_hello ack.
func (c *Client) OwnerVersion() string { return c.ownerVersion }

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
