// Package mcpserver is monkbrowse's MCP endpoint: mark3labs/mcp-go over
// stdio, serving tools/list from the protocol.Tools catalog and sending
// every tools/call, with what this AI app allows (its grants), to one
// protocol.Caller: the shared daemon's router, which follows the process's
// role (owner or forwarder) without restarting stdio.
//
// Nothing here writes to stdout except the MCP stream itself; logs go to
// the zerolog logger given in Options (stderr in the binary).
package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/rs/zerolog"

	"github.com/monkbrowse/monkbrowse/protocol"
	"github.com/monkbrowse/monkbrowse/server/internal/files"
	"github.com/monkbrowse/monkbrowse/tools"
)

// Instructions is what initialize tells the model about monkbrowse.
const Instructions = `monkbrowse drives the Chrome the person already has open (logged in, their real profiles), but only the tabs they chose to share.
- Start with browser_list_tabs: it lists each Chrome profile by slug (e.g. "work") and its shared tabs by number (1, 2, 3…).
- Address a tab with profile (the slug) and tab (the number). Omit profile when only one profile is connected (or to reuse the one you acted on last); omit tab to use the profile's active shared tab.
- Only shared tabs are reachable. If the tab you need is not listed, ask the person to click the monkbrowse icon and switch Share on for it, or open one with browser_new_tab (new tabs are shared).
- Read a page with browser_snapshot: one line per element with a ref such as [ref=e12]. Act with a ref from the latest snapshot plus a short element description. Tools that change the page answer with a fresh snapshot; if a ref is stale, take a new snapshot.
- Results stay within a token budget: a large page comes back as its outline, what is on screen and what can be acted on, and its last line names a cursor for the rest. Use browser_find (e.g. role:button "Save") to locate elements, and browser_snapshot with ref for one part of the page.
- Calls to different tabs run in parallel; calls to the same tab run one after another in order.`

// Options configures a Server. A nil *Options, and every zero field, means
// the default.
type Options struct {
	// Name and Version are reported in initialize. Defaults: "monkbrowse"
	// and protocol.Version.
	Name, Version string
	// Instructions replaces the default instructions for the model.
	Instructions string
	// CallBudget bounds each tool call from when it was read (time queued
	// included). Zero: tools.CallBudget.
	CallBudget time.Duration
	// Logger receives mcp-go's errors and the server's own diagnostics.
	// Nil discards them.
	Logger *zerolog.Logger

	// What this AI app allows (DESIGN §8). They are applied here, in the
	// process the app launched, whatever its role: a forwarder reads the
	// upload itself and sends the grants with the call, so the owner never
	// applies its own flags or roots to another app's call.

	// UploadRoots are the folders given with --upload-root; the MCP
	// client's roots are added to them.
	UploadRoots []string
	// UploadLimit is the largest file uploaded; 0 means files.DefaultLimit.
	UploadLimit int64
	// AllowFileURLs (--allow-file-urls) lets browser_navigate and
	// browser_new_tab open file: URLs.
	AllowFileURLs bool
	// ProgressEvery is how often a browser_ask_user call that carried a
	// progressToken sends notifications/progress while it waits for the
	// person. Zero: DefaultProgressEvery.
	ProgressEvery time.Duration
	// Caps are the optional tool groups this AI app switched on (--caps);
	// nil: the core tools only. tools/list shows only the chosen tools, and
	// a call to another one is refused here, in the app's own process, so
	// a forwarder's choice holds for its calls whatever the owner's app
	// chose (the owner never applies its caps to forwarded calls).
	Caps protocol.CapSet
	// Policies returns the organisation's policy of each connected browser
	// profile (issue 44; nil entries: none). tools/list leaves out the
	// tools every one of them forbids (protocol.ForbiddenForAll); the
	// extension refuses a call to one anyway. Nil: nothing is left out.
	Policies func(ctx context.Context) []*protocol.SitePolicy
}

// DefaultProgressEvery is how often a waiting browser_ask_user reports
// progress: often enough for MCP clients that reset their timeout on
// progress (issue 29).
const DefaultProgressEvery = 5 * time.Second

// progressTools are the tools that wait on the person and report progress.
var progressTools = map[string]bool{"browser_ask_user": true}

