package messaging

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// watchdog bounds every wait in these tests so that a bug shows up as a
// failure naming the wait, not as a hung test binary.
const watchdog = 5 * time.Second

// newPair returns two started peers linked by a Pipe; both are closed when
// the test ends.
func newPair(t *testing.T, a, b *Options) (*Peer, *Peer) {
	t.Helper()
	sa, sb := Pipe()
	pa, pb := NewPeer(sa, a), NewPeer(sb, b)
	pa.Start()
	pb.Start()
	t.Cleanup(func() {
		pa.Close()
		pb.Close()
	})
	return pa, pb
}

// rawSide returns a started peer and the raw socket at the other end of its
// pipe, for tests that need to see or forge exact frames.
func rawSide(t *testing.T, opts *Options) (*Peer, PeerSocket) {
	t.Helper()
	sp, raw := Pipe()
	p := NewPeer(sp, opts)
	p.Start()
	t.Cleanup(func() {
		p.Close()
		raw.Close()
	})
	return p, raw
}

func recv(t *testing.T, s PeerSocket) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), watchdog)
	defer cancel()
	b, err := s.Receive(ctx)
	if err != nil {
		t.Fatalf("receive: %v", err)
	}
	return string(b)
}

func send(t *testing.T, s PeerSocket, frame string) {
	t.Helper()
	if err := s.Send(context.Background(), []byte(frame)); err != nil {
		t.Fatalf("send %s: %v", frame, err)
	}
}

func wait[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(watchdog):
		t.Fatalf("timed out waiting for %s", what)
		panic("unreachable")
	}
}

// waitUntil polls cond every millisecond until it holds (a watchdog fails the
// test), for state that has no channel to wait on: the test waits for the
// state, not for a guessed delay.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(watchdog)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

func echo(_ context.Context, payload json.RawMessage) (any, error) { return payload, nil }

func TestRequestResponseBothWays(t *testing.T) {
	a, b := newPair(t, nil, nil)
	a.Handle("echo", echo)
	b.Handle("echo", echo)
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		from *Peer
	}{{"a→b", a}, {"b→a", b}} {
		res, err := tc.from.Request(ctx, "echo", map[string]int{"n": 1})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if string(res) != `{"n":1}` {
			t.Errorf("%s: result %s", tc.name, res)
		}
	}
}

func TestRequestErrors(t *testing.T) {
	a, b := newPair(t, nil, nil)
	b.Handle("fail", func(context.Context, json.RawMessage) (any, error) {
		return nil, errors.New("the tab was closed; share another tab")
	})
	b.Handle("boom", func(context.Context, json.RawMessage) (any, error) {
		panic("kaboom")
	})
	b.Handle("unencodable", func(context.Context, json.RawMessage) (any, error) {
		return json.RawMessage(`{"broken"`), nil
	})
	b.Handle("chan", func(context.Context, json.RawMessage) (any, error) {
		return make(chan int), nil
	})
	for _, tc := range []struct {
		typ, want string
	}{
		{"missing", `no handler for request "missing"`},
		{"fail", "the tab was closed; share another tab"},
		{"boom", `handler for "boom" panicked: kaboom`},
		{"unencodable", `handler for "unencodable" returned a result that cannot be encoded`},
		{"chan", `handler for "chan" returned a result that cannot be encoded`},
	} {
		_, err := a.Request(context.Background(), tc.typ, nil)
		var re *RemoteError
		if !errors.As(err, &re) {
			t.Errorf("%s: error %v (%T), want *RemoteError", tc.typ, err, err)
			continue
		}
		if re.Type != tc.typ || !strings.HasPrefix(re.Message, tc.want) || err.Error() != re.Message {
			t.Errorf("%s: got %+v, want message starting %q", tc.typ, re, tc.want)
		}
	}
	// The panic did not take the peer down.
	b.Handle("echo", echo)
	if _, err := a.Request(context.Background(), "echo", 1); err != nil {
		t.Fatalf("after panic: %v", err)
	}
	if (&RemoteError{Type: "x"}).Error() == "" {
		t.Error("empty remote message gives an empty error")
	}
}

