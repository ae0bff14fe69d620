package daemon

import (
	"errors"
	"fmt"
	"os"

	"github.com/monkbrowse/monkbrowse/forwarder"
	"github.com/monkbrowse/monkbrowse/server/internal/portholder"
)

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
	if n.NotYours {
		n.Holder = h.Short()
	}
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
