package mcpserver

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/monkbrowse/monkbrowse/protocol"
	"github.com/monkbrowse/monkbrowse/tools"
)

// rawSession drives ServeStdio with hand-written JSON-RPC lines, so the
// test decides exactly what is written at once and in which order.
type rawSession struct {
	in    *io.PipeWriter
	resps chan map[string]any
	done  chan error
}

func startRaw(t *testing.T, c protocol.Caller, opts ...Options) *rawSession {
	t.Helper()
	var o *Options
	if len(opts) > 0 {
		o = &opts[0]
	}
	s := New(c, o)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	rs := &rawSession{in: inW, resps: make(chan map[string]any, 4096), done: make(chan error, 1)}
	ctx, cancel := context.WithCancel(context.Background())
	go func() { rs.done <- s.ServeStdio(ctx, inR, outW); outW.Close() }()
	go func() {
		r := bufio.NewReader(outR)
		for {
			line, err := r.ReadBytes('\n')
			if len(line) > 0 {
				var m map[string]any
				if json.Unmarshal(line, &m) != nil {
					t.Errorf("stdout line is not JSON: %q", line)
				}
				rs.resps <- m
			}
			if err != nil {
				close(rs.resps)
				return
			}
		}
	}()
	t.Cleanup(func() {
		inW.Close()
		select {
		case <-rs.done:
		case <-time.After(10 * time.Second):
			t.Error("ServeStdio did not return after stdin closed")
		}
		cancel()
	})
	rs.write(t, `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	if m := rs.next(t); m["id"] != "init" {
		t.Fatalf("initialize answered %v", m)
	}
	rs.write(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return rs
}

func (rs *rawSession) write(t *testing.T, lines ...string) {
	t.Helper()
	if _, err := io.WriteString(rs.in, strings.Join(lines, "\n")+"\n"); err != nil {
		t.Fatal(err)
	}
}

func (rs *rawSession) next(t *testing.T) map[string]any {
	t.Helper()
	select {
	case m, ok := <-rs.resps:
		if !ok {
			t.Fatal("stdout closed")
		}
		return m
	case <-time.After(20 * time.Second):
		t.Fatal("no response within 20 s")
	}
	return nil
}

func callLine(id any, tool, args string) string {
	idj, _ := json.Marshal(id)
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, idj, tool, args)
}

type seenCall struct {
	args json.RawMessage
	ctx  context.Context
}

// TestInboxSameTabArrivalOrder pins issue 12's inversions: calls written at
// once for one tab reach the Caller in the order they were written.
func TestInboxSameTabArrivalOrder(t *testing.T) {
	const n = 300
	var mu sync.Mutex
	var got []int
	rs := startRaw(t, callerFunc(func(_ context.Context, _ string, args json.RawMessage) (protocol.CallToolResult, error) {
		var a struct {
			Text string `json:"text"`
		}
		json.Unmarshal(args, &a)
		var i int
		fmt.Sscan(a.Text, &i)
		mu.Lock()
		got = append(got, i)
		mu.Unlock()
		return tools.TextResult("ok"), nil
	}))
	lines := make([]string, n)
	for i := range lines {
		lines[i] = callLine(i, "browser_type", fmt.Sprintf(`{"tab":1,"element":"e","ref":"e1","text":"%d"}`, i))
	}
	rs.write(t, lines...)
	for range n {
		if m := rs.next(t); m["error"] != nil {
			t.Fatalf("call failed: %v", m)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	for i, v := range got {
		if v != i {
			t.Fatalf("call %d ran in place %d (order %v…)", v, i, got[:min(len(got), i+5)])
		}
	}
}

// TestInboxIdleTabNotBehindBusyTab: a deep FIFO on tab 1 whose first call
// is stuck does not delay a call for tab 2.
func TestInboxIdleTabNotBehindBusyTab(t *testing.T) {
	release := make(chan struct{})
	rs := startRaw(t, callerFunc(func(ctx context.Context, _ string, args json.RawMessage) (protocol.CallToolResult, error) {
		if strings.Contains(string(args), `"tab":1`) {
			select {
			case <-release:
			case <-ctx.Done():
			}
		}
		return tools.TextResult("ok " + string(args)), nil
	}))
	lines := make([]string, 0, 201)
	for i := range 200 {
		lines = append(lines, callLine(i, "browser_snapshot", `{"tab":1}`))
	}
	lines = append(lines, callLine("other", "browser_snapshot", `{"tab":2}`))
	rs.write(t, lines...)
	if m := rs.next(t); m["id"] != "other" {
		t.Fatalf("first answer was %v, want the call for tab 2", m)
	}
	close(release)
	for range 200 {
		rs.next(t)
	}
}

// TestInboxCancellation: a queued call that is cancelled never reaches the
// Caller; a running one sees its context cancelled; neither is answered.
func TestInboxCancellation(t *testing.T) {
	started := make(chan seenCall, 10)
	release := make(chan struct{})
	var mu sync.Mutex
	var ran []string
	rs := startRaw(t, callerFunc(func(ctx context.Context, _ string, args json.RawMessage) (protocol.CallToolResult, error) {
		mu.Lock()
		ran = append(ran, string(args))
		mu.Unlock()
		started <- seenCall{args, ctx}
		if strings.Contains(string(args), `"A"`) || strings.Contains(string(args), `"B"`) {
			select {
			case <-release:
			case <-ctx.Done():
				return protocol.ErrorResult("cancelled"), nil
			}
		}
		return tools.TextResult("done"), nil
	}))
	typ := func(id any, text string) string {
		return callLine(id, "browser_type", fmt.Sprintf(`{"tab":3,"element":"e","ref":"e1","text":%q}`, text))
	}
	rs.write(t, typ(1, "A"), typ(2, "B"), typ(3, "C"), typ("d", "D"))
	a := <-started
	// B (queued) and A (running) are cancelled.
	rs.write(t,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2,"reason":"test"}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"reason":"test"}}`)
	select {
	case <-a.ctx.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the running call's context was not cancelled")
	}
	for _, want := range []any{float64(3), "d"} {
		m := rs.next(t)
		if m["id"] != want {
			t.Fatalf("got an answer for %v, want %v (cancelled calls get none)", m["id"], want)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	for _, r := range ran {
		if strings.Contains(r, `"B"`) {
			t.Fatalf("the cancelled queued call ran: %v", ran)
		}
	}
	if len(ran) != 3 {
		t.Fatalf("ran %v, want A, C, D", ran)
	}
}

// TestInboxBudgetCountsQueuedTime: a call that waits in its tab's FIFO past
// the budget is answered with monkbrowse's explanation without running, and
// the running one's context carries the budget's cause.
func TestInboxBudgetCountsQueuedTime(t *testing.T) {
	var ran atomic.Int32
	rs := startRaw(t, callerFunc(func(ctx context.Context, _ string, _ json.RawMessage) (protocol.CallToolResult, error) {
		ran.Add(1)
		<-ctx.Done()
		if !errors.Is(context.Cause(ctx), tools.ErrCallBudget) {
			return protocol.ErrorResult("wrong cause"), nil
		}
		return protocol.ErrorResult(tools.BudgetMessage("browser_snapshot")), nil
	}), Options{CallBudget: 300 * time.Millisecond})
	rs.write(t, callLine(1, "browser_snapshot", `{"tab":1}`), callLine(2, "browser_snapshot", `{"tab":1}`))
	for range 2 {
		m := rs.next(t)
		text := fmt.Sprint(m["result"])
		if !strings.Contains(text, "limit per call") {
			t.Fatalf("answer %v lacks the budget explanation", m)
		}
		if m["id"] == float64(2) && !strings.Contains(text, "never started") {
			t.Fatalf("the queued call's answer %v should say it never started", m)
		}
	}
	if n := ran.Load(); n != 1 {
		t.Fatalf("%d calls ran; the one whose budget ran out in the queue must not", n)
	}
}

// lineWriter sends each log line to lines.
type lineWriter struct{ lines chan string }

func (w lineWriter) Write(p []byte) (int, error) {
	w.lines <- string(p)
	return len(p), nil
}

// TestInboxOmittedTabOrderedWithNamedTab (issue 39): a call that omits the
// tab (the profile's active tab) and a later one naming a tab number — the
// active tab's, for all the reading layer knows — run in the order they
// were read, never at once. C (tab omitted) holds; A (tab omitted) and B
// (tab 1) are read behind it and must both wait; B starts only after A
// has ended.
func TestInboxOmittedTabOrderedWithNamedTab(t *testing.T) {
	events := make(chan string, 16)
	logs := make(chan string, 256)
	log := zerolog.New(lineWriter{logs}).Level(zerolog.DebugLevel)
	hold := map[string]chan struct{}{"C": make(chan struct{}), "A": make(chan struct{})}
	rs := startRaw(t, callerFunc(func(ctx context.Context, _ string, args json.RawMessage) (protocol.CallToolResult, error) {
		var a struct {
			Text string `json:"text"`
		}
		json.Unmarshal(args, &a)
		events <- "start " + a.Text
		if ch := hold[a.Text]; ch != nil {
			select {
			case <-ch:
			case <-ctx.Done():
			}
		}
		events <- "end " + a.Text
		return tools.TextResult("ok"), nil
	}), Options{Logger: &log})
	typ := func(id any, args string) string { return callLine(id, "browser_type", args) }
	rs.write(t,
		typ("C", `{"element":"e","ref":"e1","text":"C"}`),
		typ("A", `{"element":"e","ref":"e1","text":"A"}`),
		typ("B", `{"tab":1,"element":"e","ref":"e1","text":"B"}`),
	)
	var got []string
	next := func() string {
		select {
		case e := <-events:
			got = append(got, e)
			return e
		case <-time.After(20 * time.Second):
			t.Fatalf("no call event within 20 s after %v", got)
		}
		return ""
	}
	expect := func(want string) {
		t.Helper()
		if e := next(); e != want {
			t.Fatalf("events %v, want %q next: the call naming tab 1 must wait for both earlier calls with the tab omitted", got, want)
		}
	}
	expect("start C")
	// A and B both wait behind C: two "waits" lines. A call that starts
	// instead fails the test.
	for waits := 0; waits < 2; {
		select {
		case l := <-logs:
			if strings.Contains(l, LogCallWaits) {
				waits++
			}
		case e := <-events:
			t.Fatalf("%q while C held its turn: A and B must wait behind it", e)
		case <-time.After(20 * time.Second):
			t.Fatalf("%d calls wait behind C after 20 s, want 2", waits)
		}
	}
	close(hold["C"])
	expect("end C")
	expect("start A")
	close(hold["A"])
	expect("end A")
	expect("start B")
	expect("end B")
	for range 3 {
		if m := rs.next(t); m["error"] != nil {
			t.Fatalf("call failed: %v", m)
		}
	}
}
