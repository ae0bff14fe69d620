package forwarder

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/monkbrowse/monkbrowse/messaging"
	"github.com/monkbrowse/monkbrowse/protocol"
)

// CallTool sends call_tool to the owner and returns its result.
//
// A call that certainly did not run (the owner was already lost, or it
// refused the call while handing over) fails with an error wrapping
// [ErrNotSent], and may be repeated against the next owner. A call that was
// in flight when the owner went away fails with an *[InterruptedError]: it
// may or may not have run, so only a tool that never changes anything may
// be repeated (the caller decides; an action is never repeated on a guess).
// A cancelled ctx returns ctx's error, and so does its deadline; a ctx
// without one gets [DefaultCallTimeout].
func (c *Client) CallTool(ctx context.Context, call protocol.CallTool) (protocol.CallToolResult, error) {
	name := call.Name
	select {
	case <-c.lost:
		return protocol.CallToolResult{}, fmt.Errorf("%w: %s (%s)", ErrNotSent, name, c.LossReason())
	default:
	}
	if c.peer.Err() != nil {
		// Already closed (the owner died), and the watcher has not marked
		// the client lost yet: nothing is sent.
		return protocol.CallToolResult{}, fmt.Errorf("%w: %s (%s)", ErrNotSent, name, Disconnected)
	}
	if len(call.Args) == 0 {
		call.Args = json.RawMessage("{}")
	}
	outer := ctx
	ctx, done, hung := c.track(ctx)
	defer done()
	if hung {
		return protocol.ErrorResult(c.hungMessage() + " This call was not sent."), nil
	}
	ref := strconv.FormatUint(c.refSeq.Add(1), 10)
	c.smu.Lock()
	c.sent[ref] = &sentState{ctx: ctx}
	c.smu.Unlock()
	defer func() {
		c.smu.Lock()
		delete(c.sent, ref)
		c.smu.Unlock()
	}()
	call.Ref = ref
	// The call's grants (what this process's own AI app allows) go with it:
	// the owner applies them, not its own. Client is not sent.
	wire := ctx
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		wire, cancel = messaging.WithRequestTimeout(ctx, protocol.MsgCallTool, DefaultCallTimeout)
		defer cancel()
	}
	raw, err := c.peer.Request(wire, protocol.MsgCallTool, call)
	if err != nil && outer.Err() == nil && errors.Is(context.Cause(ctx), errOwnerHung) {
		return protocol.ErrorResult(c.hungMessage() + " This call had been sent before it stopped answering, so it may or may not run when it resumes: check the page (browser_snapshot) before repeating it."), nil
	}
	if err == nil {
		var res protocol.CallToolResult
		if err := json.Unmarshal(raw, &res); err != nil {
			return protocol.ErrorResult(fmt.Sprintf("the monkbrowse owner sent an answer to %s that cannot be read (%v); the call may or may not have run", name, err)), nil
		}
		return res, nil
	}
	if ctx.Err() != nil {
		return protocol.CallToolResult{}, ctx.Err()
	}
	var re *messaging.RemoteError
	var te *messaging.RequestTimeoutError
	switch {
	case errors.As(err, &re) && re.Code == protocol.CodeOwnerLeaving:
		return protocol.CallToolResult{}, fmt.Errorf("%w: %s (owner handing over)", ErrNotSent, name)
	case errors.As(err, &re):
		// The owner refused the call without running it (for instance a
		// connection that never said fwd_hello): a tool error, as a local
		// refusal would be.
		return protocol.ErrorResult(re.Message), nil
	case errors.As(err, &te):
		return protocol.ErrorResult(fmt.Sprintf("the monkbrowse owner did not answer %s within %s; it may or may not have run. "+
			"Check the page (for example with browser_snapshot) before repeating it.", name, te.Timeout)), nil
	default:
		// The owner answers call_sent before the call's first request
		// leaves for the extension, and the handler has run by then: a
		// call it never told about did not reach the browser.
		c.smu.Lock()
		reached := c.sent[ref].sent
		c.smu.Unlock()
		c.log.Debug("forwarder: a call was interrupted", "tool", name, "sent", reached, "err", err.Error())
		return protocol.CallToolResult{}, &InterruptedError{Tool: name, NotSent: c.tellsSent && !reached}
	}
}

// track registers a call in flight; it is cancelled with errOwnerHung when
// the owner stops answering pings. hung reports that it already has.
func (c *Client) track(ctx context.Context) (context.Context, func(), bool) {
	ctx, cancel := context.WithCancelCause(ctx)
	key := new(struct{})
	c.hmu.Lock()
	hung := c.hung
	c.running[key] = cancel
	c.hmu.Unlock()
	return ctx, func() {
		c.hmu.Lock()
		delete(c.running, key)
		c.hmu.Unlock()
		cancel(nil)
	}, hung
}

// Status asks the owner for the report `monkbrowse doctor` prints, waiting
// at most protocol.DefaultTimeout within ctx.
func (c *Client) Status(ctx context.Context) (protocol.StatusResult, error) {
	var st protocol.StatusResult
	ctx, cancel := messaging.WithRequestTimeout(ctx, protocol.MsgStatus, protocol.DefaultTimeout)
	defer cancel()
	raw, err := c.peer.Request(ctx, protocol.MsgStatus, protocol.Status{})
	if err != nil {
		return st, fmt.Errorf("forwarder: status: %w", err)
	}
	if err := json.Unmarshal(raw, &st); err != nil {
		return st, fmt.Errorf("forwarder: status: decoding the answer: %w", err)
	}
	return st, nil
}
