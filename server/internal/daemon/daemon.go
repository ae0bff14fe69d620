package daemon

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"github.com/monkbrowse/monkbrowse/forwarder"
	"github.com/monkbrowse/monkbrowse/messaging/neterr"
	"github.com/monkbrowse/monkbrowse/protocol"
	"github.com/monkbrowse/monkbrowse/server/internal/control"
	"github.com/monkbrowse/monkbrowse/server/internal/portholder"
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
	// Version is announced to the other processes; "" means
	// protocol.Version.
	Version string
	// StartOwner starts the owner runtime (binding the extension port) when
	// this process wins the election. It may fail (the extension port is
	// busy, for one); the daemon then retries while holding the control
	// port. Required.
	StartOwner func(ctx context.Context) (Owner, error)
	// Logger receives the lifecycle log; nil discards it.
	Logger *zerolog.Logger
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
	wg     sync.WaitGroup // clean-up goroutines of lost forwarder clients

	// lostAt is when the last owner was lost (zero if never): the
	// take-over time is measured from it.
	lostAt time.Time
}

// New returns a daemon; nothing happens until Run.
func New(cfg Config) *Daemon {
	if cfg.ControlPort == 0 {
		cfg.ControlPort = protocol.DefaultControlPort
	}
	if cfg.Version == "" {
		cfg.Version = protocol.Version
	}
	if cfg.HandoverWait <= 0 {
		cfg.HandoverWait = DefaultHandoverWait
	}
	if cfg.DrainTimeout <= 0 {
		cfg.DrainTimeout = DefaultDrainTimeout
	}
	if cfg.ExtensionGrace <= 0 {
		cfg.ExtensionGrace = DefaultExtensionGrace
	}
	log := zerolog.Nop()
	if cfg.Logger != nil {
		log = *cfg.Logger
	}
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

func (d *Daemon) setRole(r Role) { d.role.Store(int32(r)) }

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
		c, err := forwarder.Dial(ctx, &forwarder.Options{
			Port:    d.cfg.ControlPort,
			Home:    d.cfg.Home,
			Version: d.cfg.Version,
			Logger:  d.slog,
		})
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
		case errors.As(err, &notOwner) && quick && !notOwner.Silent:
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

// diagnose rewrites a failure to reach an owner with what really holds the
// control port (issue 12): a monkbrowse process that does not answer is a
// suspended or stuck owner, named with its pid and the app that started
// it; any other process is named as the program holding the port.
func (d *Daemon) diagnose(err error) error {
	var notOwner *forwarder.NotOwnerError
	if !errors.As(err, &notOwner) {
		return err
	}
	find := d.cfg.FindHolder
	if find == nil {
		find = portholder.Find
	}
	h, ferr := find(d.cfg.ControlPort)
	if ferr != nil {
		return err
	}
	self, _ := os.Executable()
	if notOwner.Silent && h.IsMonkbrowse(self) {
		state := "it accepted the connection but answered nothing"
		if h.Stopped {
			state = "the system reports it stopped"
		}
		return &HungOwnerError{PID: h.PID, App: h.Parent, Port: d.cfg.ControlPort, State: state}
	}
	n := *notOwner
	n.Holder = h.String()
	return &n
}

// HungOwnerError: the control port is held by a monkbrowse owner that does
// not answer (suspended with Ctrl-Z, or stuck). Its message names it.
type HungOwnerError struct {
	PID   int
	App   string // the command of its parent process, "" when unknown
	Port  int
	State string
}

func (e *HungOwnerError) Error() string {
	return forwarder.HungMessage(e.PID, e.App) + fmt.Sprintf(" (control port 127.0.0.1:%d: %s.)", e.Port, e.State)
}

// reportFailure makes every tool call fail with err and says so on stderr,
// once per distinct message.
func (d *Daemon) reportFailure(err error) {
	_, prev, _, _ := d.router.state()
	if prev == nil || prev.Error() != err.Error() {
		d.log.Error().Err(err).Msg("tool calls will fail until this is fixed; retrying every few seconds")
	}
	d.router.fail(err)
}

// runForwarder serves as a forwarder through c until the owner is lost or
// ctx ends, and returns why it stopped.
func (d *Daemon) runForwarder(ctx context.Context, c *forwarder.Client) forwarder.LossReason {
	d.setRole(RoleForwarder)
	b := d.router.set(c)
	d.log.Info().Int("controlPort", d.cfg.ControlPort).Str("ownerVersion", c.OwnerVersion()).
		Msg("forwarder: another monkbrowse owns the browser connections; forwarding tool calls to it")
	select {
	case <-ctx.Done():
		d.router.unset(b)
		c.Close()
		return forwarder.NotLost
	case <-c.Lost():
	}
	d.lostAt = time.Now()
	d.router.unset(b)
	reason := c.LossReason()
	d.log.Info().Stringer("reason", reason).Msg("lost the owner; electing a new one")
	// Anything still in flight on the old connection may yet be answered;
	// close it once the owner has closed it, or after a grace period.
	d.wg.Add(1)
	go func() {
		defer d.wg.Done()
		t := time.NewTimer(2 * time.Second)
		defer t.Stop()
		select {
		case <-c.Done():
		case <-t.C:
		}
		c.Close()
	}()
	return reason
}

// runOwner serves as the owner on the bound control listener until ctx
// ends, then hands over.
func (d *Daemon) runOwner(ctx context.Context, ln net.Listener) {
	d.setRole(RoleOwner)
	d.router.wait() // calls wait for the owner runtime, whatever failed before
	won := time.Now()
	token, path, err := control.WriteToken(d.cfg.Home)
	if err != nil {
		// Forwarders will be refused; the owner still serves its own AI app.
		d.log.Error().Err(err).Msg("cannot write the control token; other AI apps cannot share this browser connection")
		token, _ = control.NewToken()
	}
	var profMu sync.Mutex
	var profiles func() []protocol.ProfileStatus
	var extPort int
	srv := control.New(control.Config{
		Token:       token,
		Caller:      d.router,
		Version:     d.cfg.Version,
		ControlPort: d.cfg.ControlPort,
		App:         d.cfg.App,
		Logger:      &d.log,
		Profiles: func() []protocol.ProfileStatus {
			profMu.Lock()
			p := profiles
			profMu.Unlock()
			if p == nil {
				return nil
			}
			return p()
		},
		ExtensionPort: func() int {
			profMu.Lock()
			defer profMu.Unlock()
			return extPort
		},
	})
	serveDone := make(chan struct{})
	go func() {
		defer close(serveDone)
		srv.Serve(ln)
	}()
	d.log.Info().Int("controlPort", d.cfg.ControlPort).Str("token", path).Msg("owner: won the control port")

	o, ok := d.startOwner(ctx)
	if ok {
		profMu.Lock()
		profiles, extPort = o.Profiles, o.Port
		profMu.Unlock()
		var c protocol.Caller = o.Caller
		if !d.lostAt.IsZero() && o.AwaitExtension != nil {
			c = &graceCaller{Caller: o.Caller, await: o.AwaitExtension, until: time.Now().Add(d.cfg.ExtensionGrace)}
		}
		d.router.set(c)
		ev := d.log.Info().Dur("sinceWin", time.Since(won))
		if !d.lostAt.IsZero() {
			ev = ev.Dur("sinceOwnerLost", time.Since(d.lostAt))
		}
		ev.Msg("owner: serving the extension port and the control port")
		<-ctx.Done()
	}
	d.handOver(srv, o, ok)
	<-serveDone
}

// startOwner starts the owner runtime, retrying while the extension port
// is busy (an old owner releasing it, or a foreign program). Calls wait for
// the first few seconds and fail with the reason after that.
func (d *Daemon) startOwner(ctx context.Context) (Owner, bool) {
	began := time.Now()
	var lastErr string
	for {
		o, err := d.cfg.StartOwner(ctx)
		if err == nil {
			if o.Caller == nil || o.Shutdown == nil {
				panic("daemon: StartOwner returned an Owner without Caller or Shutdown")
			}
			return o, true
		}
		if ctx.Err() != nil {
			return Owner{}, false
		}
		wait := quickRetry
		// An old owner releases the extension port before the control
		// port, so a busy extension port is rarely ours for long: report
		// it after a second rather than the election's few seconds.
		if time.Since(began) >= time.Second {
			wait = slowRetry
			if err.Error() != lastErr {
				d.log.Error().Err(err).Msg("owner: cannot start; retrying every few seconds")
				lastErr = err.Error()
			}
			d.router.fail(err)
		}
		sleep(ctx, wait)
	}
}

// handOver releases the owner role: stop taking calls, let in-flight calls
// finish (the owner gives them about a second, then fails them), release
// the extension port, then the control port, telling the forwarders
// owner_leaving so that one takes over at once.
func (d *Daemon) handOver(srv *control.Server, o Owner, started bool) {
	t0 := time.Now()
	d.router.close()
	srv.StopCalls()
	if started {
		sctx, cancel := context.WithTimeout(context.Background(), d.cfg.DrainTimeout)
		if err := o.Shutdown(sctx); err != nil {
			d.log.Warn().Err(err).Msg("owner: shutdown")
		}
		cancel()
	}
	wctx, cancel := context.WithTimeout(context.Background(), leavingTimeout)
	if n := srv.WaitCalls(wctx); n > 0 {
		d.log.Warn().Int("calls", n).Msg("owner: forwarded calls still running at hand-over")
	}
	cancel()
	nfwd := len(srv.Forwarders())
	lctx, cancel := context.WithTimeout(context.Background(), leavingTimeout)
	srv.Leave(lctx)
	cancel()
	d.setRole(RoleNone)
	d.log.Info().Dur("took", time.Since(t0)).Int("forwarders", nfwd).Msg("owner: handed over; both ports released")
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

// QueryStatus asks the owner on controlPort for its status, authenticating
// with the token under home ("" means $HOME), as `monkbrowse doctor` does.
func QueryStatus(ctx context.Context, controlPort int, home string) (protocol.StatusResult, error) {
	c, err := forwarder.Dial(ctx, &forwarder.Options{Port: controlPort, Home: home})
	if err != nil {
		return protocol.StatusResult{}, err
	}
	defer c.Close()
	return c.Status(ctx)
}

// graceCaller holds calls made just after a take-over until an extension
// has reconnected (or the grace period ends), then runs them.
type graceCaller struct {
	protocol.Caller
	await func(ctx context.Context)
	until time.Time
}

func (g *graceCaller) CallTool(ctx context.Context, call protocol.CallTool) (protocol.CallToolResult, error) {
	if time.Now().Before(g.until) {
		wctx, cancel := context.WithDeadline(ctx, g.until)
		g.await(wctx)
		cancel()
		if err := ctx.Err(); err != nil {
			return protocol.CallToolResult{}, err
		}
	}
	return g.Caller.CallTool(ctx, call)
}
