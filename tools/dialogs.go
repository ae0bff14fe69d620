package tools

import (
	"context"
	"fmt"
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
			answer = fmt.Sprintf("accepted (OK: confirm() returns true, prompt() returns %q)", clip(*a.PromptText, maxEcho))
		}
	}
	secs := int(protocol.DialogArmTTL / time.Second)
	return TextResult(fmt.Sprintf("The next dialog in %s will be %s, if it opens within %d seconds. "+
		"Now repeat the action that opens it (for example click the button again); that action's result will say what the dialog asked and how it was answered. "+
		"The answer is used by one dialog only: arm it again before each one.", t.String(), answer, secs)), nil
}

// The dialog types monkbrowse reports: an enum, whatever the wire says.
// A dialog of any other type is shown as "unknown", with no type word of
// the page's choosing.
type dialogType string

const (
	dialogAlert        dialogType = "alert"
	dialogConfirm      dialogType = "confirm"
	dialogPrompt       dialogType = "prompt"
	dialogBeforeUnload dialogType = "beforeunload"
	dialogUnknown      dialogType = "unknown"
)

func dialogTypeOf(s string) dialogType {
	switch t := dialogType(s); t {
	case dialogAlert, dialogConfirm, dialogPrompt, dialogBeforeUnload:
		return t
	}
	return dialogUnknown
}

// Bounds on the dialogs one result describes.
const (
	maxDialogs       = 5
	maxDialogMessage = 200 // characters of a message or an answer
)

// formatDialogs describes, for the AI, the dialogs the page opened and how
// they were answered, one line each; "" when there were none. The lines
// carry the page's messages (quoted), so they go after the page-content
// note. Each sentence's words are monkbrowse's and are chosen by the
// dialog's type, which is one of the enum above.
func formatDialogs(ds []protocol.Dialog) string {
	var lines []string
	for i, dg := range ds {
		if i == maxDialogs {
			lines = append(lines, fmt.Sprintf("(%d more dialog(s) opened and were answered the same way; browser_get_console_logs lists them.)", len(ds)-maxDialogs))
			break
		}
		lines = append(lines, dialogLine(dg))
	}
	return strings.Join(lines, "\n")
}

func dialogLine(dg protocol.Dialog) string {
	msg := quotedPage(dg.Message, maxDialogMessage)
	switch t := dialogTypeOf(dg.Type); {
	case t == dialogAlert:
		return fmt.Sprintf("An alert %s appeared and was acknowledged (OK).", msg)
	case t == dialogConfirm && dg.Armed && dg.Accepted:
		return fmt.Sprintf("A confirm dialog %s appeared and was accepted as browser_handle_dialog asked (confirm() returned true).", msg)
	case t == dialogConfirm && dg.Armed:
		return fmt.Sprintf("A confirm dialog %s appeared and was dismissed as browser_handle_dialog asked (confirm() returned false).", msg)
	case t == dialogConfirm:
		return fmt.Sprintf("A confirm dialog %s appeared and was dismissed (confirm() returned false), so the page likely did not go ahead. "+
			"To accept it: call browser_handle_dialog with accept: true, then repeat the action.", msg)
	case t == dialogPrompt && dg.Accepted:
		ans := ""
		if dg.Answer != nil {
			ans = *dg.Answer
		}
		return fmt.Sprintf("A prompt %s appeared and was answered with %s as browser_handle_dialog asked.", msg, quotedPage(ans, maxDialogMessage))
	case t == dialogPrompt && dg.Armed:
		return fmt.Sprintf("A prompt %s appeared and was cancelled as browser_handle_dialog asked (prompt() returned null).", msg)
	case t == dialogPrompt:
		return fmt.Sprintf("A prompt %s appeared and was cancelled (prompt() returned null). "+
			"To answer it: call browser_handle_dialog with accept: true and promptText, then repeat the action.", msg)
	case t == dialogBeforeUnload:
		return fmt.Sprintf("A \"Leave site?\" dialog (beforeunload) %s appeared and was answered without blocking the page.", msg)
	}
	return fmt.Sprintf("A dialog of an unknown type %s appeared and was answered without blocking the page.", msg)
}
