package tools

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/monkbrowse/monkbrowse/protocol"
)

func (d dispatch) wait(ctx context.Context, a protocol.WaitArgs) (protocol.CallToolResult, error) {
	if a.Text == "" {
		if a.Time <= 0 {
			return protocol.CallToolResult{}, errors.New("browser_wait needs `time` (seconds to wait, at most 50) or `text` (wait until it appears on the page), or both. Call it again with one of them.")
		}
		dur := time.Duration(a.Time * float64(time.Second))
		// Nothing is sent, but the wait is the AI's work in the browser:
		// the person's Stop in its profile ends it (issue 28).
		if p, ok := d.b.(Placer); ok {
			p.Place(ctx, a.Profile)
		}
		t := time.NewTimer(dur)
		defer t.Stop()
		select {
		case <-t.C:
			return TextResult(fmt.Sprintf("Waited %s.", dur)), nil
		case <-ctx.Done():
			return protocol.CallToolResult{}, ctx.Err()
		}
	}
	bound := DefaultWaitForText
	if a.Time > 0 {
		bound = time.Duration(a.Time * float64(time.Second))
	}
	if bound > maxWait {
		bound = maxWait
	}
	start := time.Now()
	deadline := start.Add(bound)
	var last error
	var target Target
	for {
		var res protocol.TextResult
		reached := false
		err := d.withTab(ctx, a.Profile, a.Tab, func(ctx context.Context, t Target, s Session) error {
			reached = true
			target = t
			return s.Request(ctx, protocol.MsgGetText, protocol.GetTextRequest{TabID: t.TabID}, &res)
		})
		switch {
		case err != nil && !reached:
			return protocol.CallToolResult{}, err
		case errors.As(err, new(*PausedError)):
			// The person pressed Stop: waiting on would only hear it again.
			return protocol.CallToolResult{}, err
		case err != nil:
			last = err
		case strings.Contains(res.Text, a.Text):
			return TextResult(fmt.Sprintf("The text %q appeared in %s after %s.", clip(a.Text, maxEcho), target.String(), time.Since(start).Round(10*time.Millisecond))), nil
		}
		if ctx.Err() != nil {
			return protocol.CallToolResult{}, ctx.Err()
		}
		left := time.Until(deadline)
		if left <= 0 {
			break
		}
		pause := min(d.opts.WaitPoll, left)
		t := time.NewTimer(pause)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return protocol.CallToolResult{}, ctx.Err()
		}
	}
	msg := fmt.Sprintf("The text %q did not appear in %s within %s.", clip(a.Text, maxEcho), target.String(), bound)
	quote := ""
	if last != nil {
		var why string
		why, quote = failureParts(last)
		msg += " The last attempt to read the page failed" + why
	}
	return protocol.ErrorResult(withPage(msg+" Take a browser_snapshot to see what the page shows, or wait longer with a larger `time`.", quote)), nil
}