func TestRequestBadPayload(t *testing.T) {
	p, raw := rawSide(t, nil)
	_, err := p.Request(context.Background(), "t", make(chan int))
	if err == nil || !strings.Contains(err.Error(), `request "t": encoding payload`) {
		t.Fatalf("err = %v", err)
	}
	if _, err := p.Request(context.Background(), "", nil); !errors.Is(err, ErrMalformedFrame) {
		t.Fatalf("empty type: err = %v", err)
	}
	// Nothing was written for either.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if b, err := raw.Receive(ctx); err == nil {
		t.Fatalf("unexpected frame %s", b)
	}
}

// TestWireFormat pins the exact frames a Peer writes and how it reads them.
func TestWireFormat(t *testing.T) {
	p, raw := rawSide(t, nil)
	gotPayload := make(chan string, 1)
	p.Handle("show", func(_ context.Context, payload json.RawMessage) (any, error) {
		gotPayload <- string(payload)
		return map[string]any{"html": "<b>&</b>"}, nil
	})
	p.Handle("nothing", func(context.Context, json.RawMessage) (any, error) { return nil, nil })

	steps := []struct {
		name       string
		in         string // frame the raw side sends, if any
		want       string // frame the raw side then expects
		wantPayld  string // payload the handler saw, if checked
		requestTyp string // or: the peer sends this request, raw answers in
	}{
		{name: "request with payload", in: `{"k":"req","id":"a1","type":"show","payload":{"x":1}}`,
			want: `{"k":"res","id":"a1","ok":true,"result":{"html":"<b>&</b>"}}`, wantPayld: `{"x":1}`},
		{name: "absent payload arrives as null", in: `{"k":"req","id":"a2","type":"show"}`,
			want: `{"k":"res","id":"a2","ok":true,"result":{"html":"<b>&</b>"}}`, wantPayld: `null`},
		{name: "nil result is omitted", in: `{"k":"req","id":"a3","type":"nothing"}`,
			want: `{"k":"res","id":"a3","ok":true}`},
		{name: "no handler", in: `{"k":"req","id":"a4","type":"nope"}`,
			want: `{"k":"res","id":"a4","ok":false,"error":"no handler for request \"nope\""}`},
		{name: "ping is answered", in: `{"k":"png"}`, want: `{"k":"pog"}`},
	}
	for _, s := range steps {
		send(t, raw, s.in)
		if got := recv(t, raw); got != s.want {
			t.Errorf("%s: got %s, want %s", s.name, got, s.want)
		}
		if s.wantPayld != "" {
			if got := wait(t, gotPayload, "payload"); got != s.wantPayld {
				t.Errorf("%s: handler saw %s, want %s", s.name, got, s.wantPayld)
			}
		}
	}

	// Outgoing requests: ids count up from 1 as decimal strings; a nil
	// payload is left out; a result-less response reads as null.
	type result struct {
		res json.RawMessage
		err error
	}
	for i, tc := range []struct {
		payload any
		frame   string
		answer  string
		want    string
	}{
		{map[string]string{"url": "https://example.com/?a=1&b=<2>"},
			`{"k":"req","id":"1","type":"go","payload":{"url":"https://example.com/?a=1&b=<2>"}}`,
			`{"k":"res","id":"1","ok":true,"result":{"tabId":3}}`, `{"tabId":3}`},
		{nil, `{"k":"req","id":"2","type":"go"}`, `{"k":"res","id":"2","ok":true}`, `null`},
		{json.RawMessage(` { "a" : 1 } `), `{"k":"req","id":"3","type":"go","payload":{"a":1}}`,
			`{"k":"res","id":"3","ok":true,"result":null}`, `null`},
	} {
		done := make(chan result, 1)
		go func() {
			res, err := p.Request(context.Background(), "go", tc.payload)
			done <- result{res, err}
		}()
		if got := recv(t, raw); got != tc.frame {
			t.Errorf("request %d: wrote %s, want %s", i, got, tc.frame)
		}
		send(t, raw, tc.answer)
		r := wait(t, done, "response")
		if r.err != nil || string(r.res) != tc.want {
			t.Errorf("request %d: got %s, %v; want %s", i, r.res, r.err, tc.want)
		}
	}

	// Notify writes a ntf frame and returns without any answer.
	if err := p.Notify(context.Background(), "tabs_changed", map[string]any{"tabs": []int{}}); err != nil {
		t.Fatal(err)
	}
	if got, want := recv(t, raw), `{"k":"ntf","type":"tabs_changed","payload":{"tabs":[]}}`; got != want {
		t.Errorf("notify wrote %s, want %s", got, want)
	}
	if p.Dropped() != 0 {
		t.Errorf("Dropped = %d, want 0", p.Dropped())
	}
}

