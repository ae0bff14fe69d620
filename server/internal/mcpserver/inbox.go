package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	stdlog "log"
	"strconv"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/monkbrowse/monkbrowse/protocol"
	"github.com/monkbrowse/monkbrowse/tools"
)

// inbox is monkbrowse's reading layer in front of mcp-go over stdio (issue
// 12, DESIGN §6). It reads each line once: a tools/call is decoded into the
// request the tool handler takes (rpcCall) and a notifications/cancelled is
// applied, in the order they were read; every other line (initialize, ping,
// tools/list, replies to roots/list…) goes on to mcp-go's stdio server
// unchanged.
//
// Why: mcp-go v1.2.1 hands tools/call to a worker pool in scheduling order,
// so calls written at once for one tab would reach the tab out of order,
// and workers blocked on one busy tab would starve every other tab. Its
// handlers never see the JSON-RPC id either, so a cancellation could not
// reach a call that has not started. Here each call takes its turn in the
// server's order (order.go) as it is read, and a goroutine per call waits
// for that turn and runs the tool handler itself: a call for an idle tab
// starts at once whatever the depth of another tab's queue. A waiting call
// that is cancelled never runs; a running one has its context cancelled.
// Following the MCP spec, no response is written for a cancelled call.
type inbox struct {
	s   *Server
	out io.Writer // shared with mcp-go: one Write per message, serialised

	ready chan struct{} // closed once mcp-go's session context is known
	base  context.Context

	mu     sync.Mutex
	byID   map[string]*call // waiting or running calls by JSON-RPC id
	closed bool
	wg     sync.WaitGroup
}

// Debug log lines tests wait on (a call's state, observed rather than slept
// for).
const (
	// LogCallRead: a tools/call was read and taken in (waiting or started).
	LogCallRead = "a tool call was read"
	// LogCallWaits: a call waits for its turn behind a call read before it
	// that may address the same tab.
	LogCallWaits = "a tool call waits behind the running call on its tab"
	// LogWaitingCallCancelled: a call still waiting for its turn was
	// cancelled; it will never run.
	LogWaitingCallCancelled = "a waiting tool call was cancelled: it will never run"
	// LogRunningCallCancelled: a call already started was cancelled; its
	// context is cancelled (with protocol.ClientCancelled as the cause) by
	// the time this is logged.
	LogRunningCallCancelled = "a running tool call was cancelled: its context is cancelled"
)

type call struct {
	id      string // the JSON-RPC id, normalised (idKey)
	rawID   json.RawMessage
	req     *rpcCall
	line    json.RawMessage // the message, kept only for the calls mcp-go serves (rpcCall.direct)
	key     turnKey
	ordered bool // takes a turn in the order (else it runs at once)
	readAt  time.Time
	ctx     context.Context // ends at readAt + tools.CallBudget
	cancel  context.CancelFunc
	abort   context.CancelCauseFunc // cancels ctx with a *protocol.AbortError (DESIGN §5.5)
	// cancelled by notifications/cancelled: never run, or no response
	cancelled bool
	started   bool
}

func (c *call) tool() string { return c.req.Params.Name }

// lockedWriter makes each Write atomic, so lines written by mcp-go and by
// the inbox never interleave. mcp-go writes each message with one Write.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// serve reads in until it ends or ctx is cancelled, running tool calls
// itself and handing everything else to mcp-go's stdio server.
func (s *Server) serve(ctx context.Context, in io.Reader, out io.Writer) error {
	lw := &lockedWriter{w: out}
	ib := &inbox{s: s, out: lw, ready: make(chan struct{}), byID: map[string]*call{}}

	pr, pw := io.Pipe()
	st := server.NewStdioServer(s.mcp)
	st.SetErrorLogger(stdlog.New(s.log, "mcp: ", 0))
	var once sync.Once
	st.SetContextFunc(func(c context.Context) context.Context {
		once.Do(func() { ib.base = c; close(ib.ready) })
		return c
	})
	listenCtx, stopListen := context.WithCancel(ctx)
	defer stopListen()
	listened := make(chan error, 1)
	go func() { listened <- st.Listen(listenCtx, pr, lw) }()

	readErr := make(chan error, 1)
	go func() { readErr <- ib.read(in, pw) }()

	var err error
	select {
	case err = <-readErr:
		pw.Close() // mcp-go sees the end of input
	case <-ctx.Done():
		pw.CloseWithError(ctx.Err())
		// The reader goroutine stays blocked on in until it ends or the
		// process exits; it holds nothing else.
	}
	ib.shutdown()
	lerr := <-listened // mcp-go ends at the pipe's end (or ctx's)
	if err == nil && lerr != nil && !errors.Is(lerr, context.Canceled) && ctx.Err() == nil {
		err = lerr
	}
	return err
}

