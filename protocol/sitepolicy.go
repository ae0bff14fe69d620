package protocol

// capabilityTools are the tools a policy capability (SitePolicy.Forbidden)
// takes away whole. responseBodies is a parameter of
// browser_network_requests, not a tool, so it is not here.
var capabilityTools = map[string][]string{
	"evaluate":    {"browser_evaluate"},
	"debugger":    {"browser_pdf"},
	"uploads":     {"browser_upload_file"},
	"downloads":   {"browser_downloads"},
	"coordinates": {"browser_click_xy", "browser_drag_xy"},
	"siteTools":   {"browser_site_tools", "browser_site_tool_call"},
}

// ForbiddenForAll is the set of tools the policies of every connected
// profile forbid (issue 44): tools/list leaves them out, since no browser
// this server reaches would run them. A profile without a policy forbids
// nothing; no profile at all forbids nothing (the person may connect one).
func ForbiddenForAll(policies []*SitePolicy) map[string]bool {
	if len(policies) == 0 {
		return nil
	}
	var out map[string]bool
	for i, p := range policies {
		mine := map[string]bool{}
		if p != nil {
			for _, c := range p.Forbidden {
				for _, t := range capabilityTools[c] {
					mine[t] = true
				}
			}
		}
		if i == 0 {
			out = mine
			continue
		}
		for t := range out {
			if !mine[t] {
				delete(out, t)
			}
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}
