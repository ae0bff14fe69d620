package e2e

import (
	"regexp"
	"strconv"
	"strings"
)

// listedTab is one tab line of browser_list_tabs.
type listedTab struct {
	Slot   int
	Active bool
	Title  string
	URL    string
}

// listedProfile is one profile section of browser_list_tabs.
type listedProfile struct {
	Slug      string
	Connected bool
	Tabs      []listedTab
}

var (
	profileRe = regexp.MustCompile(`^## profile "([^"]+)" \((.*)\)\s*$`)
	// The line may end with the apps that opened and last used the tab
	// (issue 28): " (opened by Cursor; last used by Claude Code)".
	// The flags after the number: "active", "paused by the person", a
	// site rule (issue 44), comma-separated in one parenthesis.
	tabLineRe = regexp.MustCompile(`^- tab (\d+)(?: \(([^)]*)\))?: (.*) — (\S+)(?: \((?:opened by|last used by) .*\))?\s*$`)
)

// parseTabs reads browser_list_tabs' text into profiles.
func parseTabs(text string) map[string]*listedProfile {
	out := map[string]*listedProfile{}
	var cur *listedProfile
	for _, line := range strings.Split(text, "\n") {
		if m := profileRe.FindStringSubmatch(line); m != nil {
			cur = &listedProfile{Slug: m[1], Connected: !strings.HasSuffix(m[2], "not connected")}
			out[cur.Slug] = cur
			continue
		}
		if m := tabLineRe.FindStringSubmatch(line); m != nil && cur != nil {
			n, _ := strconv.Atoi(m[1])
			cur.Tabs = append(cur.Tabs, listedTab{Slot: n, Active: strings.HasPrefix(m[2], "active"), Title: m[3], URL: m[4]})
		}
	}
	return out
}

// tabByURL finds a listed tab of any profile by URL.
func tabByURL(profiles map[string]*listedProfile, url string) (string, listedTab, bool) {
	for slug, p := range profiles {
		for _, t := range p.Tabs {
			if t.URL == url {
				return slug, t, true
			}
		}
	}
	return "", listedTab{}, false
}
