package daemon

import (
	"context"
	"time"

	"github.com/monkbrowse/monkbrowse/protocol"
)

// policiesTimeout bounds a forwarder's status question for tools/list.
const policiesTimeout = 2 * time.Second

// Policies returns the organisation's policy of each connected browser
// profile (issue 44), for tools/list to leave out what every one forbids:
// from the registry when this process is the owner, else asked of the
// owner on the control port (tools/list is rare). Nil when it cannot tell:
// then nothing is left out, and the extension still refuses.
func (d *Daemon) Policies(ctx context.Context) []*protocol.SitePolicy {
	var profiles []protocol.ProfileStatus
	if f := d.ownerProfiles.Load(); f != nil && d.Role() == RoleOwner {
		profiles = (*f)()
	} else if d.Role() == RoleForwarder {
		qctx, cancel := context.WithTimeout(ctx, policiesTimeout)
		st, err := QueryStatus(qctx, d.cfg.ControlPort, d.cfg.Home)
		cancel()
		if err != nil {
			d.log.Debug().Err(err).Msg("tools/list: could not ask the owner for the profiles' policies")
			return nil
		}
		profiles = st.Profiles
	}
	var out []*protocol.SitePolicy
	for _, p := range profiles {
		if p.Connected {
			out = append(out, p.Policy)
		}
	}
	return out
}
