package owner

import (
	"fmt"
	"regexp"
	"strconv"

	"github.com/monkbrowse/monkbrowse/protocol"
	"github.com/monkbrowse/monkbrowse/tools"
)

// The server's tab cache can be stale: the extension announces changes
// with tabs_changed, debounced (about 200 ms), so a call made right after
// the person closed a shared tab and shared another one (which takes the
// freed number) is resolved to the closed tab's Chrome id. The extension
// refuses such a request before it does anything, and the owner then asks
// for the tabs once and repeats the call on the tab that now holds the
// number (browser.WithTab).
//
// The extension says so with a code (protocol.CodeTabGone or
// CodeNotShared, set in extension/lib/executor.ts before any work is done,
// and for Chrome's own "No tab with id" about the request's tab); the owner
// decides on the code, never on the wording.
func tabGoneCode(code string) bool {
	return code == protocol.CodeTabGone || code == protocol.CodeNotShared
}

// tabGoneError is a request refused because its tab is gone or no longer
// shared. first reports that it was the session's first request to succeed
// or fail, so nothing at all was done in the call: it may be repeated.
type tabGoneError struct {
	t     tools.Target
	first bool
}

func (e *tabGoneError) Error() string {
	return fmt.Sprintf("%s is no longer shared with monkbrowse: the tab was closed, or the person switched Share off for it. Nothing was done. "+
		"Call browser_list_tabs to see the shared tabs and their numbers.", tools.Capitalize(e.t.String()))
}

// tabIDWord matches "tab <id>" as a whole word.
func tabIDWord(tabID int) *regexp.Regexp {
	return regexp.MustCompile(`\b[Tt]ab ` + strconv.Itoa(tabID) + `\b`)
}

// speakSlots rewrites the extension's mentions of Chrome's tab id ("tab
// 472490157 cannot be automated: …") into the number and profile the AI
// knows the tab by. The AI never sees Chrome's ids.
func speakSlots(msg string, t tools.Target) string {
	if t.TabID <= 0 || t.Slot <= 0 {
		return msg
	}
	where := t.String()
	return tabIDWord(t.TabID).ReplaceAllStringFunc(msg, func(m string) string {
		if m[0] == 'T' {
			return tools.Capitalize(where)
		}
		return where
	})
}