// rootsTimeout bounds the wait for the MCP client's roots/list answer.
const rootsTimeout = 10 * time.Second

// rootsInput is the key of the roots input request (newest MCP protocol).
const rootsInput = "roots"

// Server is the MCP endpoint.
type Server struct {
	opts   Options
	log    zerolog.Logger
	mcp    *server.MCPServer
	caller protocol.Caller

	// The MCP client's roots as last read (initialize-era clients; the
	// newest protocol sends them with the call). roots/list_changed
	// invalidates them.
	rootsMu    sync.Mutex
	roots      []string
	rootsValid bool
	rootsGen   uint64
	client     atomic.Pointer[string] // the MCP client's name, from initialize
	order      *order                 // the per-tab order of every transport's calls
	clients    clients                // the MCP sessions open (HTTP's AI apps)
}

// New returns a Server that sends tool calls to c.
func New(c protocol.Caller, opts *Options) *Server {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Name == "" {
		o.Name = "monkbrowse"
	}
	if o.Version == "" {
		o.Version = protocol.Version
	}
	if o.Instructions == "" {
		o.Instructions = Instructions
	}
	if o.CallBudget <= 0 {
		o.CallBudget = tools.CallBudget
	}
	if o.ProgressEvery <= 0 {
		o.ProgressEvery = DefaultProgressEvery
	}
	s := &Server{opts: o, log: zerolog.Nop(), caller: c, order: newOrder()}
	if o.Logger != nil {
		s.log = *o.Logger
	}
	hooks := &server.Hooks{}
	// tools/list shows the chosen tools only. Every tool stays registered,
	// so a call to one left out reaches handle, which says which --caps
	// would turn it on, instead of mcp-go's bare "tool not found".
	hooks.AddAfterListTools(func(ctx context.Context, _ any, _ *mcp.ListToolsRequest, res *mcp.ListToolsResult) {
		if res != nil {
			res.Tools = s.chosen(ctx, res.Tools)
		}
	})
	hooks.AddAfterInitialize(func(ctx context.Context, _ any, req *mcp.InitializeRequest, _ *mcp.InitializeResult) {
		if req != nil {
			s.client.Store(&req.Params.ClientInfo.Name)
			s.clients.initialized(ctx, req.Params.ClientInfo.Name, time.Now())
		}
	})
	s.clients.hook(hooks)
	s.mcp = server.NewMCPServer(o.Name, o.Version,
		server.WithHooks(hooks),
		server.WithInstructions(o.Instructions),
		server.WithToolCapabilities(false),
		server.WithRecovery(),
	)
	st := make([]server.ServerTool, 0, len(protocol.Tools))
	for _, t := range AllTools() {
		st = append(st, server.ServerTool{Tool: t, Handler: s.handle})
	}
	s.mcp.AddTools(st...)
	// Over stdio the inbox applies roots/list_changed in read order; this
	// covers other transports (in-process clients in tests).
	s.mcp.AddNotificationHandler(mcp.MethodNotificationRootsListChanged, func(context.Context, mcp.JSONRPCNotification) { s.rootsChanged() })
	return s
}

// rootsChanged forgets the MCP client's roots: the next upload reads them
// again.
func (s *Server) rootsChanged() {
	s.rootsMu.Lock()
	s.rootsValid, s.roots = false, nil
	s.rootsGen++
	s.rootsMu.Unlock()
	s.log.Debug().Msg("the MCP client's roots changed; they are read again at the next upload")
}

// ClientName is the name the AI app gave in initialize ("" before it).
func (s *Server) ClientName() string {
	if p := s.client.Load(); p != nil {
		return *p
	}
	return ""
}

// appName is the calling AI app as the person knows it: the client's name
// from the request's _meta (the newest protocol, which skips initialize),
// else from initialize, else "AI app (pid N)" with this process's pid.
func (s *Server) appName(ctx context.Context) string {
	client := ""
	if info := server.RequestProtocolInfoFromContext(ctx); info != nil && info.ClientInfo != nil {
		client = info.ClientInfo.Name
	}
	if strings.TrimSpace(client) == "" {
		// The session's own name: over HTTP one Server has many clients.
		if sess, ok := server.ClientSessionFromContext(ctx).(server.SessionWithClientInfo); ok {
			client = sess.GetClientInfo().Name
		}
	}
	if strings.TrimSpace(client) == "" {
		client = s.ClientName()
	}
	return protocol.AppDisplayName(client, os.Getpid())
}

