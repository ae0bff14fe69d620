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
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/monkbrowse/monkbrowse/protocol"
	"github.com/monkbrowse/monkbrowse/tools"
)

// inbox is monkbrowse's reading layer in front of mcp-go (issue 12, DESIGN
// §6). It takes tools/call requests and notifications/cancelled off the
// input stream itself, in the order they were read, and passes every other
// line (initialize, ping, tools/list, replies to roots/list…) on to mcp-go's
// stdio server unchanged.
//
// Why: mcp-go v1.2.1 hands tools/call to a worker pool in scheduling order,
// so calls written at once for one tab reach the tab's queue out of order,
// and workers blocked on one busy tab starve every other tab. Its handlers
// never see the JSON-RPC id either, so a cancellation cannot reach a call
// that has not started. Here each call is put, as it is read, into the FIFO
// of the tab it names (its `profile` and `tab` arguments, as written); one
// goroutine per non-empty FIFO runs its calls one after another through
// MCPServer.HandleMessage, so a call for an idle tab starts at once whatever
// the depth of another tab's FIFO. A queued call that is cancelled is never
// run; a running one has its context cancelled. Following the MCP spec, no
// response is written for a cancelled call.
type inbox struct {
	s   *Server
	out io.Writer // shared with mcp-go: one Write per message, serialised

	ready chan struct{} // closed once mcp-go's session context is known
	base  context.Context

	mu     sync.Mutex
	queues map[string]*callQueue // by key; present only while non-empty or running
	byID   map[string]*call      // queued or running calls by JSON-RPC id
	closed bool
	wg     sync.WaitGroup
}

// Debug log lines tests wait on (a queue's state, observed rather than slept
// for).
const (
	// LogCallRead: a tools/call was read and taken in (queued or started).
	LogCallRead = "a tool call was read"
	// LogCallWaits: a call joined a FIFO whose call is running.
	LogCallWaits = "a tool call waits behind the running call on its tab"
	// LogWaitingCallCancelled: a call still waiting in its FIFO was
	// cancelled; it will never run.
	LogWaitingCallCancelled = "a waiting tool call was cancelled: it will never run"
	// LogRunningCallCancelled: a call already started was cancelled; its
	// context is cancelled (with protocol.ClientCancelled as the cause) by
	// the time this is logged.
	LogRunningCallCancelled = "a running tool call was cancelled: its context is cancelled"
)

// callQueue is one tab's FIFO of calls. A goroutine runs it only while it
// has calls.
type callQueue struct {
	calls   []*call
	running bool
}

type call struct {
	id        string // the JSON-RPC id, as raw JSON text
	rawID     json.RawMessage
	msg       json.RawMessage
	key       string // "" runs at once, in no queue
	readAt    time.Time
	ctx       context.Context // ends at readAt + tools.CallBudget
	cancel    context.CancelFunc
	abort     context.CancelCauseFunc // cancels ctx with a *protocol.AbortError (DESIGN §5.5)
	cancelled bool                    // by notifications/cancelled: never run, or no response
	started   bool
}

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
	ib := &inbox{s: s, out: lw, ready: make(chan struct{}), queues: map[string]*callQueue{}, byID: map[string]*call{}}

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

// envelope is the part of a JSON-RPC message the inbox looks at.
type envelope struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
		RequestID json.RawMessage `json:"requestId"`
	} `json:"params"`
}

