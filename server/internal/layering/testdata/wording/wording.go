// Package wording is the self-test of TestNoDecisionReadsRemoteWording:
// every line marked "// decides" must be flagged, and no other.
package wording

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/monkbrowse/monkbrowse/messaging"
	"github.com/monkbrowse/monkbrowse/protocol"
)

var gone = regexp.MustCompile("gone")

type holder struct{ last *messaging.RemoteError }

func remote() *messaging.RemoteError { return nil }

func isGone(string, int) bool { return false }

func decide(err error, h holder) error {
	var re *messaging.RemoteError
	if errors.As(err, &re) && re.Message == "leaving" { // decides
		return nil
	}
	if errors.As(err, &re) && strings.Contains(re.Message, "gone") { // decides
		return nil
	}
	if gone.MatchString(re.Message) { // decides
		return nil
	}
	if isGone(re.Message, 3) { // decides
		return nil
	}
	switch re.Message { // decides
	}
	// Reached through a field or a call, not a declared name.
	if h.last.Message == "leaving" { // decides
		return nil
	}
	if strings.HasPrefix(remote().Message, "tab") { // decides
		return nil
	}
	// A local variable holding it.
	msg := re.Message
	if msg != "" { // decides
		return nil
	}
	// Any error's Error(): a remote refusal arrives wrapped.
	if strings.Contains(err.Error(), "handing over") { // decides
		return nil
	}
	if err.Error() == "owner is leaving" { // decides
		return nil
	}
	if gone.FindString(err.Error()) != "" { // decides
		return nil
	}
	switch err.Error() { // decides
	case "gone":
	}
	text := err.Error()
	lower := strings.ToLower(text)
	if strings.HasPrefix(lower, "monkbrowse owner") { // decides
		return nil
	}
	var again string
	again = text
	if again == "gone" { // decides
		return nil
	}
	return nil
}

// show only words and shows the wording: nothing here is flagged.
func show(err, prev error) error {
	var re *messaging.RemoteError
	if errors.As(err, &re) && re.Code == "tab_gone" {
		return errors.New(re.Message)
	}
	msg := re.Message
	_ = protocol.ErrorResult("owner: " + msg)
	if prev == nil || prev.Error() != err.Error() { // a log line not repeated
		_ = fmt.Sprintf("failed: %s", err.Error())
	}
	text := err.Error()
	_ = fmt.Errorf("%s (%w)", text, err)
	return errors.New("owner: " + re.Message)
}