// MaxLine bounds one JSON-RPC message on stdin (issue 23). A longer line is
// never buffered whole: it is answered with -32600 "request too large" and
// the reader skips to its newline.
const MaxLine = 16 << 20

// keptPrefix is how much of a too-long line is kept to find its id.
const keptPrefix = 64 << 10

// read splits in into lines and routes each one. It returns nil at EOF.
func (ib *inbox) read(in io.Reader, pw *io.PipeWriter) error {
	r := bufio.NewReaderSize(in, 64<<10)
	for {
		line, tooLong, err := readLine(r, MaxLine)
		if tooLong {
			ib.refuseLarge(line)
		} else if len(bytes.TrimSpace(line)) > 0 {
			if !ib.route(line) {
				if _, werr := pw.Write(line); werr != nil {
					return nil // mcp-go stopped reading: the session is over
				}
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// readLine reads one line, its newline included. A line longer than limit is
// not kept: only its first keptPrefix bytes are returned, with tooLong, and
// the rest is read and dropped up to its newline, so memory stays bounded by
// limit whatever the line's length.
func readLine(r *bufio.Reader, limit int) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := r.ReadSlice('\n')
		switch {
		case tooLong:
		case len(line)+len(chunk) > limit:
			tooLong = true
			line = append(line, chunk[:min(len(chunk), max(0, keptPrefix-len(line)))]...)
			line = append([]byte(nil), line[:min(len(line), keptPrefix)]...)
		default:
			if cap(line)-len(line) < len(chunk) {
				// Doubling, not append's gentler growth for large
				// slices: a line near the limit then costs about twice
				// the limit in all, not six times.
				grown := make([]byte, len(line), min(limit, max(2*cap(line), len(line)+len(chunk))))
				copy(grown, line)
				line = grown
			}
			line = append(line, chunk...)
		}
		if err != bufio.ErrBufferFull {
			return line, tooLong, err
		}
	}
}

// refuseLarge answers a line over MaxLine: -32600 with the request's id
// when its first bytes name one (else null, as JSON-RPC says for a request
// whose id cannot be read).
func (ib *inbox) refuseLarge(prefix []byte) {
	ib.s.log.Warn().Int("limit", MaxLine).Msg("refused a JSON-RPC message over the line limit")
	var id any // null
	if raw := prefixID(prefix); raw != nil {
		id = mcp.NewRequestId(raw)
	}
	ib.write(map[string]any{"jsonrpc": mcp.JSONRPC_VERSION, "id": id, "error": map[string]any{
		"code":    mcp.INVALID_REQUEST,
		"message": fmt.Sprintf("request too large: a message on stdin may be at most %d MiB; it was not read", MaxLine>>20),
	}})
}

// prefixID finds the top-level "id" member in the start of a JSON object
// (the rest may be cut off), or nil.
func prefixID(prefix []byte) json.RawMessage {
	dec := json.NewDecoder(bytes.NewReader(prefix))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	for {
		k, err := dec.Token()
		if err != nil {
			return nil
		}
		key, ok := k.(string)
		if !ok {
			return nil // the object's end
		}
		if key == "id" {
			var v json.RawMessage
			if dec.Decode(&v) != nil {
				return nil
			}
			if len(v) > 0 && (v[0] == '"' || v[0] == '-' || (v[0] >= '0' && v[0] <= '9')) {
				return v
			}
			return nil
		}
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return nil
		}
	}
}

// rpcCall is a JSON-RPC message as the inbox reads it, once: enough of
// any message to route it, and the whole of a tools/call, which the tool
// handler takes as it is (toRequest) without mcp-go reading it again.
type rpcCall struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  struct {
		// tools/call
		Name      string    `json:"name"`
		Arguments callArgs  `json:"arguments"`
		Meta      *mcp.Meta `json:"_meta"`
		// notifications/cancelled
		RequestID json.RawMessage `json:"requestId"`
	} `json:"params"`
}