// MCPServer is the underlying mcp-go server, e.g. for an in-process client
// in tests.
func (s *Server) MCPServer() *server.MCPServer { return s.mcp }

// ServeStdio serves MCP over in and out until in ends (nil: a normal end of
// the AI app's session) or ctx is cancelled. Tool calls go through the
// inbox (inbox.go): per-tab FIFOs in the order they were read, cancellation
// of queued calls; everything else is mcp-go's. mcp-go keeps the stdio
// session in a package variable, so serve one stdio stream per process.
func (s *Server) ServeStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	err := s.serve(ctx, in, out)
	if err != nil && ctx.Err() != nil {
		return nil // cancelled: a requested stop, not a failure
	}
	return err
}

// capsKey is the context key of a request's own tool groups.
type capsKey struct{}

// WithCaps returns ctx carrying the optional tool groups of the AI app
// making the request, in place of Options.Caps: over HTTP one Server
// serves several apps, each with its own choice (issue 45).
func WithCaps(ctx context.Context, caps protocol.CapSet) context.Context {
	return context.WithValue(ctx, capsKey{}, caps)
}

// caps is the tool groups of the app making the request in ctx.
func (s *Server) caps(ctx context.Context) protocol.CapSet {
	if c, ok := ctx.Value(capsKey{}).(protocol.CapSet); ok {
		return c
	}
	return s.opts.Caps
}

// chosen keeps the tools this AI app's --caps switched on.
func (s *Server) chosen(ctx context.Context, all []mcp.Tool) []mcp.Tool {
	caps := s.caps(ctx)
	var forbidden map[string]bool
	if s.opts.Policies != nil {
		forbidden = protocol.ForbiddenForAll(s.opts.Policies(ctx))
	}
	out := make([]mcp.Tool, 0, len(all))
	for _, t := range all {
		if forbidden[t.Name] {
			continue // every connected browser's policy forbids it (issue 44)
		}
		if pt, ok := protocol.LookupTool(t.Name); !ok || caps.Has(pt) {
			out = append(out, t)
		}
	}
	return out
}

// Tools converts the catalog's tools that caps switches on (nil: the core
// tools) to MCP tool definitions with their generated schemas and
// annotations, in catalog order.
func Tools(caps protocol.CapSet) []mcp.Tool {
	var out []mcp.Tool
	for _, t := range AllTools() {
		if pt, _ := protocol.LookupTool(t.Name); caps.Has(pt) {
			out = append(out, t)
		}
	}
	return out
}

// AllTools is every tool of the catalog, whatever its group.
func AllTools() []mcp.Tool {
	out := make([]mcp.Tool, 0, len(protocol.Tools))
	for i := range protocol.Tools {
		t := &protocol.Tools[i]
		mt := mcp.NewToolWithRawSchema(t.Name, t.Description, t.InputSchema())
		mt.Title = t.Title
		// Annotations say what differs from the MCP defaults (not read-only,
		// destructive, not idempotent, open world), plus destructiveHint
		// on every tool that is not read-only (a client may weigh it); the
		// title is the tool's own, not repeated here. Every byte is paid
		// for by every session (issue 30).
		if t.ReadOnly {
			mt.Annotations.ReadOnlyHint = mcp.ToBoolPtr(true)
		} else {
			mt.Annotations.DestructiveHint = mcp.ToBoolPtr(t.Destructive)
		}
		if t.Idempotent {
			mt.Annotations.IdempotentHint = mcp.ToBoolPtr(true)
		}
		if t.LocalOnly {
			mt.Annotations.OpenWorldHint = mcp.ToBoolPtr(false)
		}
		out = append(out, mt)
	}
	return out
}

// inTurnKey marks the context of a call that already holds its turn (the
// stdio inbox takes it as it reads the line).
type inTurnKey struct{}

