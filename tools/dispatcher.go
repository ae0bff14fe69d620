package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sort"
	"strings"
	"time"

	"github.com/monkbrowse/monkbrowse/protocol"
)

// Defaults of [Options].
const (
	DefaultWaitPoll     = 250 * time.Millisecond
	DefaultWaitForText  = 10 * time.Second
	maxWait             = 50 * time.Second // below CallBudget (issue 12)
	panicReportingHint  = "This is a bug in monkbrowse; the call did nothing more. Try again, and report it if it repeats."
	unknownToolTemplate = "There is no tool named %q in monkbrowse. The tools are: %s."
)

// CallBudget is the longest one tool call may take, counted from when
// monkbrowse read it (time queued included): below the 60 s that MCP
// clients commonly wait, so the AI gets monkbrowse's explanation instead of
// a bare "Request timed out". The wire timeouts, the one retry of reads and
// browser_wait's maximum all fit inside it (DECISIONS.md, issue 12).
const CallBudget = 55 * time.Second

// ErrCallBudget is the cause of a call's context when CallBudget ran out.
var ErrCallBudget = errors.New("tools: the call's time budget ran out")

// Options configures a [Dispatcher]. A nil *Options, and every zero field,
// means the default.
type Options struct {
	// WaitPoll is how often browser_wait looks for its text. Zero means
	// DefaultWaitPoll (250 ms).
	WaitPoll time.Duration
	// AskSlice is the longest one browser_ask_user call waits for the
	// person's answer before it answers with a waitId. Zero means
	// DefaultAskSlice (50 s); tests make it short.
	AskSlice time.Duration
	// Logger receives one record per recovered handler panic (level
	// error, with the tool and the stack). Nil discards them; the server
	// bridges its zerolog output with zerolog.NewSlogHandler.
	Logger *slog.Logger
}

// Dispatcher runs the AI-facing tools of protocol.Tools over a [Browser]. It
// is a protocol.Caller and is safe for concurrent use.
type Dispatcher struct {
	b        Browser
	opts     Options
	handlers map[string]handler
	// snaps is each app's last snapshot per tab, the base of the diffs
	// that follow actions.
	snaps snapMemory
	// cursors keeps the snapshots cut by the token budget, for their
	// later parts.
	cursors cursorStore
	// asks are the browser_ask_user requests the AI may keep waiting for.
	asks askStore
	// people is each app's last edit number of the person's per tab
	// (person.go).
	people personMemory
}

// dispatch is one call being run: the Dispatcher and the call, whose Client
// keys the snapshot diffs and whose Grants decide file: URLs and uploads.
// The handlers are its methods.
type dispatch struct {
	*Dispatcher
	call protocol.CallTool
	// client is the calling app (ClientOf): its own snapshot memory.
	client string
	// person collects the person's edits this call's turns were told of.
	person *personNote
}

type handler func(d dispatch, ctx context.Context, args json.RawMessage) (protocol.CallToolResult, error)

var _ protocol.Caller = (*Dispatcher)(nil)

// NewDispatcher returns a Dispatcher over b.
func NewDispatcher(b Browser, opts *Options) *Dispatcher {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.WaitPoll <= 0 {
		o.WaitPoll = DefaultWaitPoll
	}
	if o.AskSlice <= 0 {
		o.AskSlice = DefaultAskSlice
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	d := &Dispatcher{b: b, opts: o}
	d.handlers = routes()
	for _, t := range protocol.Tools {
		if d.handlers[t.Name] == nil {
			panic("tools: no handler for " + t.Name)
		}
	}
	return d
}

// CallTool validates args against the tool's schema and runs the tool. Every
// failure, including a panic in a handler, is a result with IsError set; the
// error return is always nil and exists to satisfy protocol.Caller. No
// result carries a raw line-breaking control character (pagetext.go).
func (d *Dispatcher) CallTool(ctx context.Context, call protocol.CallTool) (protocol.CallToolResult, error) {
	res, err := d.callTool(ctx, call)
	return escapeResult(res), err
}

func (d *Dispatcher) callTool(ctx context.Context, call protocol.CallTool) (res protocol.CallToolResult, err error) {
	name := call.Name
	h, ok := d.handlers[name]
	if !ok {
		names := make([]string, 0, len(protocol.Tools))
		for _, t := range protocol.Tools {
			names = append(names, t.Name)
		}
		sort.Strings(names)
		return protocol.ErrorResult(fmt.Sprintf(unknownToolTemplate, name, strings.Join(names, ", "))), nil
	}
	defer func() {
		if r := recover(); r != nil {
			d.opts.Logger.Error("tools: a tool handler panicked", "tool", name, "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
			res, err = protocol.ErrorResult(fmt.Sprintf("%s failed inside monkbrowse (%v). %s", name, r, panicReportingHint)), nil
		}
	}()
	clean, verr := argsToBind(name, call.Args)
	if verr != nil {
		return protocol.ErrorResult(verr.Error()), nil
	}
	if call.App != "" {
		ctx = withApp(ctx, call.App) // the Browser's sessions send it with each request
	}
	dd := dispatch{d, call, ClientOf(ctx), &personNote{}}
	res, herr := h(dd, ctx, clean)
	if herr != nil {
		res = protocol.ErrorResult(d.explain(ctx, name, herr))
	}
	return dd.withPersonEdits(res), nil
}

// explain words a handler error for the AI. Errors from the Browser already
// are; a cancelled context is said plainly; the browser's own words come
// after the page-content note, since they may quote the page.
func (d *Dispatcher) explain(ctx context.Context, name string, err error) string {
	if errors.Is(context.Cause(ctx), ErrCallBudget) && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, ErrCallBudget)) {
		return BudgetMessage(name)
	}
	if ae := protocol.Aborted(ctx); ae != nil && ae.Code != protocol.CodeCancelled && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)) {
		// Stopped on purpose (the person paused the AI, the owner left)
		// while it sent nothing (a time-only wait, the pause between
		// polls): say why.
		return fmt.Sprintf("%s was stopped: %s.", name, ae.Reason)
	}
	if ctx.Err() != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)) {
		return fmt.Sprintf("%s was cancelled before it finished (the MCP client cancelled the call or monkbrowse is shutting down).", name)
	}
	var be *BrowserError
	if errors.As(err, &be) {
		return browserFailure(name, be)
	}
	return clipTokens(err.Error(), DefaultMaxTokens)
}

// BudgetMessage explains a call stopped by CallBudget.
func BudgetMessage(name string) string {
	return fmt.Sprintf("%s did not finish within monkbrowse's %s limit per call (kept below MCP clients' usual 60 s timeout), counting the time it waited behind earlier calls to the same tab. The page may be busy or slow to load. Take a browser_snapshot to see the tab's state before trying again.", name, CallBudget)
}

// bind decodes validated arguments into T and calls fn.
func bind[T any](fn func(d dispatch, ctx context.Context, a T) (protocol.CallToolResult, error)) handler {
	return func(d dispatch, ctx context.Context, raw json.RawMessage) (protocol.CallToolResult, error) {
		var a T
		if err := json.Unmarshal(raw, &a); err != nil {
			// The validator accepted it, so this is about a value out of
			// range for the Go type (e.g. a huge integer).
			return protocol.CallToolResult{}, fmt.Errorf("Invalid arguments: %v. Fix the arguments and call the tool again.", err)
		}
		return fn(d, ctx, a)
	}
}