// direct reports whether the inbox serves this tools/call itself: a known
// tool, in the protocol era of initialize (a request of the newest era,
// which carries its protocol version in _meta, and an unknown tool's
// error are mcp-go's to answer; the call still takes its turn here).
func (r *rpcCall) direct() bool {
	if r.JSONRPC != mcp.JSONRPC_VERSION {
		return false
	}
	if _, ok := protocol.LookupTool(r.Params.Name); !ok {
		return false
	}
	return !mcp.IsModernProtocol(r.Params.Meta.ProtocolVersion())
}

// toRequest is the call as mcp-go's tool handler takes it.
func (r *rpcCall) toRequest() mcp.CallToolRequest {
	var req mcp.CallToolRequest
	req.Method = r.Method
	req.Params.Name = r.Params.Name
	req.Params.Meta = r.Params.Meta
	req.Params.RawArguments = r.Params.Arguments.raw
	if len(req.Params.RawArguments) > 0 {
		req.Params.Arguments = req.Params.RawArguments
	}
	return req
}

// route handles line if it is a tools/call request or a cancellation and
// reports whether it did; everything else goes to mcp-go. A cancellation is
// also passed on, so mcp-go's own bookkeeping stays whole.
func (ib *inbox) route(line []byte) bool {
	var r rpcCall
	if json.Unmarshal(line, &r) != nil {
		return false // mcp-go answers the parse error
	}
	switch r.Method {
	case string(mcp.MethodToolsCall):
		if len(r.ID) == 0 || string(r.ID) == "null" {
			return false
		}
		c := &call{readAt: time.Now(), id: idKey(r.ID), rawID: r.ID, req: &r}
		c.key, c.ordered = keyOf("", r.Params.Name, &r.Params.Arguments)
		if !r.direct() {
			c.line = append(json.RawMessage(nil), bytes.TrimSpace(line)...) // mcp-go reads this one
		}
		ib.enqueue(c)
		return true
	case string(mcp.MethodNotificationRootsListChanged):
		// Applied here, in read order: a browser_upload_file read after it
		// asks the client for its roots again (mcp-go's handler would run
		// later, racing the call).
		ib.s.rootsChanged()
		return false
	case "notifications/cancelled":
		if len(r.Params.RequestID) > 0 {
			ib.cancel(idKey(r.Params.RequestID))
		}
		return false
	}
	return false
}

// idKey normalises a JSON-RPC id: 7 and "7" stay different, as JSON-RPC
// wants; whitespace does not matter.
func idKey(raw json.RawMessage) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	switch x := v.(type) {
	case string:
		return "s:" + x
	case float64:
		return "n:" + strconv.FormatFloat(x, 'g', -1, 64)
	}
	return string(raw)
}

func (ib *inbox) enqueue(c *call) {
	<-ib.ready // mcp-go's Listen is running (it starts before reading)
	ib.mu.Lock()
	defer ib.mu.Unlock()
	if ib.closed {
		return
	}
	// The budget counts from the read, so time waiting is included.
	dl, cancelDL := context.WithDeadlineCause(ib.base, c.readAt.Add(ib.s.opts.CallBudget), tools.ErrCallBudget)
	c.ctx, c.abort = context.WithCancelCause(context.WithValue(dl, inTurnKey{}, true))
	c.cancel = func() { c.abort(nil); cancelDL() }
	ib.byID[c.id] = c
	if e := ib.s.log.Debug(); e.Enabled() {
		e.Str("tool", c.tool()).Msg(LogCallRead)
	}
	ib.wg.Add(1)
	if !c.ordered {
		c.started = true
		go func() {
			defer ib.wg.Done()
			ib.run(c)
		}()
		return
	}
	// The turn is taken here, as the line is read: read order is the
	// order. A goroutine starts when the turn comes (none while it waits).
	t := ib.s.order.addThen(c.key, func(t *turn) { go ib.inTurn(c, t) })
	if t.queued {
		if e := ib.s.log.Debug(); e.Enabled() {
			e.Str("tool", c.tool()).Msg(LogCallWaits)
		}
	}
}

// inTurn runs c now that its turn has come, unless it was cancelled while
// it waited or its budget ran out; either way the turn then passes on.
func (ib *inbox) inTurn(c *call, t *turn) {
	defer ib.wg.Done()
	defer t.finish()
	ib.mu.Lock()
	skip := c.cancelled
	if skip {
		ib.forget(c)
	} else {
		c.started = true
	}
	ib.mu.Unlock()
	if skip {
		return
	}
	if ib.spent(c) {
		// Its budget ran out while it waited: answer without running it.
		ib.answer(c, mcp.NewToolResultError(tools.BudgetMessage(c.tool())+" It was never started."))
		return
	}
	ib.run(c)
}

