package daemon

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/monkbrowse/monkbrowse/protocol"
	process "github.com/monkbrowse/monkbrowse/server/internal/proc"
)

func watchdog(t *testing.T, d time.Duration) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// fakeOwner is one process's owner runtime: it answers "<name> ran <tool>".
// A call to "block" waits until release is closed or Shutdown fails it.
type fakeOwner struct {
	name     string
	started  chan string
	release  chan struct{}
	stopping atomic.Bool
	down     chan struct{}
	once     sync.Once
	calls    atomic.Int32
}

func (o *fakeOwner) CallTool(ctx context.Context, call protocol.CallTool) (protocol.CallToolResult, error) {
	name := call.Name
	if o.stopping.Load() {
		return protocol.ErrorResult("owner is shutting down"), nil
	}
	o.calls.Add(1)
	select {
	case o.started <- name:
	default:
	}
	if name == "block" {
		select {
		case <-o.release:
		case <-o.down:
			return protocol.ErrorResult("the server shut down while block was running"), nil
		case <-ctx.Done():
			return protocol.CallToolResult{}, ctx.Err()
		}
	}
	return protocol.CallToolResult{Content: []protocol.ContentItem{{Type: "text", Text: o.name + " ran " + name}}}, nil
}

func (o *fakeOwner) Shutdown(ctx context.Context) error {
	o.stopping.Store(true)
	o.once.Do(func() { close(o.down) })
	return nil
}

type proc struct {
	name   string
	roles  chan struct{} // the env's: signalled at every role change of any of its processes
	d      *Daemon
	owner  *fakeOwner
	cancel context.CancelFunc
	done   chan struct{}
}

type env struct {
	t     *testing.T
	roles chan struct{} // buffered (1): a role changed since it was last drained
	home  string
	port  int
	await func(ctx context.Context) // Owner.AwaitExtension of every process
	// listenerUID, if set, is every process's Config.ListenerUID.
	listenerUID func(int) (int, bool)
}

func newEnv(t *testing.T) *env {
	return &env{t: t, home: t.TempDir(), port: freePort(t), roles: make(chan struct{}, 1)}
}

func (e *env) start(name string) *proc {
	e.t.Helper()
	p := &proc{name: name, roles: e.roles, owner: &fakeOwner{name: name, started: make(chan string, 16), release: make(chan struct{}), down: make(chan struct{})}, done: make(chan struct{})}
	log := zerolog.New(zerolog.ConsoleWriter{Out: os.Stderr, NoColor: true}).With().Timestamp().Str("proc", name).Logger().Level(zerolog.InfoLevel)
	if !testing.Verbose() {
		log = zerolog.Nop()
	}
	p.d = New(Config{
		ControlPort: e.port,
		Home:        e.home,
		ListenerUID: e.listenerUID,
		StartOwner: func(ctx context.Context) (Owner, error) {
			return Owner{Caller: p.owner, Shutdown: p.owner.Shutdown, Port: 9333, AwaitExtension: e.await,
				Profiles: func() []protocol.ProfileStatus { return []protocol.ProfileStatus{{ProfileID: "p-" + name, Slug: name}} }}, nil
		},
		Self: process.Self{Logger: &log},
	})
	hook := func() {
		select {
		case e.roles <- struct{}{}:
		default: // a wake-up is pending already: the waiter re-checks every role
		}
	}
	p.d.roleHook.Store(&hook)
	ctx, cancel := context.WithCancel(context.Background())
	p.cancel = cancel
	go func() {
		defer close(p.done)
		p.d.Run(ctx)
	}()
	e.t.Cleanup(p.stop)
	return p
}

// stop ends the process's daemon as stdin EOF or SIGTERM would.
func (p *proc) stop() {
	p.cancel()
	<-p.done
}

func waitRole(t *testing.T, ctx context.Context, p *proc, want Role) {
	t.Helper()
	waitRoles(t, ctx, p.roles, func() bool { return p.d.Role() == want }, func() string {
		return fmt.Sprintf("%s: role %v, want %v", p.name, p.d.Role(), want)
	})
}

