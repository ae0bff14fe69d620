package owner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/monkbrowse/monkbrowse/protocol"
	"github.com/monkbrowse/monkbrowse/server/internal/fakeext"
	"github.com/monkbrowse/monkbrowse/tools"
)

func twoTabs() []fakeext.Tab {
	return []fakeext.Tab{
		{ID: 101, WindowID: 1, Shared: true, Slot: 1, Active: true, URL: "https://a.example/"},
		{ID: 102, WindowID: 1, Shared: true, Slot: 2, URL: "https://b.example/"},
		{ID: 103, WindowID: 1, URL: "https://private.example/"},
	}
}

func target(t *testing.T, o *Owner, profile string, tab int) (tools.Target, error) {
	t.Helper()
	var got tools.Target
	ctx, cancel := context.WithTimeout(context.Background(), watchdog)
	defer cancel()
	err := browser{o}.WithTab(ctx, profile, tab, func(_ context.Context, tg tools.Target, _ tools.Session) error {
		got = tg
		return nil
	})
	return got, err
}

func TestResolution(t *testing.T) {
	o := startOwner(t, Config{ReconnectWait: -1})
	work := connect(t, o, fakeext.Options{Secret: testPairing, ProfileID: "ID-Work", Label: "Work", Tabs: twoTabs()})
	connect(t, o, fakeext.Options{Secret: testPairing, ProfileID: "ID-Web", Label: "Web"})
	gone := connect(t, o, fakeext.Options{Secret: testPairing, ProfileID: "ID-Old", Label: "Old"})
	gone.Close()
	waitFor(t, o, "old disconnected", func() bool { return countConnected(o) == 2 })

	cases := []struct {
		profile string
		tab     int
		slug    string // want this profile…
		slot    int    // …and this slot, or:
		err     []string
	}{
		{profile: "", err: []string{"Several browser profiles are connected", `"web"`, `"work"`}},
		{profile: "work", slug: "work", slot: 1},
		{profile: "WORK", tab: 2, slug: "work", slot: 2},
		{profile: "wor", slug: "work", slot: 1},
		{profile: "id-work", slug: "work", slot: 1},
		{profile: "work", tab: 3, err: []string{`Profile "work" has no shared tab 3`, "1 (Page https://a.example/", "2 (Page https://b.example/"}},
		{profile: "we", slug: "web", slot: 1},
		{profile: "w", err: []string{`matches several profiles`, `"web"`, `"work"`}},
		{profile: "nope", err: []string{`There is no browser profile "nope"`, `"old" (Old, not connected`}},
		{profile: "old", err: []string{`Browser profile "old" (Old) is not connected`}},
		// Omitted profile: the one acted on last (web, just above).
		{profile: "", slug: "web", slot: 1},
	}
	for _, c := range cases {
		got, err := target(t, o, c.profile, c.tab)
		name := fmt.Sprintf("profile=%q tab=%d", c.profile, c.tab)
		if len(c.err) > 0 {
			if err == nil {
				t.Errorf("%s: resolved to %+v, want an error", name, got)
				continue
			}
			for _, w := range c.err {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%s: error %q lacks %q", name, err, w)
				}
			}
			continue
		}
		if err != nil || got.Slug != c.slug || got.Slot != c.slot {
			t.Errorf("%s: got %+v, %v; want %s/%d", name, got, err, c.slug, c.slot)
		}
	}
	// Unknown tab 3 was looked up once with list_tabs before failing.
	if n := work.Count(protocol.MsgListTabs); n != 1 {
		t.Errorf("list_tabs sent %d times, want 1", n)
	}
}