func TestMalformedFramesDropped(t *testing.T) {
	p, raw := rawSide(t, nil)
	bad := []string{
		`not json`,
		`{"k":"req","type":"t"}`,
		`{"k":"res","ok":true}`,
		`{"k":"zzz","id":"1"}`,
		`{"k":"ntf"}`,
		`[1,2]`,
		`null`,
		`{"k":"req","id":"1","type":"t"}x`,
	}
	for _, s := range bad {
		send(t, raw, s)
	}
	// A ping after the garbage proves the peer is alive and has read it all.
	send(t, raw, `{"k":"png"}`)
	if got := recv(t, raw); got != `{"k":"pog"}` {
		t.Fatalf("got %s, want pong", got)
	}
	if got := p.Dropped(); got != uint64(len(bad)) {
		t.Errorf("Dropped = %d, want %d", got, len(bad))
	}
	select {
	case <-p.Done():
		t.Fatal("peer closed on malformed input")
	default:
	}
}

func TestRequestTimeout(t *testing.T) {
	p, raw := rawSide(t, nil)
	for _, tc := range []struct {
		name    string
		settled bool
	}{
		{"request", false},
		{"settled", true},
	} {
		const d = 10 * time.Millisecond
		ctx, cancel := WithRequestTimeout(context.Background(), "browser_click", d)
		start := time.Now()
		var err error
		if tc.settled {
			_, err = p.RequestSettled(ctx, "browser_click", nil)
		} else {
			_, err = p.Request(ctx, "browser_click", nil)
		}
		cancel()
		var te *RequestTimeoutError
		if !errors.As(err, &te) || te.Type != "browser_click" || te.Timeout != d {
			t.Fatalf("%s: err = %v (%T)", tc.name, err, err)
		}
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("%s: timeout does not match context.DeadlineExceeded", tc.name)
		}
		if el := time.Since(start); el < d || el > watchdog {
			t.Errorf("%s: returned after %v", tc.name, el)
		}
		// The request frame only: a timed-out request sends no cancel.
		if got := recv(t, raw); !strings.Contains(got, `"k":"req"`) {
			t.Fatalf("%s: got %s", tc.name, got)
		}
	}
	// Late responses to both timed-out ids are dropped silently: not
	// counted as malformed, and the peer keeps working.
	send(t, raw, `{"k":"res","id":"1","ok":true,"result":{}}`)
	send(t, raw, `{"k":"res","id":"2","ok":false,"error":"late"}`)
	send(t, raw, `{"k":"res","id":"999","ok":true}`)
	send(t, raw, `{"k":"png"}`)
	if got := recv(t, raw); got != `{"k":"pog"}` {
		t.Fatalf("got %s (a cancel for a timed-out request?)", got)
	}
	if p.Dropped() != 0 {
		t.Errorf("Dropped = %d after late responses", p.Dropped())
	}

	if got := (&RequestTimeoutError{Type: "browser_click", Timeout: 30 * time.Second}).Error(); got != `request "browser_click" timed out after 30s` {
		t.Errorf("message %q", got)
	}
}

