package daemon

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"github.com/monkbrowse/monkbrowse/forwarder"
	"github.com/monkbrowse/monkbrowse/messaging/neterr"
	"github.com/monkbrowse/monkbrowse/protocol"
	"github.com/monkbrowse/monkbrowse/server/internal/netguard"
	"github.com/monkbrowse/monkbrowse/server/internal/portholder"
	process "github.com/monkbrowse/monkbrowse/server/internal/proc"
)

// Defaults for [Config].
const (
	DefaultHandoverWait = 10 * time.Second
	// DefaultDrainTimeout bounds the owner's Shutdown during a hand-over
	// (the owner itself gives in-flight calls about a second).
	DefaultDrainTimeout = 3 * time.Second
	// DefaultExtensionGrace matches the extension's quick reconnects (sub-
	// second at first, capped at a few seconds).
	DefaultExtensionGrace = 5 * time.Second
)

// Timing of the election loop.
const (
	// After a dropped connection the forwarders wait a random 50–300 ms
	// before trying the control port, so that they do not all collide;
	// after owner_leaving they try at once.
	dropJitterMin = 50 * time.Millisecond
	dropJitterMax = 300 * time.Millisecond
	// Retrying while the new owner is probably starting.
	quickRetry     = 50 * time.Millisecond
	quickRetryFor  = 3 * time.Second
	slowRetry      = 2 * time.Second
	leavingTimeout = 500 * time.Millisecond
)

// Owner is what an owner runs besides the control port: the extension
// listener, registry and tool dispatcher (server/internal/owner).
type Owner struct {
	// Caller runs tools locally. Required.
	Caller protocol.Caller
	// Shutdown stops taking calls, gives in-flight calls about a second
	// (then fails them with a message), closes the extension sockets and
	// releases the extension port. Required.
	Shutdown func(ctx context.Context) error
	// Profiles lists the browser profiles for `monkbrowse doctor`; optional.
	Profiles func() []protocol.ProfileStatus
	// Port is the bound extension port, for `monkbrowse doctor`; optional.
	Port int
	// AwaitExtension blocks until an extension has connected to this owner
	// (at any time since it started) or ctx ends; optional. After a
	// take-over the extensions are reconnecting: a call made meanwhile
	// waits for them (up to Config.ExtensionGrace) instead of being told
	// that no browser was ever connected.
	AwaitExtension func(ctx context.Context)
}

// Config configures a [Daemon].
type Config struct {
	// ControlPort is the control port; 0 means protocol.DefaultControlPort (9219).
	ControlPort int
	// App, if set, names the AI app this process serves (MCP initialize's
	// clientInfo), told to forwarders so they can name a hung owner.
	App func() string
	// Home decides where the control token lives; "" means $HOME.
	Home string
	// Self is this process: the version announced to the other processes,
	// its user (a control port listener of another user is refused), the
	// lifecycle log (proc.Self's defaults).
	process.Self
	// StartOwner starts the owner runtime (binding the extension port) when
	// this process wins the election. It may fail (the extension port is
	// busy, for one); the daemon then retries while holding the control
	// port. Required.
	StartOwner func(ctx context.Context) (Owner, error)
	// HandoverWait is how long a tool call waits for a new owner while the
	// role changes; 0 means DefaultHandoverWait.
	HandoverWait time.Duration
	// DrainTimeout bounds Owner.Shutdown; 0 means DefaultDrainTimeout.
	DrainTimeout time.Duration
	// ExtensionGrace is how long after a take-over calls wait for the
	// extensions to reconnect; 0 means DefaultExtensionGrace.
	ExtensionGrace time.Duration
	// FindHolder names the process listening on a port, for the message
	// when the control port's holder is not a working owner; nil means
	// portholder.Find.
	FindHolder func(port int) (portholder.Holder, error)
	// ListenerUID names the OS user owning the control port's listener;
	// one of another user (not this process's, not root) is refused
	// before anything is sent to it. nil means portholder.ListenerUID
	// (Linux; elsewhere unknown, and the control proof decides alone).
	ListenerUID func(port int) (uid int, ok bool)
	// HTTP, if set, reports this process's MCP endpoint over HTTP (serve
	// --http), for `monkbrowse doctor`: in the owner's status when this
	// process is owner, in its answer to http_status when a forwarder.
	HTTP func() *protocol.HTTPStatus
}

// Role is what a process currently is in the shared daemon.
type Role int32

const (
	RoleNone Role = iota // electing, or between roles
	RoleOwner
	RoleForwarder
)

func (r Role) String() string {
	switch r {
	case RoleNone:
		return "none"
	case RoleOwner:
		return "owner"
	case RoleForwarder:
		return "forwarder"
	}
	return "Role(" + strconv.Itoa(int(r)) + ")"
}

// Daemon is the shared-daemon lifecycle of one process. Create it with
// [New], hand [Daemon.Caller] to the MCP endpoint, and run [Daemon.Run]
// until the AI app goes away.
type Daemon struct {
	cfg    Config
	log    zerolog.Logger
	slog   *slog.Logger
	router *router
	role   atomic.Int32
	// roleHook, for tests, is called after every role change (a test
	// waiting for a role re-checks it then); nil: nothing.
	roleHook atomic.Pointer[func()]
	// ownerProfiles lists the owner's profiles while this process is the
	// owner (Policies); nil otherwise.
	ownerProfiles atomic.Pointer[func() []protocol.ProfileStatus]
	wg            sync.WaitGroup // clean-up goroutines of lost forwarder clients

	// lostAt is when the last owner was lost (zero if never): the
	// take-over time is measured from it.
	lostAt time.Time
}