// route handles line if it is a tools/call request or a cancellation and
// reports whether it did; everything else goes to mcp-go. A cancellation is
// also passed on, so mcp-go's own bookkeeping stays whole.
func (ib *inbox) route(line []byte) bool {
	var e envelope
	if json.Unmarshal(line, &e) != nil {
		return false // mcp-go answers the parse error
	}
	switch e.Method {
	case string(mcp.MethodToolsCall):
		if len(e.ID) == 0 || string(e.ID) == "null" {
			return false
		}
		ib.enqueue(&call{readAt: time.Now(), id: idKey(e.ID), rawID: e.ID, msg: append(json.RawMessage(nil), bytes.TrimSpace(line)...), key: QueueKey(e.Params.Name, e.Params.Arguments)})
		return true
	case string(mcp.MethodNotificationRootsListChanged):
		// Applied here, in read order: a browser_upload_file read after it
		// asks the client for its roots again (mcp-go's handler would run
		// later, racing the call).
		ib.s.rootsChanged()
		return false
	case "notifications/cancelled":
		if len(e.Params.RequestID) > 0 {
			ib.cancel(idKey(e.Params.RequestID))
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

// QueueKey is the FIFO a call joins: the tab its arguments name, exactly as
// written (profile case-folded). Calls that name the same tab differently
// (tab omitted vs its number) are in different FIFOs and meet again, in the
// order they get there, in the owner's per-tab queue. Tools that take no
// tab's turn (listing tabs, opening one, a plain sleep) join no FIFO.
//
// Exported for the HTTP transport (internal/httpmcp), which keeps the same
// per-tab order.
func QueueKey(name string, rawArgs json.RawMessage) string {
	switch name {
	case "browser_list_tabs", "browser_new_tab":
		return ""
	}
	var a struct {
		Profile any `json:"profile"`
		Tab     any `json:"tab"`
		Text    any `json:"text"`
	}
	if len(rawArgs) > 0 && json.Unmarshal(rawArgs, &a) != nil {
		return "" // the dispatcher explains bad arguments at once
	}
	if name == "browser_wait" && (a.Text == nil || a.Text == "") {
		return ""
	}
	prof := ""
	if p, ok := a.Profile.(string); ok {
		prof = strings.ToLower(strings.TrimSpace(p))
	} else if a.Profile != nil {
		prof = fmt.Sprint(a.Profile)
	}
	tab := ""
	if a.Tab != nil {
		tab = fmt.Sprint(a.Tab)
	}
	return "tab\x00" + prof + "\x00" + tab
}

func (ib *inbox) enqueue(c *call) {
	<-ib.ready // mcp-go's Listen is running (it starts before reading)
	ib.mu.Lock()
	defer ib.mu.Unlock()
	if ib.closed {
		return
	}
	// The budget counts from the read, so time queued is included.
	dl, cancelDL := context.WithDeadlineCause(ib.base, c.readAt.Add(ib.s.opts.CallBudget), tools.ErrCallBudget)
	c.ctx, c.abort = context.WithCancelCause(dl)
	c.cancel = func() { c.abort(nil); cancelDL() }
	ib.byID[c.id] = c
	if e := ib.s.log.Debug(); e.Enabled() {
		e.Str("tool", toolName(c.msg)).Msg(LogCallRead)
	}
	if c.key == "" {
		c.started = true
		ib.wg.Add(1)
		go func() {
			defer ib.wg.Done()
			ib.run(c)
		}()
		return
	}
	q := ib.queues[c.key]
	if q == nil {
		q = &callQueue{}
		ib.queues[c.key] = q
	}
	q.calls = append(q.calls, c)
	if q.running {
		if e := ib.s.log.Debug(); e.Enabled() {
			e.Str("tool", toolName(c.msg)).Int("waiting", len(q.calls)).Msg(LogCallWaits)
		}
	} else {
		q.running = true
		ib.wg.Add(1)
		go ib.drain(c.key, q)
	}
}

// drain runs q's calls one after another until it is empty.
func (ib *inbox) drain(key string, q *callQueue) {
	defer ib.wg.Done()
	for {
		ib.mu.Lock()
		if len(q.calls) == 0 {
			q.running = false
			delete(ib.queues, key)
			ib.mu.Unlock()
			return
		}
		c := q.calls[0]
		q.calls[0] = nil
		q.calls = q.calls[1:]
		skip := c.cancelled
		if skip {
			ib.forget(c)
		} else {
			c.started = true
		}
		ib.mu.Unlock()
		if !skip && ib.spent(c) {
			// Its budget ran out while it waited: answer without running it.
			ib.answer(c, mcp.NewToolResultError(tools.BudgetMessage(toolName(c.msg))+" It was never started."))
			continue
		}
		if !skip {
			ib.run(c)
		}
	}
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

func toolName(msg json.RawMessage) string {
	var e envelope
	_ = json.Unmarshal(msg, &e)
	return e.Params.Name
}

func (ib *inbox) handle(c *call) (resp mcp.JSONRPCMessage) {
	defer func() {
		if r := recover(); r != nil {
			ib.s.log.Error().Interface("panic", r).Msg("tool call panicked in mcp-go")
			resp = mcp.JSONRPCError{JSONRPC: mcp.JSONRPC_VERSION, ID: mcp.NewRequestId(c.rawID),
				Error: mcp.NewJSONRPCErrorDetails(mcp.INTERNAL_ERROR, fmt.Sprintf("internal panic: %v", r), nil)}
		}
	}()
	return ib.s.mcp.HandleMessage(c.ctx, c.msg)
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
			e.Str("tool", toolName(c.msg)).Msg(LogRunningCallCancelled)
		} else {
			e.Str("tool", toolName(c.msg)).Msg(LogWaitingCallCancelled)
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
