package owner

import (
	"fmt"
	"strings"

	"github.com/monkbrowse/monkbrowse/protocol"
)

// setRules keeps what the extension reports of its site rules (issue 44):
// the organisation's policy, and the tabs that left the AI's reach for a
// "never" site, by number, with the extension's sentence. A number shared
// again is no longer out of reach. The extension enforces the rules; the
// owner only explains refusals with them (leftReach) and reports the
// policy (status, doctor).
func (r *registry) setRules(c *conn, policy *protocol.SitePolicy, left []protocol.LeftTab) {
	r.mu.Lock()
	defer r.mu.Unlock()
	p := c.prof
	if p == nil || (p.conn != c && p.pending != c) {
		return
	}
	p.policy = policy
	p.addLeftLocked(left)
	r.notifyLocked()
}

// learnLeft keeps the tabs a list_tabs answer says left the AI's reach
// (ListTabsResult.Left): a call right after its tabs_changed hears why.
func (r *registry) learnLeft(c *conn, left []protocol.LeftTab) {
	r.mu.Lock()
	defer r.mu.Unlock()
	p := c.prof
	if p == nil || p.conn != c {
		return
	}
	p.addLeftLocked(left)
}

func (p *profile) addLeftLocked(left []protocol.LeftTab) {
	for _, l := range left {
		if l.Slot <= 0 || l.Reason == "" {
			continue
		}
		if p.left == nil {
			p.left = map[int]string{}
		}
		// One line, bounded: the sentence ends up in an error for the AI.
		p.left[l.Slot] = protocol.Cut(strings.Map(func(r rune) rune {
			if r < 0x20 || r == 0x7f {
				return ' '
			}
			return r
		}, l.Reason), maxLeftReason)
	}
	for _, t := range p.tabs {
		delete(p.left, t.Slot)
	}
}

// maxLeftReason bounds the extension's sentence kept per tab.
const maxLeftReason = 400

// leftReach is why tab number slot of c's profile left the AI's reach,
// or "" when it did not (or is shared again).
func (r *registry) leftReach(c *conn, slot int) string {
	if slot <= 0 {
		return ""
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, t := range c.prof.tabs {
		if t.Slot == slot {
			return ""
		}
	}
	return c.prof.left[slot]
}

// leftReachError answers a call naming a tab that left the AI's reach.
func leftReachError(why string, tabs []protocol.TabInfo) error {
	var b strings.Builder
	b.WriteString(strings.ToUpper(why[:1]) + why[1:])
	if len(tabs) > 0 {
		fmt.Fprintf(&b, " The shared tabs now: %s.", listTabs(tabs))
	}
	return fmt.Errorf("%s", b.String())
}
