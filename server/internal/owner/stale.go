package owner

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

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
// The extension says so only in words, so the refusal is recognised by its
// text. The texts are the extension's (extension/lib/executor.ts:
// notSharedError and Executor.resolveTab, which run before any work) and
// Chrome's own error for an id that names no tab. Each is matched together
// with the Chrome tab id the request carried, so that a page's own text or
// an error about another tab can never pass for one. If the extension's
// wording changes, the call is no longer repeated (the refusal reaches the
// AI, reworded with the tab's number): TestExtensionTabRefusalTexts pins the
// texts against the extension's source.
var tabGoneTexts = []struct {
	prefix   string // what the message starts with; %d is the tab id
	contains string // and a fragment it must contain after that
}{
	// notSharedError: `tab ${tabId} is not shared with the AI; the user can share it from the monkbrowse popup`
	{prefix: "tab %d ", contains: "is not shared with the AI"},
	// resolveTab: `tab ${tabId} does not exist any more (it was closed)`
	{prefix: "tab %d ", contains: "does not exist any more"},
}

// chromeNoTab is Chrome's error for a tab id that names no tab ("No tab with
// id: 123."), which the extension passes on, sometimes inside its own
// sentence ("cannot reach the page in tab 123: No tab with id: 123.").
var chromeNoTab = regexp.MustCompile(`\bNo tab with id: ?([0-9]+)\b`)

// isTabGone reports whether msg, the extension's error for a request sent
// to Chrome tab tabID, says that this tab is not (or no longer) shared or
// does not exist.
func isTabGone(msg string, tabID int) bool {
	if tabID <= 0 {
		return false
	}
	id := strconv.Itoa(tabID)
	for _, g := range tabGoneTexts {
		p := fmt.Sprintf(g.prefix, tabID)
		if strings.HasPrefix(msg, p) && strings.Contains(msg[len(p):], g.contains) {
			return true
		}
	}
	for _, m := range chromeNoTab.FindAllStringSubmatch(msg, -1) {
		if m[1] == id {
			return true
		}
	}
	return false
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
		"Call browser_list_tabs to see the shared tabs and their numbers.", capitalize(whereTarget(e.t)))
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
	where := whereTarget(t)
	return tabIDWord(t.TabID).ReplaceAllStringFunc(msg, func(m string) string {
		if m[0] == 'T' {
			return capitalize(where)
		}
		return where
	})
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