func TestTabResolutionRefreshesOnce(t *testing.T) {
	o := startOwner(t, Config{})
	e := connect(t, o, fakeext.Options{Secret: testPairing, Tabs: twoTabs()})
	e.SetShared(103, true) // shared as slot 3, the server not told
	got, err := target(t, o, "", 3)
	if err != nil || got.TabID != 103 {
		t.Fatalf("got %+v, %v", got, err)
	}
	if n := e.Count(protocol.MsgListTabs); n != 1 {
		t.Fatalf("list_tabs sent %d times, want 1", n)
	}
	// A tab unshared behind the server's back is refused by the extension,
	// which makes the server look again (said with the tab's number)…
	e.SetShared(102, false)
	if msg := mustErr(t, call(t, o.Caller(), "browser_snapshot", map[string]any{"tab": 2}), "Tab 2 of profile", "no longer shared"); strings.Contains(msg, "102") {
		t.Errorf("the message shows Chrome's tab id: %s", msg)
	}
	// …and, once the server knows, by the server without asking the page.
	if err := e.SendTabsChanged(context.Background()); err != nil {
		t.Fatal(err)
	}
	waitFor(t, o, "tab 2 unshared", func() bool { return len(o.Profiles()[0].Tabs) == 2 })
	before := e.Count(protocol.MsgSnapshot)
	if _, err := target(t, o, "", 2); err == nil || !strings.Contains(err.Error(), "no shared tab 2") {
		t.Fatalf("unshared tab: %v", err)
	}
	if e.Count(protocol.MsgSnapshot) != before {
		t.Fatal("a request reached an unshared tab")
	}
}

func TestOmittedTab(t *testing.T) {
	o := startOwner(t, Config{})
	e := connect(t, o, fakeext.Options{Secret: testPairing, Tabs: []fakeext.Tab{
		{ID: 101, WindowID: 1, Shared: true, Slot: 1, URL: "https://a.example/"},
		{ID: 102, WindowID: 2, Shared: true, Slot: 2, URL: "https://b.example/"},
	}})
	if _, err := target(t, o, "", 0); err == nil || !strings.Contains(err.Error(), "none is clearly the active one, so pass `tab`") {
		t.Fatalf("two shared tabs, none active: %v", err)
	}
	mustOK(t, call(t, o.Caller(), "browser_switch_tab", map[string]any{"tab": 2}))
	if got, err := target(t, o, "", 0); err != nil || got.Slot != 2 {
		t.Fatalf("after switch: %+v %v", got, err)
	}
	e.SetShared(102, false)
	e.SetShared(101, false)
	if err := e.SendTabsChanged(context.Background()); err != nil {
		t.Fatal(err)
	}
	waitFor(t, o, "no shared tabs", func() bool { return len(o.Profiles()[0].Tabs) == 0 })
	if _, err := target(t, o, "", 0); err == nil || !strings.Contains(err.Error(), "has no shared tabs") {
		t.Fatalf("no shared tab: %v", err)
	}
}

// holdAll makes the fake hold every request of typ until released.
func holdAll(e *fakeext.Ext, typ string) (arrived chan fakeext.Request, release func()) {
	arrived = make(chan fakeext.Request, 100)
	gate := make(chan struct{})
	var once sync.Once
	e.SetHook(func(ctx context.Context, r fakeext.Request) error {
		if r.Type != typ {
			return nil
		}
		arrived <- r
		select {
		case <-gate:
		case <-ctx.Done():
		}
		return nil
	})
	return arrived, func() { once.Do(func() { close(gate) }) }
}

func recv[T any](t *testing.T, ch <-chan T) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(watchdog):
		t.Fatal("watchdog: nothing arrived")
		panic("unreachable")
	}
}

// waitQueued waits until n calls wait behind the running one on tabID.
func waitQueued(t *testing.T, o *Owner, tabID, n int) {
	t.Helper()
	waitCalls(t, o, fmt.Sprintf("%d calls queued on tab %d", n, tabID), func() bool {
		for _, c := range o.reg.live() {
			c.prof.queues.mu.Lock()
			q := c.prof.queues.byTab[tabID]
			got := 0
			if q != nil {
				got = len(q.waiters)
			}
			c.prof.queues.mu.Unlock()
			if got == n {
				return true
			}
		}
		return false
	})
}

