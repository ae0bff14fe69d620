package forwarder

import (
	"errors"
	"fmt"

	"github.com/monkbrowse/monkbrowse/protocol"
)

// ErrNotSent is wrapped by [Client.CallTool] when the call certainly did not
// run on the owner: the connection was already lost, or the owner refused it
// because it is handing over. Such a call may be repeated against the next
// owner; any other failure may not.
var ErrNotSent = errors.New("forwarder: call not run by the owner")

// ErrInterrupted is wrapped by [Client.CallTool] when the owner went away
// while the call was in flight: it may or may not have run. The caller
// decides: a tool that never changes anything (protocol.Tool.ReadOnly) may
// be run again on the next owner; anything else must not be repeated on a
// guess, and the error's message (written for the AI) is the answer.
var ErrInterrupted = errors.New("forwarder: the owner went away during the call")

// InterruptedError is the error wrapping [ErrInterrupted]. Its message says
// whether the tool may have run and what to do about it.
type InterruptedError struct {
	Tool string
	// NotSent: the owner had not yet sent the call to the browser (it
	// tells its forwarders with call_sent before it does), so it did not
	// run.
	NotSent bool
}

func (e *InterruptedError) Error() string {
	if e.NotSent {
		return fmt.Sprintf("%s was not run: the monkbrowse process that owned the browser connection went away before sending it to the browser, "+
			"so nothing happened on the page. Call it again; another monkbrowse process takes over in a moment.", e.Tool)
	}
	return fmt.Sprintf("the monkbrowse process that owned the browser connection went away while %s was running, "+
		"so it may or may not have run. Check the page (for example with browser_snapshot) before repeating it.", e.Tool)
}

func (e *InterruptedError) Unwrap() error { return ErrInterrupted }

// ErrNoOwner is wrapped by [Dial] when nothing listens on the control port:
// the owner has gone, and this process should try to become the owner.
var ErrNoOwner = errors.New("forwarder: no monkbrowse owner is listening")

// NotOwnerError reports that the control port is held by a program that does
// not behave as a monkbrowse owner. Its message is written for the person
// (or AI) who sees it: every tool call of this process fails with it until
// the port frees up.
type NotOwnerError struct {
	Port   int
	Detail string // what was seen, e.g. "it answered HTTP 404 instead of a WebSocket upgrade"
	// Silent: it accepted the connection and then answered nothing within
	// the handshake timeout (a foreign program, or an owner that is
	// suspended or stuck: the caller may find out which).
	Silent bool
	// Holder names the process holding the port when the caller found it
	// ("process 123 (nc)"); "" when unknown.
	Holder string
	// NotYours: it answered but could not prove that it holds this user's
	// control token (or the OS says it belongs to another user), so
	// nothing was sent to it, neither a proof nor a call.
	NotYours bool
}

func (e *NotOwnerError) Error() string {
	if e.NotYours {
		who := ""
		if e.Holder != "" {
			who = " (" + e.Holder + ")"
		}
		return fmt.Sprintf("monkbrowse cannot reach the browser: port %d is held by a program that is not your monkbrowse%s: %s, so this monkbrowse sent it nothing (no token, no tool call). "+
			"Stop that program if it is yours; if it belongs to another user of this computer, ask them or the administrator to stop it. "+
			"Or start every monkbrowse of yours with the same free port (--control-port) in each AI app's MCP settings.", e.Port, who, e.Detail)
	}
	who := "a program that is not a monkbrowse owner"
	if e.Holder != "" {
		who = e.Holder + ", which is not a monkbrowse owner"
	}
	return fmt.Sprintf("monkbrowse cannot reach the browser: the control port 127.0.0.1:%d is held by %s (%s). "+
		"Stop that program, or start every monkbrowse with the same free port (--control-port).", e.Port, who, e.Detail)
}

// OutdatedOwnerError reports that the control port is held by a monkbrowse
// owner older than the control proof (issue 23): it expects the token
// itself in fwd_hello, which this monkbrowse never sends.
type OutdatedOwnerError struct {
	Port    int
	Version string // what the owner announced
}

func (e *OutdatedOwnerError) Error() string {
	// The version is the holder's word: it has proven nothing.
	return fmt.Sprintf("update: an AI app is running an older monkbrowse that owns the browser connection on 127.0.0.1:%d "+
		"and asks other monkbrowse processes for the control token itself, which this one (version %s) no longer sends. "+
		"Update monkbrowse for every AI app and restart them (or quit the app running the old one); until then this AI app cannot use the browser. "+
		"Its version: %s.",
		e.Port, protocol.Version, protocol.QuoteUnverified(e.Port, e.Version))
}

// RejectedError reports that a monkbrowse owner refused fwd_hello, normally
// because the control token did not match (another user, another HOME, or an
// owner that changed between reading the token and saying hello).
type RejectedError struct {
	Port   int
	Reason string
	// Unproven: the refusal came before the owner's proof (a refused
	// fwd_hello), so whatever holds the port may have written Reason; it
	// is quoted as its words, cut and marked unverified (issue 40).
	Unproven bool
}

func (e *RejectedError) Error() string {
	if e.Unproven {
		return fmt.Sprintf("the program on 127.0.0.1:%d refused this process before proving that it is your monkbrowse owner; %s "+
			"(is it running as another user or with another HOME?)", e.Port, protocol.QuoteUnverified(e.Port, e.Reason))
	}
	return fmt.Sprintf("the monkbrowse owner on 127.0.0.1:%d refused this process: %s "+
		"(is it running as another user or with another HOME?)", e.Port, e.Reason)
}