// WaitingCalls is the number of tool calls waiting for their turn, and a
// channel closed at its next change (tests wait on it).
func (s *Server) WaitingCalls() (int, <-chan struct{}) { return s.order.Waiting() }

// LogHTTPCallWaits and LogHTTPWaitingCallCancelled are the debug lines of
// a tools/call served by mcp-go (over HTTP) that waits for its turn, and
// of one cancelled while it waited.
const (
	LogHTTPCallWaits            = "a tool call over HTTP waits behind the running call on its tab"
	LogHTTPWaitingCallCancelled = "a waiting tool call over HTTP was cancelled: it will never run"
)

func (s *Server) handle(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	name := req.Params.Name
	s.clients.called(ctx)
	if ctx.Value(inTurnKey{}) == nil {
		// Served by mcp-go (HTTP, an in-process client): the call takes
		// its turn now, in its session's scope, placed by the arguments
		// mcp-go already decoded (parsedargs.go). Over HTTP each request
		// has its own goroutine, so waiting here holds no worker.
		args := parsedArgs(req)
		if key, ok := keyOf(sessionID(ctx), name, &args); ok {
			t := s.order.add(key)
			if t.queued {
				s.log.Debug().Str("tool", name).Msg(LogHTTPCallWaits)
			}
			if !t.wait(ctx) {
				s.log.Debug().Str("tool", name).Msg(LogHTTPWaitingCallCancelled)
				return mcp.NewToolResultError(fmt.Sprintf("%s was not run: it was cancelled while it waited for the calls before it on its tab.", name)), nil
			}
			defer t.finish()
		}
	}
	if t, ok := protocol.LookupTool(name); ok && !s.caps(ctx).Has(t) {
		return mcp.NewToolResultError(notChosen(t)), nil
	}
	args, err := rawArgs(req)
	if err != nil {
		return mcp.NewToolResultError(fmt.Sprintf("Invalid arguments for %s: they are not JSON (%v).", name, err)), nil
	}
	call := protocol.CallTool{Name: name, Args: args, Grants: protocol.AppGrants{AllowFileURLs: s.opts.AllowFileURLs}, App: s.appName(ctx)}
	if name == "browser_upload_file" {
		var a struct {
			Path *string `json:"path"`
		}
		// Malformed arguments go on to the dispatcher, whose validation
		// names the field.
		if json.Unmarshal(args, &a) == nil && a.Path != nil && *a.Path != "" {
			roots, supports, more := s.clientRoots(ctx, req)
			if more != nil {
				return more, nil
			}
			f, err := files.Read(*a.Path, files.Policy{Roots: s.opts.UploadRoots, ClientRoots: roots, ClientSupportsRoots: supports, Limit: s.opts.UploadLimit})
			if err != nil {
				return mcp.NewToolResultError(err.Error()), nil
			}
			call.Grants.Upload = f
		}
	}
	if progressTools[name] && req.Params.Meta != nil && req.Params.Meta.ProgressToken != nil {
		stop := s.reportProgress(ctx, req.Params.Meta.ProgressToken)
		defer stop()
	}
	res, err := s.caller.CallTool(ctx, call)
	if err != nil {
		s.log.Warn().Err(err).Str("tool", name).Msg("tool call could not be made")
		return mcp.NewToolResultError(fmt.Sprintf("monkbrowse could not run %s: %v. Try again in a moment.", name, err)), nil
	}
	return ToMCP(res), nil
}

// rawArgs is a call's arguments as JSON: as read (RawArguments), or
// encoded from an in-process client's value.
func rawArgs(req mcp.CallToolRequest) (json.RawMessage, error) {
	if len(req.Params.RawArguments) > 0 {
		return req.Params.RawArguments, nil
	}
	if req.Params.Arguments == nil {
		return nil, nil
	}
	return json.Marshal(req.Params.Arguments)
}

// sessionID is the MCP session of ctx's request ("" when none).
func sessionID(ctx context.Context) string {
	if sess := server.ClientSessionFromContext(ctx); sess != nil {
		return sess.SessionID()
	}
	return ""
}

