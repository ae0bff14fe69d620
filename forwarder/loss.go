package forwarder

import (
	"errors"
	"fmt"
	"strconv"
	"time"
)

// LossReason says why a [Client] lost its owner.
type LossReason int32

const (
	// NotLost: the connection is up.
	NotLost LossReason = iota
	// OwnerLeaving: the owner announced it is releasing its ports; try to
	// take over at once.
	OwnerLeaving
	// Disconnected: the connection dropped (owner crashed or was killed,
	// or the client was closed).
	Disconnected
)

func (r LossReason) String() string {
	switch r {
	case NotLost:
		return "connected"
	case OwnerLeaving:
		return "owner leaving"
	case Disconnected:
		return "disconnected"
	}
	return "LossReason(" + strconv.Itoa(int(r)) + ")"
}

// errOwnerHung is the cause of an in-flight call's context when the owner
// stopped answering pings.
var errOwnerHung = errors.New("forwarder: the owner stopped answering")

func (c *Client) markLost(r LossReason) {
	c.lostOnce.Do(func() {
		c.reason.Store(int32(r))
		close(c.lost)
	})
}

// Lost is closed when the owner announced owner_leaving or the connection
// dropped; [Client.LossReason] then says which.
func (c *Client) Lost() <-chan struct{} { return c.lost }

// LossReason reports why the owner was lost, or NotLost.
func (c *Client) LossReason() LossReason { return LossReason(c.reason.Load()) }

func (c *Client) hungMessage() string { return HungMessage(c.ownerPID, c.ownerApp) }

// HungMessage is what the AI reads while the owner does not answer, naming
// it by its pid and the AI app that started it (either may be unknown: 0,
// "").
func HungMessage(pid int, app string) string {
	who := "the monkbrowse process that owns the browser connection"
	switch {
	case pid > 0 && app != "":
		who += fmt.Sprintf(" (pid %d, started by %s)", pid, app)
	case pid > 0:
		who += fmt.Sprintf(" (pid %d)", pid)
	}
	return fmt.Sprintf("monkbrowse cannot use the browser right now: %s is not responding — is it suspended (Ctrl-Z in a terminal) or stuck? "+
		"Resume it (fg in its terminal) or quit the AI app that started it; monkbrowse keeps trying and continues as soon as it answers.", who)
}

// beat pings the owner every heartbeat; after hungAfter without a pong the
// owner is "hung": calls in flight are answered with HungMessage and new
// ones are not sent, until a pong comes again.
func (c *Client) beat() {
	defer close(c.hbDone)
	c.peer.Heartbeat(c.heartbeat, func(silent time.Duration) bool {
		c.hmu.Lock()
		defer c.hmu.Unlock()
		switch {
		case silent == 0 && c.hung:
			c.hung = false
			c.log.Info("forwarder: the owner answers again", "ownerPid", c.ownerPID)
		case silent >= c.hungAfter && !c.hung:
			c.hung = true
			for _, cancel := range c.running {
				cancel(errOwnerHung)
			}
			c.log.Warn("forwarder: the owner stopped answering pings", "ownerPid", c.ownerPID, "silentFor", silent.String())
		}
		return true
	})
}
