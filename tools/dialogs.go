package tools

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/monkbrowse/monkbrowse/protocol"
)

func (d dispatch) handleDialog(ctx context.Context, a protocol.HandleDialogArgs) (protocol.CallToolResult, error) {
	t, err := d.read(ctx, a.Target, protocol.MsgHandleDialog,
		func(t Target) any {
			return protocol.HandleDialogRequest{Accept: a.Accept, PromptText: a.PromptText, TabID: t.TabID}
		}, nil)
	if err != nil {
		return protocol.CallToolResult{}, err
	}
	answer := "dismissed (Cancel: confirm() returns false, prompt() returns null)"
	if a.Accept {
		answer = "accepted (OK: confirm() returns true, prompt() returns its default value)"
		if a.PromptText != nil {
			answer = fmt.Sprintf("accepted (OK: confirm() returns true, prompt() returns %q)", *a.PromptText)
		}
	}
	secs := int(protocol.DialogArmTTL / time.Second)
	return TextResult(fmt.Sprintf("The next dialog in %s will be %s, if it opens within %d seconds. "+
		"Now repeat the action that opens it (for example click the button again); that action's result will say what the dialog asked and how it was answered. "+
		"The answer is used by one dialog only: arm it again before each one.", t.String(), answer, secs)), nil
}

// formatDialogs describes, for the AI, the dialogs the page opened and how
// they were answered; empty when there were none.
func formatDialogs(ds []protocol.Dialog) string {
	var b strings.Builder
	for _, dg := range ds {
		msg := strconv.Quote(clip(dg.Message, 300))
		b.WriteString("\n")
		switch {
		case dg.Type == "alert":
			fmt.Fprintf(&b, "An alert %s appeared and was acknowledged (OK).", msg)
		case dg.Type == "confirm" && dg.Armed && dg.Accepted:
			fmt.Fprintf(&b, "A confirm dialog %s appeared and was accepted as browser_handle_dialog asked (confirm() returned true).", msg)
		case dg.Type == "confirm" && dg.Armed:
			fmt.Fprintf(&b, "A confirm dialog %s appeared and was dismissed as browser_handle_dialog asked (confirm() returned false).", msg)
		case dg.Type == "confirm":
			fmt.Fprintf(&b, "A confirm dialog %s appeared and was dismissed (confirm() returned false), so the page likely did not go ahead. "+
				"To accept it: call browser_handle_dialog with accept: true, then repeat the action.", msg)
		case dg.Type == "prompt" && dg.Accepted:
			ans := ""
			if dg.Answer != nil {
				ans = *dg.Answer
			}
			fmt.Fprintf(&b, "A prompt %s appeared and was answered with %q as browser_handle_dialog asked.", msg, clip(ans, 300))
		case dg.Type == "prompt" && dg.Armed:
			fmt.Fprintf(&b, "A prompt %s appeared and was cancelled as browser_handle_dialog asked (prompt() returned null).", msg)
		case dg.Type == "prompt":
			fmt.Fprintf(&b, "A prompt %s appeared and was cancelled (prompt() returned null). "+
				"To answer it: call browser_handle_dialog with accept: true and promptText, then repeat the action.", msg)
		default:
			fmt.Fprintf(&b, "A %s dialog %s appeared and was answered without blocking the page.", dg.Type, msg)
		}
	}
	return b.String()
}
