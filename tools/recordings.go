package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/monkbrowse/monkbrowse/protocol"
)

// browser_recordings (issue 42): the flows the person recorded, read from
// the extension's profile through a shared tab (the extension answers only
// for a tab the person shares). The list is short lines; one recording is
// its steps as JSON, ready for browser_run; the export is the extension's
// Playwright test. Recordings are the person's words and the pages' names,
// so they come after the page-content note.

func (d dispatch) recordings(ctx context.Context, a protocol.RecordingsArgs) (protocol.CallToolResult, error) {
	if a.Format == protocol.RecordingsPlaywright && a.Name == "" {
		return protocol.CallToolResult{}, fmt.Errorf("browser_recordings exports one recording at a time: give `name` with format %q (call it without arguments to list them).", protocol.RecordingsPlaywright)
	}
	var res protocol.RecordingsResult
	t, err := d.read(ctx, a.Target, protocol.MsgRecordings, func(t Target) any {
		return protocol.RecordingsRequest{TabID: t.TabID, Name: a.Name, Format: a.Format}
	}, &res)
	if err != nil {
		return protocol.CallToolResult{}, err
	}
	if a.Name == "" {
		return TextResult(formatRecordingList(t, res.Recordings)), nil
	}
	if len(res.Recordings) == 0 {
		return protocol.CallToolResult{}, fmt.Errorf("There is no recording named %q in %s's profile. Call browser_recordings without a name to list them.", clip(a.Name, 100), t.String())
	}
	rec := res.Recordings[0]
	if a.Format == protocol.RecordingsPlaywright {
		if res.Export == "" {
			return protocol.CallToolResult{}, fmt.Errorf("the extension returned no export for %q; update the monkbrowse extension and try again.", clip(a.Name, 100))
		}
		head := "The recording as a Playwright test (TypeScript; parameters are variables at the top, secrets come from environment variables):"
		return TextResult(withPage(head, fenced("ts", res.Export))), nil
	}
	steps, _ := json.Marshal(rec.Steps)
	head := fmt.Sprintf("The recording has %d step(s). Run it with browser_run {recording: <its name>, params: {…}}, or pass these steps (edited) as `steps`.", len(rec.Steps))
	var page strings.Builder
	fmt.Fprintf(&page, "Name: %q\n", clip(rec.Name, 100))
	if rec.Description != "" {
		fmt.Fprintf(&page, "Description: %s\n", pageLine(clip(rec.Description, 500)))
	}
	if rec.Site != "" {
		fmt.Fprintf(&page, "Site: %s\n", pageLine(clip(rec.Site, 200)))
	}
	if p := formatParams(rec.Params); p != "" {
		fmt.Fprintf(&page, "Parameters: %s\n", p)
	}
	page.WriteString(fenced("json", string(steps)))
	return TextResult(withPage(head, page.String())), nil
}

func formatParams(ps []protocol.RecordingParam) string {
	var out []string
	for _, p := range ps {
		switch {
		case p.Secret:
			out = append(out, fmt.Sprintf("%s (a secret: the person enters it)", pageLine(clip(p.Name, 60))))
		case p.Example != "":
			out = append(out, fmt.Sprintf("%s (recorded as %q)", pageLine(clip(p.Name, 60)), clip(p.Example, 60)))
		default:
			out = append(out, pageLine(clip(p.Name, 60)))
		}
	}
	return strings.Join(out, ", ")
}

func formatRecordingList(t Target, recs []protocol.Recording) string {
	if len(recs) == 0 {
		return fmt.Sprintf("The person has no recordings in %s's profile. They can record a flow from the monkbrowse popup (Record) to show you how a task is done.", t.String())
	}
	head := fmt.Sprintf("%d recording(s) in %s's profile; read one with browser_recordings {name}, run one with browser_run {recording, params}:", len(recs), t.String())
	var b strings.Builder
	for _, r := range recs {
		fmt.Fprintf(&b, "- %q", clip(r.Name, 100))
		if r.Site != "" {
			fmt.Fprintf(&b, " on %s", pageLine(clip(r.Site, 100)))
		}
		fmt.Fprintf(&b, ", %d step(s)", len(r.Steps))
		if p := formatParams(r.Params); p != "" {
			fmt.Fprintf(&b, "; params: %s", p)
		}
		if r.Description != "" {
			fmt.Fprintf(&b, " — %s", pageLine(clip(r.Description, 200)))
		}
		b.WriteString("\n")
	}
	return withPage(head, strings.TrimRight(b.String(), "\n"))
}
