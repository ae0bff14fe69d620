package doctor

import (
	"fmt"
	"io"
	"strings"

	"github.com/monkbrowse/monkbrowse/protocol"
)

// writePolicy prints the organisation's policy a profile's extension
// reports (issue 44), under its profile line; nothing when there is none.
func writePolicy(w io.Writer, p *protocol.SitePolicy) {
	if p == nil {
		return
	}
	fmt.Fprintln(w, "      policy set by your organisation (Chrome's managed storage for the extension):")
	line := func(name string, v []string) {
		if len(v) > 0 {
			fmt.Fprintf(w, "        %-24s %s\n", name+":", strings.Join(v, ", "))
		}
	}
	line("never (blocked sites)", p.BlockedSites)
	line("read only", p.ReadOnlySites)
	line("ask before acting", p.AskSites)
	line("not allowed", p.Forbidden)
	line("AI apps allowed", p.AllowedApps)
	if p.NoLogExport {
		fmt.Fprintf(w, "        %-24s %s\n", "activity log export:", "not allowed")
	}
	if p.LogRetentionDays > 0 {
		fmt.Fprintf(w, "        %-24s %d days\n", "activity log kept:", p.LogRetentionDays)
	}
}