// waitCalls waits for cond, re-checking it each time a call is placed or
// starts waiting for its tab's turn (the gate's stepHook): no polling.
func waitCalls(t *testing.T, o *Owner, what string, cond func() bool) {
	t.Helper()
	step := make(chan struct{}, 1)
	hook := func() {
		select {
		case step <- struct{}{}:
		default: // a wake-up is pending already: cond is re-checked anyway
		}
	}
	o.gate.stepHook.Store(&hook)
	defer o.gate.stepHook.Store(nil)
	deadline := time.NewTimer(watchdog)
	defer deadline.Stop()
	for !cond() {
		select {
		case <-step:
		case <-deadline.C:
			t.Fatalf("watchdog: still waiting for %s", what)
		}
	}
}

func TestSameTabIsFIFO(t *testing.T) {
	o := startOwner(t, Config{})
	e := connect(t, o, fakeext.Options{Secret: testPairing, Tabs: twoTabs()})
	arrived, release := holdAll(e, protocol.MsgPressKey)
	const n = 6
	var wg sync.WaitGroup
	results := make([]string, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = text(call(t, o.Caller(), "browser_press_key", map[string]any{"key": fmt.Sprintf("k%d", i), "tab": 1}))
		}()
		if i == 0 {
			recv(t, arrived) // the first holds the tab
		} else {
			waitQueued(t, o, 101, i) // each later call queues behind it, in order
		}
	}
	release()
	wg.Wait()
	keys := e.Page(101).Keys
	if strings.Join(keys, ",") != "k0,k1,k2,k3,k4,k5" {
		t.Fatalf("keys in order %v", keys)
	}
	// Each call's press and snapshot stayed together: nothing interleaved.
	order := e.Order(101)
	for i := 0; i < len(order); i += 2 {
		if order[i] != protocol.MsgPressKey || order[i+1] != protocol.MsgSnapshot {
			t.Fatalf("interleaved: %v", order)
		}
	}
}

func TestDifferentTabsRunInParallel(t *testing.T) {
	o := startOwner(t, Config{})
	e := connect(t, o, fakeext.Options{Secret: testPairing, Tabs: twoTabs()})
	in := map[int]chan struct{}{101: make(chan struct{}), 102: make(chan struct{})}
	e.SetHook(func(ctx context.Context, r fakeext.Request) error {
		if r.Type != protocol.MsgClick {
			return nil
		}
		close(in[r.TabID])
		other := 101
		if r.TabID == 101 {
			other = 102
		}
		// Both clicks must be inside the fake at once: if the server ran
		// them one after the other, this would wait forever.
		select {
		case <-in[other]:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	})
	var wg sync.WaitGroup
	for _, tab := range []int{1, 2} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mustOK(t, call(t, o.Caller(), "browser_click", map[string]any{"element": "Go", "ref": "e3", "tab": tab}))
		}()
	}
	wg.Wait()
}

func TestListTabsDoesNotTakeATabsTurn(t *testing.T) {
	o := startOwner(t, Config{})
	e := connect(t, o, fakeext.Options{Secret: testPairing, Tabs: twoTabs()})
	arrived, release := holdAll(e, protocol.MsgClick)
	defer release()
	done := make(chan struct{})
	go func() {
		defer close(done)
		call(t, o.Caller(), "browser_click", map[string]any{"element": "Go", "ref": "e3", "tab": 1})
	}()
	recv(t, arrived)
	out := mustOK(t, call(t, o.Caller(), "browser_list_tabs", map[string]any{}))
	if !strings.Contains(out, "tab 1 (active)") {
		t.Fatalf("list: %s", out)
	}
	release()
	<-done
}

// testTimeout is the wire timeout of the timeout tests: the held request
// runs it out, while every other request (the retry, and the frame write,
// which a request's timeout also bounds) must finish within it on a loaded
// machine with -race. At 20-30 ms they did not always (issue 11).
const testTimeout = time.Second