// waitRoles waits until done reports true, re-checking it at every role
// change of the env's processes (Daemon.roleHook); at ctx's end it fails
// with what().
func waitRoles(t *testing.T, ctx context.Context, roles <-chan struct{}, done func() bool, what func() string) {
	t.Helper()
	for !done() {
		select {
		case <-roles:
		case <-ctx.Done():
			t.Fatal(what())
		}
	}
}

func call(t *testing.T, ctx context.Context, p *proc, tool string) string {
	t.Helper()
	res, err := p.d.Caller().CallTool(ctx, protocol.CallTool{Name: tool, Args: json.RawMessage(`{}`)})
	if err != nil {
		t.Fatalf("%s: %s: %v", p.name, tool, err)
	}
	if len(res.Content) == 0 {
		t.Fatalf("%s: %s: empty result", p.name, tool)
	}
	if res.IsError {
		return "ERROR: " + res.Content[0].Text
	}
	return res.Content[0].Text
}

func TestElectionAndHandOver(t *testing.T) {
	ctx := watchdog(t, 30*time.Second)
	e := newEnv(t)
	a := e.start("a")
	waitRole(t, ctx, a, RoleOwner)
	b := e.start("b")
	waitRole(t, ctx, b, RoleForwarder)

	if got := call(t, ctx, a, "browser_snapshot"); got != "a ran browser_snapshot" {
		t.Fatalf("owner's own call: %q", got)
	}
	if got := call(t, ctx, b, "browser_click"); got != "a ran browser_click" {
		t.Fatalf("forwarded call: %q", got)
	}

	t0 := time.Now()
	a.stop()
	waitRole(t, ctx, b, RoleOwner)
	took := time.Since(t0)
	t.Logf("hand-over: the forwarder became owner %v after the owner began leaving", took)
	if took > 5*time.Second {
		t.Errorf("hand-over took %v", took)
	}
	if got := call(t, ctx, b, "browser_click"); got != "b ran browser_click" {
		t.Fatalf("call after hand-over: %q", got)
	}
	// The old owner answers nothing any more.
	if got := call(t, ctx, a, "browser_click"); !strings.Contains(got, "shutting down") {
		t.Fatalf("call on a stopped daemon: %q", got)
	}
}

func TestHandOverOneWinnerAmongForwarders(t *testing.T) {
	ctx := watchdog(t, 30*time.Second)
	e := newEnv(t)
	a := e.start("a")
	waitRole(t, ctx, a, RoleOwner)
	fw := []*proc{e.start("b"), e.start("c"), e.start("d")}
	for _, p := range fw {
		waitRole(t, ctx, p, RoleForwarder)
	}
	a.stop()
	// Exactly one takes over; the others forward to it. The roles are
	// counted again at every change: never two owners at once.
	var owners, forwarders int
	stable := func() bool {
		owners, forwarders = 0, 0
		for _, p := range fw {
			switch p.d.Role() {
			case RoleOwner:
				owners++
			case RoleForwarder:
				forwarders++
			}
		}
		if owners > 1 {
			t.Fatalf("%d owners", owners)
		}
		return owners == 1 && forwarders == len(fw)-1
	}
	waitRoles(t, ctx, a.roles, stable, func() string {
		return fmt.Sprintf("no stable roles: %d owners, %d forwarders", owners, forwarders)
	})
	var winner string
	for _, p := range fw {
		if p.d.Role() == RoleOwner {
			winner = p.name
		}
	}
	for _, p := range fw {
		if got := call(t, ctx, p, "browser_list_tabs"); got != winner+" ran browser_list_tabs" {
			t.Fatalf("%s: %q, want the call to reach %s", p.name, got, winner)
		}
	}
}