// TestRequestTimeoutEarlierParentWins: the request's timeout is a child of
// the caller's context, so the caller's earlier deadline ends the call, with
// the caller's cause.
func TestRequestTimeoutEarlierParentWins(t *testing.T) {
	p, _ := rawSide(t, nil)
	budget := errors.New("the call's budget ran out")
	parent, cancelParent := context.WithTimeoutCause(context.Background(), 10*time.Millisecond, budget)
	defer cancelParent()
	ctx, cancel := WithRequestTimeout(parent, "t", time.Minute)
	defer cancel()
	_, err := p.Request(ctx, "t", nil)
	var te *RequestTimeoutError
	if errors.As(err, &te) || !errors.Is(err, budget) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v", err)
	}
	// And the other way round: the request's own timeout comes first.
	parent, cancelParent = context.WithTimeoutCause(context.Background(), time.Minute, budget)
	defer cancelParent()
	ctx, cancel = WithRequestTimeout(parent, "t", 10*time.Millisecond)
	defer cancel()
	_, err = p.Request(ctx, "t", nil)
	if !errors.As(err, &te) || te.Timeout != 10*time.Millisecond || errors.Is(err, budget) {
		t.Fatalf("err = %v", err)
	}
}

// TestRequestWithoutDeadlineWaits: the Peer has no timeout of its own; a
// request whose context has no deadline waits for its answer however long
// the other side takes, and for the peer's close.
func TestRequestWithoutDeadlineWaits(t *testing.T) {
	p, raw := rawSide(t, nil)
	res := make(chan error, 1)
	go func() {
		r, err := p.Request(context.Background(), "t", nil)
		if err == nil && string(r) != `"late"` {
			err = fmt.Errorf("result %s", r)
		}
		res <- err
	}()
	recv(t, raw) // the request is out; nothing answers it for now
	// Pings, answered meanwhile, show the peer has run on past the
	// request being written.
	for range 3 {
		send(t, raw, `{"k":"png"}`)
		if got := recv(t, raw); got != `{"k":"pog"}` {
			t.Fatalf("got %s", got)
		}
	}
	select {
	case err := <-res:
		t.Fatalf("request returned before its answer: %v", err)
	default:
	}
	send(t, raw, `{"k":"res","id":"1","ok":true,"result":"late"}`)
	if err := wait(t, res, "result"); err != nil {
		t.Fatal(err)
	}
	go func() { _, err := p.Request(context.Background(), "t", nil); res <- err }()
	recv(t, raw)
	p.Close()
	if err := wait(t, res, "close"); !errors.Is(err, ErrClosed) {
		t.Fatalf("after close: %v", err)
	}
}

func TestRequestContext(t *testing.T) {
	p, raw := rawSide(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		// Cancelled once the request is on the wire: in flight, unanswered.
		_, _ = raw.Receive(context.Background())
		cancel()
	}()
	_, err := p.Request(ctx, "t", nil)
	var te *RequestTimeoutError
	if !errors.Is(err, context.Canceled) || errors.As(err, &te) {
		t.Fatalf("cancel: err = %v", err)
	}
	// A plain deadline of the caller's, without a cause: not our typed
	// timeout, and the message says what happened.
	ctx, cancel = context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	_, err = p.Request(ctx, "t", nil)
	if !errors.Is(err, context.DeadlineExceeded) || errors.As(err, &te) ||
		err.Error() != `messaging: request "t": no answer before the context's deadline: context deadline exceeded` {
		t.Fatalf("deadline: err = %v", err)
	}
	// A cancellation with a cause: errors.Is finds both.
	why := errors.New("the owner stopped answering")
	cctx, ccancel := context.WithCancelCause(context.Background())
	ccancel(why)
	_, err = p.Request(cctx, "t", nil)
	if !errors.Is(err, context.Canceled) || !errors.Is(err, why) {
		t.Fatalf("cancel with cause: err = %v", err)
	}
}