func TestRetryOnlyForRetryableReads(t *testing.T) {
	o := startOwner(t, Config{Timeout: func(string) time.Duration { return testTimeout }})
	e := connect(t, o, fakeext.Options{Secret: testPairing})
	var mu sync.Mutex
	seen := map[string]int{}
	hold := make(chan struct{})
	defer close(hold)
	e.SetHook(func(ctx context.Context, r fakeext.Request) error {
		mu.Lock()
		seen[r.Type]++
		first := seen[r.Type] == 1
		mu.Unlock()
		if r.Type == protocol.MsgClick || (r.Type == protocol.MsgGetText && first) {
			select { // never answered in time
			case <-hold:
			case <-ctx.Done():
			}
		}
		return nil
	})
	out := mustOK(t, call(t, o.Caller(), "browser_get_text", map[string]any{}))
	if !strings.Contains(out, "Welcome to") || e.Count(protocol.MsgGetText) != 2 {
		t.Fatalf("get_text: %d sends, %s", e.Count(protocol.MsgGetText), out)
	}
	mustErr(t, call(t, o.Caller(), "browser_click", map[string]any{"element": "Go", "ref": "e3"}),
		"did not answer browser_click within 1s", "not retried", "browser_snapshot")
	if n := e.Count(protocol.MsgClick); n != 1 {
		t.Fatalf("click sent %d times; actions are never retried", n)
	}
}

func TestTimeoutOfRetryableReadSaysAskedTwice(t *testing.T) {
	o := startOwner(t, Config{Timeout: func(string) time.Duration { return testTimeout }})
	e := connect(t, o, fakeext.Options{Secret: testPairing})
	_, release := holdAll(e, protocol.MsgSnapshot)
	defer release()
	mustErr(t, call(t, o.Caller(), "browser_snapshot", map[string]any{}), "did not answer browser_snapshot within 1s (asked twice)")
}

// TestBudgetEndsARequestBeforeItsTimeout: a message's timeout is a child of
// the call's budget, so a budget that ends first ends the request (no
// clamping of one deadline to the other): the AI reads the budget's message,
// and the extension is told to stop.
func TestBudgetEndsARequestBeforeItsTimeout(t *testing.T) {
	o := startOwner(t, Config{Timeout: func(string) time.Duration { return time.Minute }})
	e := connect(t, o, fakeext.Options{Secret: testPairing})
	stopped := make(chan struct{})
	e.SetHook(func(ctx context.Context, r fakeext.Request) error {
		if r.Type == protocol.MsgClick {
			<-ctx.Done() // answers only once told to stop
			close(stopped)
		}
		return nil
	})
	ctx, cancel := context.WithTimeoutCause(context.Background(), testTimeout, tools.ErrCallBudget)
	defer cancel()
	res, err := o.Caller().CallTool(ctx, protocol.CallTool{Name: "browser_click", Args: json.RawMessage(`{"element":"Go","ref":"e3"}`)})
	if err != nil {
		t.Fatal(err)
	}
	mustErr(t, res, "did not finish within monkbrowse's", "limit per call")
	recv(t, stopped)
}

func TestDisconnectMidCall(t *testing.T) {
	o := startOwner(t, Config{ReconnectWait: -1})
	e := connect(t, o, fakeext.Options{Secret: testPairing, Label: "Work"})
	e.DisconnectOn(protocol.MsgClick)
	mustErr(t, call(t, o.Caller(), "browser_click", map[string]any{"element": "Go", "ref": "e3"}),
		`Browser profile "work" disconnected while browser_click was running`)
}

func TestQueuedCallsFailWhenTheConnectionCloses(t *testing.T) {
	o := startOwner(t, Config{ReconnectWait: -1})
	e := connect(t, o, fakeext.Options{Secret: testPairing, Label: "Work"})
	arrived, release := holdAll(e, protocol.MsgClick)
	defer release()
	first := make(chan string, 1)
	go func() {
		first <- text(call(t, o.Caller(), "browser_click", map[string]any{"element": "Go", "ref": "e3"}))
	}()
	recv(t, arrived)
	second := make(chan string, 1)
	go func() {
		second <- text(call(t, o.Caller(), "browser_hover", map[string]any{"element": "Go", "ref": "e3"}))
	}()
	waitQueued(t, o, 101, 1)
	e.Close()
	if s := recv(t, second); !strings.Contains(s, "disconnected before this call's turn came") {
		t.Fatalf("queued call: %s", s)
	}
	if s := recv(t, first); !strings.Contains(s, "disconnected while browser_click was running") {
		t.Fatalf("running call: %s", s)
	}
	if e.Count(protocol.MsgHover) != 0 {
		t.Fatal("the queued hover reached the page")
	}
}

