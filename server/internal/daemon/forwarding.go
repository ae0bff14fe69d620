package daemon

import (
	"context"
	"time"

	"github.com/monkbrowse/monkbrowse/forwarder"
	"github.com/monkbrowse/monkbrowse/protocol"
)

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