func TestPing(t *testing.T) {
	a, _ := newPair(t, nil, nil)
	for range 3 {
		if err := a.Ping(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	// With nobody answering, a ping ends with its context, here a
	// request timeout of Type "ping".
	p, _ := rawSide(t, nil)
	ctx, cancel := WithRequestTimeout(context.Background(), "ping", 20*time.Millisecond)
	defer cancel()
	var te *RequestTimeoutError
	if err := p.Ping(ctx); !errors.As(err, &te) || te.Type != "ping" {
		t.Fatalf("err = %v", err)
	}
}

// TestHeartbeat: silence is 0 while the other side answers pings, grows
// while nobody does, and beat returning false ends the heartbeat.
func TestHeartbeat(t *testing.T) {
	a, _ := newPair(t, nil, nil)
	var answered int
	a.Heartbeat(5*time.Millisecond, func(silent time.Duration) bool {
		if silent != 0 {
			t.Errorf("silence %s though the other side answers", silent)
		}
		answered++
		return answered < 3
	})
	p, _ := rawSide(t, nil)
	var silences []time.Duration
	p.Heartbeat(5*time.Millisecond, func(silent time.Duration) bool {
		silences = append(silences, silent)
		return len(silences) < 3
	})
	for i, s := range silences {
		if s <= 0 || (i > 0 && s <= silences[i-1]) {
			t.Fatalf("silences %v: want positive and growing while nobody answers", silences)
		}
	}
}

func TestNotifyOrderedAndNeverWaits(t *testing.T) {
	a, b := newPair(t, nil, nil)
	const n = 200
	release := make(chan struct{})
	got := make(chan int, n)
	b.HandleNotify("seq", func(_ context.Context, payload json.RawMessage) {
		<-release // a slow handler: Notify must not wait for it
		var i int
		json.Unmarshal(payload, &i)
		got <- i
	})
	for i := range n {
		if err := a.Notify(context.Background(), "seq", i); err != nil {
			t.Fatal(err)
		}
	}
	// Requests still flow while the notify handler is stuck.
	b.Handle("echo", echo)
	if _, err := a.Request(context.Background(), "echo", 1); err != nil {
		t.Fatal(err)
	}
	close(release)
	for i := range n {
		if v := wait(t, got, "notification"); v != i {
			t.Fatalf("notification %d arrived as %d", i, v)
		}
	}
	// A notification without handler and one whose handler panics are
	// ignored; the worker carries on.
	b.HandleNotify("boom", func(context.Context, json.RawMessage) { panic("x") })
	a.Notify(context.Background(), "unhandled", nil)
	a.Notify(context.Background(), "boom", nil)
	a.Notify(context.Background(), "seq", 7)
	if v := wait(t, got, "notification after panic"); v != 7 {
		t.Fatalf("got %d", v)
	}
}

func TestSlowHandlerDoesNotBlockOthers(t *testing.T) {
	a, b := newPair(t, nil, nil)
	release := make(chan struct{})
	b.Handle("slow", func(context.Context, json.RawMessage) (any, error) {
		<-release
		return "slow", nil
	})
	b.Handle("fast", func(context.Context, json.RawMessage) (any, error) { return "fast", nil })
	slow := make(chan error, 1)
	go func() {
		_, err := a.Request(context.Background(), "slow", nil)
		slow <- err
	}()
	for range 10 {
		if res, err := a.Request(context.Background(), "fast", nil); err != nil || string(res) != `"fast"` {
			t.Fatalf("fast: %s %v", res, err)
		}
	}
	if err := a.Ping(context.Background()); err != nil {
		t.Fatal(err)
	}
	close(release)
	if err := wait(t, slow, "slow request"); err != nil {
		t.Fatal(err)
	}
}

func TestConcurrentRequests(t *testing.T) {
	a, b := newPair(t, nil, nil)
	a.Handle("echo", echo)
	b.Handle("echo", echo)
	var wg sync.WaitGroup
	var failures atomic.Int32
	for i := range 64 {
		from := a
		if i%2 == 1 {
			from = b
		}
		wg.Go(func() {
			for j := range 20 {
				want := fmt.Sprintf(`"%d-%d"`, i, j)
				res, err := from.Request(context.Background(), "echo", fmt.Sprintf("%d-%d", i, j))
				if err != nil || string(res) != want {
					failures.Add(1)
				}
			}
		})
	}
	wg.Wait()
	if failures.Load() != 0 {
		t.Fatalf("%d requests failed or got another's response", failures.Load())
	}
}

// TestCloseFailsInFlight covers both ways a connection ends: the caller's
// own Close and the other side going away. Every in-flight request and ping
// fails at once with "peer disconnected", and later calls fail immediately.
func TestCloseFailsInFlight(t *testing.T) {
	for _, tc := range []struct {
		name      string
		closeSide func(caller, other *Peer)
		wantErr   func(error) bool
	}{
		{"local Close", func(caller, _ *Peer) { go caller.Close() }, func(err error) bool { return err == ErrClosed }},
		{"remote Close", func(_, other *Peer) { go other.Close() }, func(err error) bool {
			return errors.Is(err, ErrClosed) && strings.Contains(err.Error(), "peer disconnected")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var closes atomic.Int32
			closed := make(chan error, 2)
			caller, other := newPair(t, &Options{OnClose: func(err error) {
				closes.Add(1)
				closed <- err
			}}, nil)
			handlerCtxDone := make(chan struct{}, 16)
			entered := make(chan struct{}, 16)
			hang := func(ctx context.Context, _ json.RawMessage) (any, error) {
				entered <- struct{}{}
				<-ctx.Done() // released only by the peer closing
				handlerCtxDone <- struct{}{}
				return nil, ctx.Err()
			}
			// A handler of the peer that closes must see its context end;
			// start one on each side.
			other.Handle("hang", hang)
			caller.Handle("hang", hang)

			const n = 8
			errs := make(chan error, n+1)
			for range n {
				go func() {
					_, err := caller.Request(context.Background(), "hang", nil)
					errs <- err
				}()
			}
			// And the other way round, so that a handler runs on caller.
			go other.Request(context.Background(), "hang", nil)
			// Every request is in flight once its handler runs.
			for range n + 1 {
				wait(t, entered, "a request's handler to start")
			}
			// A ping whose pong will never come: take the other side's
			// write lock for good (closing releases its waiters).
			other.writeLock <- struct{}{}
			go func() { errs <- caller.Ping(context.Background()) }()
			waitUntil(t, "the ping to wait for its pong", func() bool {
				caller.mu.Lock()
				defer caller.mu.Unlock()
				return len(caller.pings) == 1
			})

			start := time.Now()
			tc.closeSide(caller, other)
			for range n + 1 {
				err := wait(t, errs, "in-flight call to fail")
				if !errors.Is(err, ErrClosed) || !strings.Contains(err.Error(), "peer disconnected") {
					t.Errorf("in-flight call: %v", err)
				}
			}
			if el := time.Since(start); el > time.Second {
				t.Errorf("in-flight calls took %v to fail", el)
			}
			if err := wait(t, closed, "OnClose"); !tc.wantErr(err) {
				t.Errorf("OnClose(%v)", err)
			}
			<-caller.Done()
			if err := caller.Err(); !tc.wantErr(err) {
				t.Errorf("Err() = %v", err)
			}
			// Later calls fail without waiting.
			start = time.Now()
			_, err := caller.Request(context.Background(), "hang", nil)
			if !errors.Is(err, ErrClosed) || err.Error() != `request "hang" failed: peer disconnected` {
				t.Errorf("request after close: %v", err)
			}
			if err := caller.Notify(context.Background(), "x", nil); !errors.Is(err, ErrClosed) {
				t.Errorf("notify after close: %v", err)
			}
			if err := caller.Ping(context.Background()); !errors.Is(err, ErrClosed) {
				t.Errorf("ping after close: %v", err)
			}
			if time.Since(start) > time.Second {
				t.Error("calls after close waited")
			}
			caller.Close()
			other.Close()
			if got := len(handlerCtxDone); got < 1 {
				t.Errorf("%d handler contexts ended, want at least 1", got)
			}
			if closes.Load() != 1 {
				t.Errorf("OnClose called %d times", closes.Load())
			}
		})
	}
}

func TestCloseIdempotentAndUnstarted(t *testing.T) {
	sa, sb := Pipe()
	p := NewPeer(sa, nil)
	// Never started: Close still works, twice, concurrently.
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			if err := p.Close(); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	p.Start() // after Close: nothing happens, nothing leaks
	if p.Err() != ErrClosed {
		t.Errorf("Err = %v", p.Err())
	}
	// The socket was closed: the other end sees it.
	if _, err := sb.Receive(context.Background()); !errors.Is(err, ErrClosed) {
		t.Errorf("other end: %v", err)
	}
	sb.Close()
}

func TestOnCloseMayCallClose(t *testing.T) {
	var p *Peer
	closed := make(chan struct{})
	sa, sb := Pipe()
	p = NewPeer(sa, &Options{OnClose: func(error) {
		p.Close() // must not deadlock
		close(closed)
	}})
	p.Start()
	sb.Close()
	wait(t, closed, "OnClose")
	if err := p.Err(); !errors.Is(err, ErrClosed) || err.Error() != "peer disconnected" {
		t.Errorf("Err = %v", err)
	}
}

func TestErrNilWhileOpen(t *testing.T) {
	a, _ := newPair(t, nil, nil)
	if a.Err() != nil {
		t.Fatal(a.Err())
	}
	select {
	case <-a.Done():
		t.Fatal("Done closed while open")
	default:
	}
}

// orderSocket records, when it is closed, whether its read context had
// already ended.
type orderSocket struct {
	readCtx     atomic.Pointer[context.Context]
	reading     chan struct{}
	closed      chan struct{}
	once        sync.Once
	closedFirst chan bool
}

func (s *orderSocket) Send(context.Context, []byte) error { return nil }
func (s *orderSocket) Receive(ctx context.Context) ([]byte, error) {
	s.readCtx.Store(&ctx)
	close(s.reading)
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-s.closed:
		return nil, ErrClosed
	}
}
func (s *orderSocket) Close() error {
	s.once.Do(func() {
		s.closedFirst <- (*s.readCtx.Load()).Err() == nil
		close(s.closed)
	})
	return nil
}

// TestCloseClosesSocketBeforeCancellingRead pins the order in shutdown:
// wsconn drops the connection when a read's context ends, so cancelling
// first would lose the clean close frame that Close sends.
func TestCloseClosesSocketBeforeCancellingRead(t *testing.T) {
	s := &orderSocket{reading: make(chan struct{}), closed: make(chan struct{}), closedFirst: make(chan bool, 1)}
	p := NewPeer(s, nil)
	p.Start()
	wait(t, s.reading, "read to start")
	p.Close()
	if !wait(t, s.closedFirst, "close") {
		t.Fatal("the read's context was cancelled before the socket was closed")
	}
}

// TestCancelReachesHandler: a request whose caller gives up sends a cancel
// notification on the wire, and the other side's handler sees its context
// cancelled.
func TestCancelReachesHandler(t *testing.T) {
	a, b := newPair(t, nil, nil)
	started := make(chan struct{})
	stopped := make(chan error, 1)
	b.Handle("slow", func(ctx context.Context, _ json.RawMessage) (any, error) {
		close(started)
		<-ctx.Done()
		stopped <- ctx.Err()
		return nil, ctx.Err()
	})
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { _, err := a.Request(ctx, "slow", nil); errc <- err }()
	wait(t, started, "the handler to start")
	cancel()
	if err := wait(t, errc, "Request to return"); !errors.Is(err, context.Canceled) {
		t.Fatalf("Request: %v", err)
	}
	if err := wait(t, stopped, "the handler's context to be cancelled"); !errors.Is(err, context.Canceled) {
		t.Fatalf("handler ctx: %v", err)
	}
}

// TestCancelFrameOnWire pins the cancel notification's exact frame.
func TestCancelFrameOnWire(t *testing.T) {
	p, raw := rawSide(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { _, err := p.Request(ctx, "t", nil); errc <- err }()
	if got := recv(t, raw); got != `{"k":"req","id":"1","type":"t"}` {
		t.Fatalf("request frame %s", got)
	}
	cancel()
	if got := recv(t, raw); got != `{"k":"ntf","type":"cancel","payload":{"id":"1"}}` {
		t.Fatalf("cancel frame %s", got)
	}
	wait(t, errc, "Request to return")
}

// TestRequestSettledWaitsForAnswer: after a cancel, RequestSettled returns
// only once the other side answered (or the timeout passed).
func TestRequestSettledWaitsForAnswer(t *testing.T) {
	p, raw := rawSide(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { _, err := p.RequestSettled(ctx, "t", nil); errc <- err }()
	recv(t, raw)
	cancel()
	recv(t, raw) // the cancel
	select {
	case err := <-errc:
		t.Fatalf("returned before the answer: %v", err)
	case <-time.After(50 * time.Millisecond):
	}
	send(t, raw, `{"k":"res","id":"1","ok":true,"result":{}}`)
	if err := wait(t, errc, "RequestSettled to return"); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	// Without an answer it gives up at ctx's deadline (the request's
	// timeout), though ctx was cancelled long before.
	ctx, cancel = WithRequestTimeout(context.Background(), "t", 100*time.Millisecond)
	go func() { _, err := p.RequestSettled(ctx, "t", nil); errc <- err }()
	recv(t, raw)
	cancel()
	recv(t, raw)
	if err := wait(t, errc, "RequestSettled to give up"); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	// Without a deadline it waits for the answer or for the peer's close.
	ctx, cancel = context.WithCancel(context.Background())
	go func() { _, err := p.RequestSettled(ctx, "t", nil); errc <- err }()
	recv(t, raw)
	cancel()
	recv(t, raw)
	select {
	case err := <-errc:
		t.Fatalf("returned before the answer or the close: %v", err)
	case <-time.After(50 * time.Millisecond):
	}
	p.Close()
	if err := wait(t, errc, "RequestSettled to return at the close"); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
}

// TestErrorCodesCrossTheWire: a handler's coded error reaches the caller as
// RemoteError.Code beside the unchanged message, and a handler that passes a
// RemoteError on (a proxy) passes its code on.
func TestErrorCodesCrossTheWire(t *testing.T) {
	a, b := newPair(t, nil, nil)
	b.Handle("gone", func(context.Context, json.RawMessage) (any, error) {
		return nil, WithCode("tab_gone", fmt.Errorf("tab 7 does not exist any more"))
	})
	b.Handle("plain", func(context.Context, json.RawMessage) (any, error) {
		return nil, errors.New("no code here")
	})
	// a proxies "relay" to b's "gone", returning b's error as it is.
	a.Handle("relay", func(ctx context.Context, _ json.RawMessage) (any, error) {
		return a.Request(ctx, "gone", nil)
	})
	var re *RemoteError
	_, err := a.Request(context.Background(), "gone", nil)
	if !errors.As(err, &re) || re.Code != "tab_gone" || re.Message != "tab 7 does not exist any more" {
		t.Fatalf("gone: %#v", err)
	}
	if ErrorCode(err) != "tab_gone" {
		t.Errorf("ErrorCode(%v) = %q", err, ErrorCode(err))
	}
	_, err = a.Request(context.Background(), "plain", nil)
	if !errors.As(err, &re) || re.Code != "" || re.Message != "no code here" {
		t.Fatalf("plain: %#v", err)
	}
	_, err = b.Request(context.Background(), "relay", nil)
	if !errors.As(err, &re) || re.Code != "tab_gone" {
		t.Fatalf("relay: %#v", err)
	}
	if WithCode("x", nil) != nil {
		t.Error("WithCode(code, nil) is not nil")
	}
}