func TestQueueNotStuckAfterFailurePanicOrCancel(t *testing.T) {
	o := startOwner(t, Config{})
	e := connect(t, o, fakeext.Options{Secret: testPairing})
	b := browser{o}
	ctx := context.Background()

	// A failing request.
	e.FailNext(protocol.MsgClick, "ref e3 is not on the page any more (the page changed); take a new browser_snapshot and use a ref from it")
	mustErr(t, call(t, o.Caller(), "browser_click", map[string]any{"element": "Go", "ref": "e3"}), "take a new browser_snapshot")

	// A panicking turn.
	func() {
		defer func() { _ = recover() }()
		_ = b.WithTab(ctx, "", 0, func(context.Context, tools.Target, tools.Session) error { panic("boom") })
	}()

	// A call cancelled while it waits for its turn.
	arrived, release := holdAll(e, protocol.MsgClick)
	done := make(chan struct{})
	go func() {
		defer close(done)
		call(t, o.Caller(), "browser_click", map[string]any{"element": "Go", "ref": "e3"})
	}()
	recv(t, arrived)
	cctx, cancel := context.WithCancel(ctx)
	cancelled := make(chan error, 1)
	go func() {
		cancelled <- b.WithTab(cctx, "", 0, func(context.Context, tools.Target, tools.Session) error {
			return errors.New("must not run")
		})
	}()
	waitQueued(t, o, 101, 1)
	cancel()
	var ae *protocol.AbortError
	if err := recv(t, cancelled); !errors.As(err, &ae) || ae.Code != protocol.CodeCancelled {
		t.Fatalf("cancelled waiter: %v, want an abort with code cancelled", err)
	}
	release()
	<-done
	e.SetHook(nil)

	// The tab still works and its queue is gone when idle.
	mustOK(t, call(t, o.Caller(), "browser_hover", map[string]any{"element": "Go", "ref": "e3"}))
	for _, c := range o.reg.live() {
		if n := c.prof.queues.pending(); n != 0 {
			t.Fatalf("%d idle queues left", n)
		}
	}
}

func TestWaitsForAProfileToReconnect(t *testing.T) {
	o := startOwner(t, Config{ReconnectWait: watchdog})
	e := connect(t, o, fakeext.Options{Secret: testPairing, ProfileID: "P", Label: "Work"})
	e.Close()
	waitFor(t, o, "disconnected", func() bool { return countConnected(o) == 0 })
	res := make(chan string, 1)
	go func() { res <- mustOK(t, call(t, o.Caller(), "browser_snapshot", map[string]any{"profile": "work"})) }()
	connect(t, o, fakeext.Options{Secret: testPairing, ProfileID: "P", Label: "Work", Slug: "work"})
	if s := recv(t, res); !strings.Contains(s, "Snapshot of tab 1 of profile \"work\"") {
		t.Fatalf("after reconnect: %s", s)
	}
}

func TestNoWaitWhenDisabled(t *testing.T) {
	o := startOwner(t, Config{ReconnectWait: -1})
	e := connect(t, o, fakeext.Options{Secret: testPairing, Label: "Work"})
	e.Close()
	waitFor(t, o, "disconnected", func() bool { return countConnected(o) == 0 })
	mustErr(t, call(t, o.Caller(), "browser_snapshot", map[string]any{}), "No browser profile is connected right now", `"work"`)
}

