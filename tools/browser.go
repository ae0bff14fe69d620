package tools

import (
	"context"

	"github.com/monkbrowse/monkbrowse/protocol"
)

// Target is a resolved {profile, tab}. For profile-wide work (listing tabs,
// opening one) TabID and Slot are zero.
type Target struct {
	ProfileID string
	Slug      string
	Label     string
	TabID     int // Chrome's tab id, sent on the wire as tabId
	Slot      int // the number the person and the AI use
}

// ProfileInfo is what the server knows about one profile.
type ProfileInfo struct {
	ID                string
	Label             string
	Slug              string
	ChromeProfileName string
	Connected         bool
	// Tabs are the profile's shared tabs ordered by slot, as last reported
	// (still the last known list while disconnected).
	Tabs []protocol.TabInfo
	// Queued counts the calls waiting behind a running call on one of the
	// profile's tabs.
	Queued int
	// Paused: the person paused the AI in this profile (Stop in the popup);
	// a tab paused on its own says so in its TabInfo.
	Paused bool
	// Policy is the organisation's policy the profile's extension reports
	// (issue 44); nil: none.
	Policy *protocol.SitePolicy
}

// Session sends wire requests to one profile's extension.
type Session interface {
	// Request sends one wire request and decodes its result into out (nil
	// discards it). The implementation applies the message's timeout and
	// sends retryable reads once more after a timeout. Its errors are
	// written for the AI.
	Request(ctx context.Context, typ string, payload, out any) error
}

// Browser is what the tool handlers need from the server. Implementations
// are safe for concurrent use. Every error they return is written for the AI
// (what happened, what to do), because the handlers pass it on unchanged.
type Browser interface {
	// Profiles lists every known profile, connected or not, ordered by slug.
	// With refresh, connected profiles are first asked for their shared tabs.
	Profiles(ctx context.Context, refresh bool) ([]ProfileInfo, error)
	// WithTab resolves {profile, tab} (either may be empty/zero, see DESIGN
	// §5.6) and calls fn during that tab's turn: calls to one tab run one at
	// a time in arrival order, calls to different tabs in parallel.
	WithTab(ctx context.Context, profile string, tab int, fn func(ctx context.Context, t Target, s Session) error) error
	// WithProfile resolves profile and calls fn without taking any tab's
	// turn, for profile-wide requests such as list_tabs and new_tab.
	WithProfile(ctx context.Context, profile string, fn func(ctx context.Context, t Target, s Session) error) error
}

// Placer is a Browser that can tie a call that sends nothing (a time-only
// browser_wait) to the profile it would act on, without waiting, so that
// the person's Stop there ends it too (issue 28). A profile it cannot tell
// leaves the call untied.
type Placer interface {
	Place(ctx context.Context, profile string)
}
