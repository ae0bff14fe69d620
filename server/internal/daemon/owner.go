package daemon

import (
	"context"
	"net"
	"sync"
	"time"

	"github.com/monkbrowse/monkbrowse/protocol"
	"github.com/monkbrowse/monkbrowse/server/internal/control"
	process "github.com/monkbrowse/monkbrowse/server/internal/proc"
)

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
		ControlPort: d.cfg.ControlPort,
		App:         d.cfg.App,
		HTTP:        d.cfg.HTTP,
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
		Self: process.Self{Version: d.cfg.Version, Logger: &d.log},
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
		d.ownerProfiles.Store(&o.Profiles)
		defer d.ownerProfiles.Store(nil)
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