func TestShutdownFailsWaitingCallsAndRefusesNew(t *testing.T) {
	o := startOwner(t, Config{ReconnectWait: watchdog, DrainTimeout: 10 * time.Millisecond})
	e := connect(t, o, fakeext.Options{Secret: testPairing})
	e.Close()
	waitFor(t, o, "disconnected", func() bool { return countConnected(o) == 0 })
	res := make(chan string, 1)
	go func() { res <- text(call(t, o.Caller(), "browser_snapshot", map[string]any{})) }()
	// Whether the call is already waiting or not yet started, it fails
	// with the shutdown message rather than hanging.
	if err := o.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if s := recv(t, res); !strings.Contains(s, "shutting down") && !strings.Contains(s, "cancelled") {
		t.Fatalf("waiting call: %s", s)
	}
	mustErr(t, call(t, o.Caller(), "browser_snapshot", map[string]any{}), "shutting down")
}

// queueBehindHeldClick holds a click on tab 101 and queues n hovers behind
// it; it returns the hovers' answers.
func queueBehindHeldClick(t *testing.T, o *Owner, e *fakeext.Ext, n int) (first chan string, rest chan string) {
	t.Helper()
	arrived, _ := holdAll(e, protocol.MsgClick)
	first = make(chan string, 1)
	go func() {
		first <- text(call(t, o.Caller(), "browser_click", map[string]any{"element": "Go", "ref": "e3"}))
	}()
	recv(t, arrived)
	rest = make(chan string, n)
	for i := range n {
		go func() {
			rest <- text(call(t, o.Caller(), "browser_hover", map[string]any{"element": "Go", "ref": "e3"}))
		}()
		waitQueued(t, o, 101, i+1)
	}
	return first, rest
}

// TestQueuedCallsWaitForTheReconnect: calls waiting for their turn when the
// extension's socket closes keep their place and run, in order, on the
// profile's next connection (issue 12, brief reconnects).
func TestQueuedCallsWaitForTheReconnect(t *testing.T) {
	o := startOwner(t, Config{ReconnectWait: watchdog})
	opts := fakeext.Options{Secret: testPairing, ProfileID: "P", Label: "Work", Tabs: twoTabs()}
	e := connect(t, o, opts)
	first, rest := queueBehindHeldClick(t, o, e, 5)
	e.Close()
	if s := recv(t, first); !strings.Contains(s, "disconnected while browser_click was running") {
		t.Fatalf("running call: %s", s)
	}
	opts.Slug = "work"
	e2 := connect(t, o, opts)
	for range 5 {
		if s := recv(t, rest); s == "" || strings.Contains(s, "disconnected") {
			t.Fatalf("queued call: %s", s)
		}
	}
	if n := e2.Count(protocol.MsgHover); n != 5 {
		t.Fatalf("the new connection got %d hovers, want 5", n)
	}
	if n := e.Count(protocol.MsgHover); n != 0 {
		t.Fatalf("the closed connection got %d hovers", n)
	}
}

// TestQueuedCallsFailTogetherAfterTheWindow: without a reconnect, the calls
// queued on the closed connection all fail when the window since the
// disconnect has passed, not one window after another.
func TestQueuedCallsFailTogetherAfterTheWindow(t *testing.T) {
	const window = 300 * time.Millisecond
	o := startOwner(t, Config{ReconnectWait: window})
	e := connect(t, o, fakeext.Options{Secret: testPairing, ProfileID: "P", Label: "Work", Tabs: twoTabs()})
	first, rest := queueBehindHeldClick(t, o, e, 5)
	start := time.Now()
	e.Close()
	recv(t, first)
	for range 5 {
		if s := recv(t, rest); !strings.Contains(s, "disconnected before this call's turn came") || !strings.Contains(s, "waited 300ms for it to reconnect") {
			t.Fatalf("queued call: %s", s)
		}
	}
	// Generous: five windows one after another would take 1.5 s.
	if took := time.Since(start); took > 5*window {
		t.Fatalf("the queued calls took %s to fail", took)
	}
	if n := e.Count(protocol.MsgHover); n != 0 {
		t.Fatalf("%d hovers reached the page", n)
	}
}