// A call made while the owner is leaving waits for the next owner and runs
// there once; it is not failed just because the owner changed.
func TestCallDuringHandOverWaitsForNewOwner(t *testing.T) {
	ctx := watchdog(t, 30*time.Second)
	e := newEnv(t)
	a := e.start("a")
	waitRole(t, ctx, a, RoleOwner)
	b := e.start("b")
	waitRole(t, ctx, b, RoleForwarder)

	// Hold the router of b between owners: the old owner refuses (not
	// run) and b must wait for itself to become owner.
	a.d.router.close() // a takes no more calls, as at the start of a hand-over
	refused := make(chan struct{}, 1)
	hook := func() {
		select {
		case refused <- struct{}{}:
		default: // once is enough; never block the router
		}
	}
	b.d.router.waitHook.Store(&hook)
	var got string
	done := make(chan struct{})
	go func() {
		defer close(done)
		got = call(t, ctx, b, "browser_click")
	}()
	select {
	case <-refused: // a refused it (not run) and b waits for the next owner
	case <-done:
		t.Fatalf("the call did not wait for the hand-over: %q", got)
	case <-ctx.Done():
		t.Fatal("watchdog: the call never waited for the next owner")
	}
	select {
	case <-done:
		t.Fatalf("the call did not wait for the hand-over: %q", got)
	default:
	}
	a.stop()
	<-done
	if got != "b ran browser_click" {
		t.Fatalf("call across the hand-over: %q", got)
	}
	if n := a.owner.calls.Load(); n != 0 {
		t.Fatalf("the old owner ran %d calls", n)
	}
	if n := b.owner.calls.Load(); n != 1 {
		t.Fatalf("the new owner ran %d calls, want exactly 1", n)
	}
}

// A call in flight at the owner when it leaves is answered by the old
// owner (drained or failed with a message), never repeated on the new one.
func TestInFlightCallNotRepeated(t *testing.T) {
	ctx := watchdog(t, 30*time.Second)
	e := newEnv(t)
	a := e.start("a")
	waitRole(t, ctx, a, RoleOwner)
	b := e.start("b")
	waitRole(t, ctx, b, RoleForwarder)
	var got string
	done := make(chan struct{})
	go func() {
		defer close(done)
		got = call(t, ctx, b, "block")
	}()
	<-a.owner.started
	a.stop()
	<-done
	if !strings.Contains(got, "shut down while block was running") {
		t.Fatalf("in-flight call: %q", got)
	}
	waitRole(t, ctx, b, RoleOwner)
	if n := b.owner.calls.Load(); n != 0 {
		t.Fatalf("the in-flight call was repeated on the new owner")
	}
}

func TestForeignProgramOnControlPort(t *testing.T) {
	ctx := watchdog(t, 30*time.Second)
	e := newEnv(t)
	ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(e.port))
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.NotFoundHandler()}
	go srv.Serve(ln)
	a := e.start("a")
	var got string
	for {
		got = call(t, ctx, a, "browser_snapshot")
		if strings.HasPrefix(got, "ERROR") {
			break
		}
	}
	port := strconv.Itoa(e.port)
	if !strings.Contains(got, "127.0.0.1:"+port) || !strings.Contains(got, "not a monkbrowse owner") {
		t.Fatalf("call with a foreign program on the port: %q", got)
	}
	// Once the port is free, the daemon becomes the owner by itself.
	srv.Close()
	waitRole(t, ctx, a, RoleOwner)
	if got := call(t, ctx, a, "browser_snapshot"); got != "a ran browser_snapshot" {
		t.Fatalf("after the port freed up: %q", got)
	}
}

// TestOtherUsersListenerGetsNothing: when the OS says the control port's
// listener belongs to another user, the daemon never connects to it and
// every call says so. The uid is a fake (a test cannot run a listener of
// another user); the connections the listener saw are counted for real.
func TestOtherUsersListenerGetsNothing(t *testing.T) {
	ctx := watchdog(t, 30*time.Second)
	e := newEnv(t)
	e.listenerUID = func(port int) (int, bool) { return os.Getuid() + 1, port == e.port }
	ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(e.port))
	if err != nil {
		t.Fatal(err)
	}
	var accepted atomic.Int64
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			c.Close()
		}
	}()
	a := e.start("a")
	got := call(t, ctx, a, "browser_snapshot")
	if !strings.Contains(got, "is held by a program that is not your monkbrowse") || !strings.Contains(got, fmt.Sprintf("another user of this computer (uid %d", os.Getuid()+1)) {
		t.Fatalf("call with another user's listener on the port: %q", got)
	}
	ln.Close()
	if n := accepted.Load(); n != 0 {
		t.Fatalf("the daemon connected %d times to another user's listener", n)
	}
}