// New returns a daemon; nothing happens until Run.
func New(cfg Config) *Daemon {
	if cfg.ControlPort == 0 {
		cfg.ControlPort = protocol.DefaultControlPort
	}
	cfg.Self = cfg.Self.Defaulted()
	if cfg.HandoverWait <= 0 {
		cfg.HandoverWait = DefaultHandoverWait
	}
	if cfg.DrainTimeout <= 0 {
		cfg.DrainTimeout = DefaultDrainTimeout
	}
	if cfg.ListenerUID == nil {
		cfg.ListenerUID = portholder.ListenerUID
	}
	if cfg.ExtensionGrace <= 0 {
		cfg.ExtensionGrace = DefaultExtensionGrace
	}
	log := *cfg.Logger
	r := newRouter(cfg.HandoverWait)
	r.log = log
	return &Daemon{
		cfg:    cfg,
		log:    log,
		slog:   slog.New(zerolog.NewSlogHandler(log)),
		router: r,
	}
}

// Caller is the tool caller for the MCP endpoint. It stays the same for
// the life of the process while the backend underneath changes. After Run
// has returned it answers every call with a tool error.
func (d *Daemon) Caller() protocol.Caller { return mcpCaller{d.router} }

// Role reports the current role.
func (d *Daemon) Role() Role { return Role(d.role.Load()) }

func (d *Daemon) setRole(r Role) {
	d.role.Store(int32(r))
	if h := d.roleHook.Load(); h != nil {
		(*h)()
	}
}

// Run elects, serves in the role it gets, and re-elects whenever the owner
// is lost, until ctx ends. Then it hands over (as owner: stops taking
// calls, drains, releases both ports after telling the forwarders) and
// returns. It returns an error only for a configuration mistake.
func (d *Daemon) Run(ctx context.Context) error {
	if d.cfg.StartOwner == nil {
		return errors.New("daemon: Config.StartOwner is required")
	}
	defer d.wg.Wait()
	defer d.router.close()
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(d.cfg.ControlPort))
	var retryingSince time.Time // when the current run of failed attempts began
	for ctx.Err() == nil {
		d.setRole(RoleNone)
		ln, lerr := net.Listen("tcp", addr)
		if lerr == nil {
			d.runOwner(ctx, ln)
			return nil
		}
		c, err := d.dial(ctx)
		if err == nil {
			retryingSince = time.Time{}
			if d.runForwarder(ctx, c) == forwarder.Disconnected {
				sleep(ctx, dropJitterMin+rand.N(dropJitterMax-dropJitterMin))
			}
			continue
		}
		if ctx.Err() != nil {
			break
		}
		if retryingSince.IsZero() {
			retryingSince = time.Now()
		}
		quick := time.Since(retryingSince) < quickRetryFor
		var notOwner *forwarder.NotOwnerError
		var rejected *forwarder.RejectedError
		switch {
		case errors.Is(err, forwarder.ErrNoOwner):
			// The owner went away between our bind and our dial: elect
			// again. Calls wait meanwhile.
			d.log.Debug().Err(err).Msg("no owner on the control port; electing again")
			sleep(ctx, quickRetry/2+rand.N(quickRetry))
			continue
		case errors.As(err, &rejected) && quick:
			// Most likely a token read just before a new owner replaced it.
			d.log.Debug().Err(err).Msg("owner refused fwd_hello; retrying")
			sleep(ctx, quickRetry)
			continue
		case errors.As(err, &notOwner) && quick && !notOwner.Silent && !notOwner.NotYours:
			// An owner that has just won may not answer yet; a foreign
			// program keeps answering wrong and is reported below. Calls
			// waiting meanwhile are told this if nothing better comes.
			d.router.note(err)
			sleep(ctx, quickRetry)
			continue
		}
		// A holder that accepted the connection and then said nothing for
		// the handshake timeout is reported at once (an owner that has
		// just won answers at once): say what it really is.
		err = d.diagnose(err)
		if !neterr.IsAddrInUse(lerr) {
			err = fmt.Errorf("%w (binding 127.0.0.1:%d failed too: %v)", err, d.cfg.ControlPort, lerr)
		}
		d.reportFailure(err)
		sleep(ctx, slowRetry)
	}
	return nil
}

// dial connects to the owner on the control port as a forwarder, unless
// the OS says the listener belongs to another user: then nothing at all is
// sent to it.
func (d *Daemon) dial(ctx context.Context) (*forwarder.Client, error) {
	if uid, ok := d.cfg.ListenerUID(d.cfg.ControlPort); ok && netguard.ForeignUser(uid, d.cfg.UID) {
		return nil, &forwarder.NotOwnerError{Port: d.cfg.ControlPort, NotYours: true,
			Detail: fmt.Sprintf("the system reports that it belongs to another user of this computer (uid %d; you are uid %d)", uid, d.cfg.UID)}
	}
	return forwarder.Dial(ctx, &forwarder.Options{
		Port:    d.cfg.ControlPort,
		Home:    d.cfg.Home,
		Version: d.cfg.Version,
		Logger:  d.slog,
		HTTP:    d.cfg.HTTP,
	})
}

// sleep waits for d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}