// reportProgress sends notifications/progress for token every
// ProgressEvery until the returned function is called (the call
// answered): progress counts the seconds waited, the message says for what.
// Sent from this process, the AI app's own, whichever process waits.
func (s *Server) reportProgress(ctx context.Context, token mcp.ProgressToken) (stop func()) {
	done := make(chan struct{})
	finished := make(chan struct{})
	start := time.Now()
	go func() {
		defer close(finished)
		t := time.NewTicker(s.opts.ProgressEvery)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
				waited := time.Since(start).Round(time.Second)
				err := s.mcp.SendNotificationToClient(ctx, string(mcp.MethodNotificationProgress), map[string]any{
					"progressToken": token,
					"progress":      max(time.Since(start).Seconds(), 0.001),
					"message":       fmt.Sprintf("Waiting for the person to press Done or Decline in the browser (%s so far).", waited),
				})
				if err != nil {
					s.log.Debug().Err(err).Msg("could not send a progress notification")
				}
			}
		}
	}()
	return func() {
		close(done)
		<-finished
	}
}

// notChosen is the refusal of a tool whose group this AI app did not
// switch on.
func notChosen(t *protocol.Tool) string {
	return fmt.Sprintf("%s is in monkbrowse's optional %q tools, which this AI app did not switch on, so it was not run. "+
		"To use it, add --caps %s (or --caps all) to monkbrowse's arguments in this AI app's MCP configuration and restart the app; "+
		"until then use the tools it lists.", t.Name, t.Cap, t.Cap)
}

// clientRoots returns the MCP client's roots (URIs) and whether it declares
// the roots capability. A client on the newest protocol is asked with an
// input request (more is the result to return; the call comes back with the
// answer); an initialize-era client is asked with roots/list once, and again
// after it announces roots/list_changed. A client that fails to answer
// counts as having no roots (the --upload-root folders still apply).
func (s *Server) clientRoots(ctx context.Context, req mcp.CallToolRequest) (roots []string, supports bool, more *mcp.CallToolResult) {
	if info := server.RequestProtocolInfoFromContext(ctx); info != nil && info.Modern {
		if info.ClientCapabilities == nil || info.ClientCapabilities.Roots == nil {
			return nil, false, nil
		}
		if r := server.RootsResponse(req.Params.InputResponses, rootsInput); r != nil {
			return rootURIs(r), true, nil
		}
		return nil, true, server.NewInputRequestBuilder("").Roots(rootsInput).ToolResult()
	}
	sess, ok := server.ClientSessionFromContext(ctx).(server.SessionWithClientInfo)
	if !ok || sess.GetClientCapabilities().Roots == nil {
		return nil, false, nil
	}
	s.rootsMu.Lock()
	if s.rootsValid {
		r := s.roots
		s.rootsMu.Unlock()
		return r, true, nil
	}
	gen := s.rootsGen
	s.rootsMu.Unlock()
	rctx, cancel := context.WithTimeout(ctx, rootsTimeout)
	defer cancel()
	res, err := s.mcp.RequestRoots(rctx, mcp.ListRootsRequest{Request: mcp.Request{Method: string(mcp.MethodListRoots)}})
	if err != nil || res == nil {
		s.log.Warn().Err(err).Msg("the MCP client did not answer roots/list; only --upload-root folders apply")
		return nil, true, nil
	}
	r := rootURIs(res)
	s.rootsMu.Lock()
	if s.rootsGen == gen {
		s.roots, s.rootsValid = r, true
	}
	s.rootsMu.Unlock()
	s.log.Debug().Strs("roots", r).Msg("read the MCP client's roots")
	return r, true, nil
}

func rootURIs(r *mcp.ListRootsResult) []string {
	out := make([]string, 0, len(r.Roots))
	for _, root := range r.Roots {
		out = append(out, root.URI)
	}
	return out
}

// ToMCP converts a protocol result to mcp-go's form.
func ToMCP(r protocol.CallToolResult) *mcp.CallToolResult {
	out := &mcp.CallToolResult{IsError: r.IsError, Content: make([]mcp.Content, 0, len(r.Content))}
	for _, c := range r.Content {
		switch c.Type {
		case "image":
			out.Content = append(out.Content, mcp.NewImageContent(c.Data, c.MimeType))
		default:
			out.Content = append(out.Content, mcp.NewTextContent(c.Text))
		}
	}
	return out
}