// forget drops c from byID. Call with mu held.
func (ib *inbox) forget(c *call) {
	if ib.byID[c.id] == c {
		delete(ib.byID, c.id)
	}
	c.cancel()
}

// run serves one call and writes its response unless it was cancelled.
func (ib *inbox) run(c *call) {
	resp := ib.handle(c)
	ib.mu.Lock()
	ib.forget(c)
	drop := c.cancelled
	ib.mu.Unlock()
	if drop || resp == nil {
		return
	}
	ib.write(resp)
}

func (ib *inbox) write(resp any) {
	b, err := json.Marshal(resp)
	if err != nil {
		ib.s.log.Error().Err(err).Msg("encoding a tool call's response")
		return
	}
	if _, err := ib.out.Write(append(b, '\n')); err != nil {
		ib.s.log.Debug().Err(err).Msg("writing a tool call's response")
	}
}

// spent reports whether c's budget ran out (or nearly: less than a
// twentieth of it is left, too little to send a request and hear back) while
// it waited.
func (ib *inbox) spent(c *call) bool {
	if c.ctx.Err() != nil {
		return errors.Is(context.Cause(c.ctx), tools.ErrCallBudget)
	}
	return time.Until(c.readAt.Add(ib.s.opts.CallBudget)) < ib.s.opts.CallBudget/20
}

// answer writes result as c's response without running it.
func (ib *inbox) answer(c *call, result *mcp.CallToolResult) {
	ib.mu.Lock()
	ib.forget(c)
	drop := c.cancelled
	ib.mu.Unlock()
	if drop {
		return
	}
	ib.write(mcp.NewJSONRPCResultResponse(mcp.NewRequestId(c.rawID), result))
}

func (ib *inbox) handle(c *call) (resp mcp.JSONRPCMessage) {
	defer func() {
		if r := recover(); r != nil {
			ib.s.log.Error().Interface("panic", r).Msg("tool call panicked")
			resp = mcp.JSONRPCError{JSONRPC: mcp.JSONRPC_VERSION, ID: mcp.NewRequestId(c.rawID),
				Error: mcp.NewJSONRPCErrorDetails(mcp.INTERNAL_ERROR, fmt.Sprintf("internal panic: %v", r), nil)}
		}
	}()
	if !c.req.direct() {
		return ib.s.mcp.HandleMessage(c.ctx, c.line)
	}
	res, err := ib.s.handle(c.ctx, c.req.toRequest())
	if err != nil {
		return mcp.JSONRPCError{JSONRPC: mcp.JSONRPC_VERSION, ID: mcp.NewRequestId(c.rawID),
			Error: mcp.NewJSONRPCErrorDetails(mcp.INTERNAL_ERROR, err.Error(), nil)}
	}
	return mcp.NewJSONRPCResultResponse(mcp.NewRequestId(c.rawID), res)
}

// cancel applies notifications/cancelled: a queued call is never run, a
// running one has its context cancelled; neither gets a response.
func (ib *inbox) cancel(id string) {
	ib.mu.Lock()
	defer ib.mu.Unlock()
	c := ib.byID[id]
	if c == nil {
		return // finished already, or never known
	}
	c.cancelled = true
	c.abort(protocol.ClientCancelled)
	c.cancel()
	if e := ib.s.log.Debug(); e.Enabled() {
		if c.started {
			e.Str("tool", c.tool()).Msg(LogRunningCallCancelled)
		} else {
			e.Str("tool", c.tool()).Msg(LogWaitingCallCancelled)
		}
	}
}

// appGone is the abort of the calls of an AI app that closed its side.
var appGone = protocol.Abort(protocol.CodeCancelled, "the AI app closed its connection to monkbrowse")

// shutdown stops taking calls, cancels every queued and running one (the
// AI app is gone) and waits for them.
func (ib *inbox) shutdown() {
	ib.mu.Lock()
	ib.closed = true
	for _, c := range ib.byID {
		if !c.started {
			c.cancelled = true // the app is gone: never start it
		}
		c.abort(appGone)
		c.cancel()
	}
	ib.mu.Unlock()
	ib.wg.Wait()
}
