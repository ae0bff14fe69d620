package tools

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/monkbrowse/monkbrowse/protocol"
)

func (d dispatch) listTabs(ctx context.Context, a protocol.ListTabsArgs) (protocol.CallToolResult, error) {
	if a.Profile != "" {
		var info ProfileInfo
		err := d.b.WithProfile(ctx, a.Profile, func(ctx context.Context, t Target, s Session) error {
			var res protocol.ListTabsResult
			if err := s.Request(ctx, protocol.MsgListTabs, protocol.ListTabsRequest{}, &res); err != nil {
				return err
			}
			info = ProfileInfo{ID: t.ProfileID, Label: t.Label, Slug: t.Slug, Connected: true, Tabs: sortTabs(res.Tabs)}
			return nil
		})
		if err != nil {
			return protocol.CallToolResult{}, err
		}
		return TextResult(formatTabs([]ProfileInfo{info})), nil
	}
	profiles, err := d.b.Profiles(ctx, true)
	if err != nil {
		return protocol.CallToolResult{}, err
	}
	if len(profiles) == 0 {
		// Let the Browser explain how to connect one (it knows the port).
		if err := d.b.WithProfile(ctx, "", func(context.Context, Target, Session) error { return nil }); err != nil {
			return protocol.CallToolResult{}, err
		}
		if profiles, err = d.b.Profiles(ctx, true); err != nil {
			return protocol.CallToolResult{}, err
		}
	}
	return TextResult(formatTabs(profiles)), nil
}

func sortTabs(tabs []protocol.TabInfo) []protocol.TabInfo {
	out := append([]protocol.TabInfo(nil), tabs...)
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].Slot < out[j-1].Slot; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

func (d dispatch) switchTab(ctx context.Context, a protocol.SwitchTabArgs) (protocol.CallToolResult, error) {
	var res protocol.SwitchTabResult
	t, err := d.read(ctx, protocol.Target{Profile: a.Profile, Tab: a.Tab}, protocol.MsgSwitchTab,
		func(t Target) any { return protocol.SwitchTabRequest{TabID: t.TabID} }, &res)
	if err != nil {
		return protocol.CallToolResult{}, err
	}
	return TextResult(fmt.Sprintf("%s is now the active tab; calls to profile %q without `tab` use it.", Capitalize(t.String()), t.Slug)), nil
}

func (d dispatch) newTab(ctx context.Context, a protocol.NewTabArgs) (protocol.CallToolResult, error) {
	url := ""
	if strings.TrimSpace(a.URL) != "" {
		url = normalizeURL(a.URL)
		if why := d.fileURLRefusal(url); why != "" {
			return protocol.CallToolResult{}, errors.New(why)
		}
	}
	var res protocol.NewTabResult
	var target Target
	err := d.b.WithProfile(ctx, a.Profile, func(ctx context.Context, t Target, s Session) error {
		target = t
		return s.Request(ctx, protocol.MsgNewTab, protocol.NewTabRequest{URL: url}, &res)
	})
	if err != nil {
		return protocol.CallToolResult{}, err
	}
	at := "an empty page"
	if url != "" {
		at = url
	}
	return TextResult(fmt.Sprintf("Opened tab %d in profile %q at %s. It is shared: pass tab=%d (and profile=%q) to the other tools to use it.",
		res.Slot, target.Slug, at, res.Slot, target.Slug)), nil
}

func (d dispatch) closeTab(ctx context.Context, a protocol.CloseTabArgs) (protocol.CallToolResult, error) {
	t, err := d.read(ctx, protocol.Target{Profile: a.Profile, Tab: a.Tab}, protocol.MsgCloseTab,
		func(t Target) any { return protocol.CloseTabRequest{TabID: t.TabID} }, nil)
	if err != nil {
		return protocol.CallToolResult{}, err
	}
	return TextResult(fmt.Sprintf("Closed %s. Its number is free again; browser_list_tabs shows the tabs left.", t.String())), nil
}