func TestOwnerStartRetried(t *testing.T) {
	ctx := watchdog(t, 30*time.Second)
	e := newEnv(t)
	var attempts atomic.Int32
	owner := &fakeOwner{name: "a", started: make(chan string, 16), release: make(chan struct{}), down: make(chan struct{})}
	d := New(Config{ControlPort: e.port, Home: e.home, StartOwner: func(ctx context.Context) (Owner, error) {
		if attempts.Add(1) < 5 {
			return Owner{}, errors.New("extension port 127.0.0.1:9222 is in use")
		}
		return Owner{Caller: owner, Shutdown: owner.Shutdown}, nil
	}})
	rctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); d.Run(rctx) }()
	defer func() { cancel(); <-done }()
	res, err := d.Caller().CallTool(ctx, protocol.CallTool{Name: "browser_snapshot"})
	if err != nil || res.IsError || res.Content[0].Text != "a ran browser_snapshot" {
		t.Fatalf("call while the owner was starting: %+v, %v", res, err)
	}
}

func TestQueryStatus(t *testing.T) {
	ctx := watchdog(t, 30*time.Second)
	e := newEnv(t)
	a := e.start("a")
	waitRole(t, ctx, a, RoleOwner)
	b := e.start("b")
	waitRole(t, ctx, b, RoleForwarder)
	// The owner is serving once a call goes through.
	call(t, ctx, b, "browser_list_tabs")
	st, err := QueryStatus(ctx, e.port, e.home)
	if err != nil {
		t.Fatal(err)
	}
	if st.OwnerPID != os.Getpid() || st.ExtensionPort != 9333 || st.ControlPort != e.port {
		t.Errorf("status = %+v", st)
	}
	if len(st.Forwarders) != 1 || st.Forwarders[0].PID != os.Getpid() {
		t.Errorf("forwarders = %+v, want b", st.Forwarders)
	}
	if len(st.Profiles) != 1 || st.Profiles[0].Slug != "a" {
		t.Errorf("profiles = %+v", st.Profiles)
	}
}

// After a take-over the new owner has no extension yet; a call made then
// waits for one to reconnect instead of answering "no browser connected".
func TestCallAfterTakeOverWaitsForExtension(t *testing.T) {
	ctx := watchdog(t, 30*time.Second)
	e := newEnv(t)
	connected := make(chan struct{})
	var awaited atomic.Int32
	waiting := make(chan struct{}, 1)
	e.await = func(ctx context.Context) {
		awaited.Add(1)
		select {
		case waiting <- struct{}{}:
		default:
		}
		select {
		case <-connected:
		case <-ctx.Done():
		}
	}
	a := e.start("a")
	waitRole(t, ctx, a, RoleOwner)
	// A first owner does not wait: no extension was ever expected.
	if got := call(t, ctx, a, "browser_snapshot"); got != "a ran browser_snapshot" || awaited.Load() != 0 {
		t.Fatalf("first owner: %q (awaited %d)", got, awaited.Load())
	}
	b := e.start("b")
	waitRole(t, ctx, b, RoleForwarder)
	a.stop()
	waitRole(t, ctx, b, RoleOwner)
	var got string
	done := make(chan struct{})
	go func() {
		defer close(done)
		got = call(t, ctx, b, "browser_snapshot")
	}()
	select {
	case <-done:
		t.Fatalf("the call did not wait for the extension: %q", got)
	case <-waiting: // it waits for the extension
	case <-ctx.Done():
		t.Fatal("watchdog: the call neither waited for the extension nor ended")
	}
	close(connected)
	<-done
	if got != "b ran browser_snapshot" {
		t.Fatalf("call after the extension came back: %q", got)
	}
}
