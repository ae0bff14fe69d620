package daemon_test

// Process tests: the real monkbrowse binary, several copies driven by mcp-go
// stdio clients the way AI apps drive them, sharing one fake extension, with
// a temporary HOME and OS-chosen ports.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"go.uber.org/goleak"

	"github.com/monkbrowse/monkbrowse/server/internal/fakeext"
)

// Log lines (server/internal/daemon) that tell a process's role.
const (
	logOwner     = "owner: serving the extension port and the control port"
	logForwarder = "forwarder: another monkbrowse owns the browser connections"
)

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// binary builds cmd/monkbrowse once per test run.
func binary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("process test: builds and runs the monkbrowse binary")
	}
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "monkbrowse-bin-")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "monkbrowse")
		out, err := exec.Command("go", "build", "-o", binPath, "../../cmd/monkbrowse").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

// TestMain removes the built binary and fails the run if a goroutine
// outlives the tests (daemons, control servers, forwarder clients and the
// MCP clients of the process tests must all end).
func TestMain(m *testing.M) {
	code := m.Run()
	if binPath != "" {
		os.RemoveAll(filepath.Dir(binPath))
	}
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintf(os.Stderr, "goleak: %v\n", err)
			code = 1
		}
	}
	os.Exit(code)
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

// lineLog collects a process's stderr line by line with arrival times, and
// echoes it under -v.
type lineLog struct {
	name string
	mu   sync.Mutex
	buf  []byte
	ls   []logLine
	wake chan struct{}
}

type logLine struct {
	at   time.Time
	text string
}

func newLineLog(name string) *lineLog { return &lineLog{name: name, wake: make(chan struct{})} }

func (l *lineLog) Write(p []byte) (int, error) {
	now := time.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf = append(l.buf, p...)
	for {
		i := bytes.IndexByte(l.buf, '\n')
		if i < 0 {
			break
		}
		line := string(l.buf[:i])
		l.buf = l.buf[i+1:]
		l.ls = append(l.ls, logLine{now, line})
		if testing.Verbose() {
			fmt.Fprintf(os.Stderr, "[%s] %s\n", l.name, line)
		}
	}
	close(l.wake)
	l.wake = make(chan struct{})
	return len(p), nil
}

// changed returns a channel closed at the next write.
func (l *lineLog) changed() <-chan struct{} {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.wake
}

func (l *lineLog) count() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.ls)
}

// waitFor waits for a line containing s at index from or later and returns
// its arrival time and index.
func (l *lineLog) waitFor(ctx context.Context, t *testing.T, s string, from int) (time.Time, int) {
	t.Helper()
	for {
		l.mu.Lock()
		for i := from; i < len(l.ls); i++ {
			if strings.Contains(l.ls[i].text, s) {
				at := l.ls[i].at
				l.mu.Unlock()
				return at, i
			}
		}
		wake := l.wake
		l.mu.Unlock()
		select {
		case <-wake:
		case <-ctx.Done():
			t.Fatalf("%s: no log line %q", l.name, s)
		}
	}
}

func (l *lineLog) has(s string, from int) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for i := from; i < len(l.ls); i++ {
		if strings.Contains(l.ls[i].text, s) {
			return true
		}
	}
	return false
}

// mb is one monkbrowse process with its MCP client (its "AI app").
type mb struct {
	name   string
	c      *client.Client
	cmd    *exec.Cmd
	log    *lineLog
	closed atomic.Bool
}

type cluster struct {
	t         *testing.T
	bin, home string
	port, ctl int
	extURL    string
	processes []*mb
}

func newCluster(t *testing.T) *cluster {
	cl := &cluster{t: t, bin: binary(t), home: t.TempDir(), port: freePort(t), ctl: freePort(t)}
	cl.extURL = "ws://127.0.0.1:" + strconv.Itoa(cl.port) + "/"
	return cl
}

func (cl *cluster) start(ctx context.Context, name string) *mb {
	t := cl.t
	t.Helper()
	p := &mb{name: name, log: newLineLog(name)}
	tr := transport.NewStdioWithOptions(cl.bin, nil,
		[]string{"--port", strconv.Itoa(cl.port), "--control-port", strconv.Itoa(cl.ctl), "--log-level", "debug"},
		transport.WithCommandStderrWriter(p.log),
		transport.WithCommandFunc(func(_ context.Context, command string, _ []string, args []string) (*exec.Cmd, error) {
			cmd := exec.Command(command, args...)
			cmd.Env = append(os.Environ(), "HOME="+cl.home)
			p.cmd = cmd
			return cmd, nil
		}))
	//lint:ignore SA1019 the MCP clients AI apps ship today still say initialize; we test that handshake on purpose
	p.c = client.NewClient(tr, client.WithLegacyProtocolOnly())
	if err := p.c.Start(ctx); err != nil {
		t.Fatalf("%s: start: %v", name, err)
	}
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "process-test", Version: "1"}
	if _, err := p.c.Initialize(ctx, init); err != nil {
		t.Fatalf("%s: initialize: %v", name, err)
	}
	cl.processes = append(cl.processes, p)
	t.Cleanup(func() { p.close() })
	return p
}

// close ends the process the way MCP hosts do: stdin closed, SIGTERM 2 s
// later, then SIGKILL (mcp-go's stdio transport does exactly that).
func (p *mb) close() error {
	if p.closed.Swap(true) {
		return nil
	}
	return p.c.Close()
}

func (p *mb) kill9() {
	p.cmd.Process.Signal(syscall.SIGKILL)
}

func (p *mb) call(ctx context.Context, t *testing.T, tool string, args map[string]any) (string, bool) {
	t.Helper()
	req := mcp.CallToolRequest{}
	req.Params.Name = tool
	req.Params.Arguments = args
	res, err := p.c.CallTool(ctx, req)
	if err != nil {
		t.Fatalf("%s: %s: %v", p.name, tool, err)
	}
	var sb strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(mcp.TextContent); ok {
			sb.WriteString(tc.Text)
		}
	}
	return sb.String(), res.IsError
}

func (p *mb) mustCall(ctx context.Context, t *testing.T, tool string, args map[string]any) string {
	t.Helper()
	text, isErr := p.call(ctx, t, tool, args)
	if isErr {
		t.Fatalf("%s: %s failed: %s", p.name, tool, text)
	}
	return text
}

// relay is a fake extension that reconnects as the real one does, with the
// same profile id and slug, and keeps its hook across reconnects.
type relay struct {
	opts fakeext.Options
	mu   sync.Mutex
	ext  *fakeext.Ext
	hook fakeext.Hook
	n    int // connections made
	// delay is how long the relay waits after losing its connection before
	// it reconnects (0: at once, like the real extension's first retry).
	delay atomic.Int64
	wake  chan struct{}
	stop  chan struct{}
	done  chan struct{}
}

func (cl *cluster) extension(ctx context.Context) *relay {
	t := cl.t
	r := &relay{
		opts: fakeext.Options{URL: cl.extURL, Home: cl.home, ProfileID: "fake-profile-1", Label: "Work", Tabs: []fakeext.Tab{
			{ID: 101, WindowID: 1, Shared: true, Slot: 1, Active: true, URL: "https://example.com/one"},
			{ID: 102, WindowID: 1, Shared: true, Slot: 2, URL: "https://example.com/two"},
		}},
		wake: make(chan struct{}),
		stop: make(chan struct{}),
		done: make(chan struct{}),
	}
	go r.run(ctx)
	t.Cleanup(func() {
		close(r.stop)
		<-r.done
	})
	r.waitConnections(ctx, t, 1)
	return r
}

func (r *relay) run(ctx context.Context) {
	defer close(r.done)
	for {
		var ext *fakeext.Ext
		for ext == nil {
			cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
			r.mu.Lock()
			opts := r.opts
			opts.Hook = r.hook // calls waiting for the reconnect arrive before Connect returns
			r.mu.Unlock()
			e, err := fakeext.Connect(cctx, opts)
			cancel()
			if err == nil {
				ext = e
				break
			}
			select {
			case <-r.stop:
				return
			case <-ctx.Done():
				return
			case <-time.After(20 * time.Millisecond): // the real extension retries sub-second at first
			}
		}
		r.mu.Lock()
		r.ext = ext
		r.opts.Slug = ext.Ack().AssignedSlug
		ext.SetHook(r.hook)
		r.n++
		close(r.wake)
		r.wake = make(chan struct{})
		r.mu.Unlock()
		select {
		case <-ext.Done():
		case <-r.stop:
			ext.Close()
			return
		case <-ctx.Done():
			ext.Close()
			return
		}
		if d := time.Duration(r.delay.Load()); d > 0 {
			select {
			case <-time.After(d):
			case <-r.stop:
				return
			case <-ctx.Done():
				return
			}
		}
	}
}

func (r *relay) setHook(h fakeext.Hook) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.hook = h
	if r.ext != nil {
		r.ext.SetHook(h)
	}
}

func (r *relay) current() *fakeext.Ext {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.ext
}

func (r *relay) connections() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.n
}

// waitConnections waits until n connections have been accepted and returns
// when the last one was.
func (r *relay) waitConnections(ctx context.Context, t *testing.T, n int) time.Time {
	t.Helper()
	for {
		r.mu.Lock()
		got, wake := r.n, r.wake
		r.mu.Unlock()
		if got >= n {
			return time.Now()
		}
		select {
		case <-wake:
		case <-ctx.Done():
			t.Fatalf("the fake extension made %d connections, want %d", got, n)
		}
	}
}

func watchdog(t *testing.T, d time.Duration) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// startShared starts n processes (the first one the owner) and the
// extension, and waits until every process has its role.
func startShared(ctx context.Context, t *testing.T, n int) (*cluster, []*mb, *relay) {
	cl := newCluster(t)
	owner := cl.start(ctx, "p0")
	owner.log.waitFor(ctx, t, logOwner, 0)
	ext := cl.extension(ctx)
	ps := []*mb{owner}
	for i := 1; i < n; i++ {
		p := cl.start(ctx, "p"+strconv.Itoa(i))
		p.log.waitFor(ctx, t, logForwarder, 0)
		ps = append(ps, p)
	}
	return cl, ps, ext
}

// TestProcessesShareOneExtension: three AI apps, one browser. Every client's
// calls reach the one extension; calls to different tabs from different
// clients run at the same time; calls to one tab run one after another.
func TestProcessesShareOneExtension(t *testing.T) {
	ctx := watchdog(t, 90*time.Second)
	cl, ps, ext := startShared(ctx, t, 3)

	for _, p := range ps {
		text := p.mustCall(ctx, t, "browser_list_tabs", nil)
		if !strings.Contains(text, "example.com/one") || !strings.Contains(text, "example.com/two") {
			t.Fatalf("%s: browser_list_tabs does not show the shared tabs: %s", p.name, text)
		}
	}
	before := ext.current().Count("browser_get_text")
	for _, p := range ps {
		p.mustCall(ctx, t, "browser_get_text", map[string]any{"tab": 1})
	}
	if got := ext.current().Count("browser_get_text") - before; got != len(ps) {
		t.Fatalf("the extension saw %d browser_get_text, want %d (one per client)", got, len(ps))
	}

	t.Run("different tabs in parallel", func(t *testing.T) {
		// Each tab's request waits until the other tab's has arrived: the
		// calls can only finish if the owner ran them at the same time.
		arrived := map[int]chan struct{}{101: make(chan struct{}), 102: make(chan struct{})}
		var once [2]sync.Once
		ext.setHook(func(ctx context.Context, r fakeext.Request) error {
			if r.Type != "browser_get_text" {
				return nil
			}
			idx, other := 0, 102
			if r.TabID == 102 {
				idx, other = 1, 101
			}
			once[idx].Do(func() { close(arrived[r.TabID]) })
			select {
			case <-arrived[other]:
				return nil
			case <-time.After(10 * time.Second):
				return errors.New("the other tab's call never arrived while this one ran: calls to different tabs did not run in parallel")
			case <-ctx.Done():
				return ctx.Err()
			}
		})
		defer ext.setHook(nil)
		var wg sync.WaitGroup
		errs := make(chan string, 2)
		for i, p := range []*mb{ps[1], ps[2]} {
			wg.Add(1)
			go func(p *mb, tab int) {
				defer wg.Done()
				if text, isErr := p.call(ctx, t, "browser_get_text", map[string]any{"tab": tab}); isErr {
					errs <- p.name + ": " + text
				}
			}(p, i+1)
		}
		wg.Wait()
		close(errs)
		for e := range errs {
			t.Error(e)
		}
	})

	t.Run("one tab in order", func(t *testing.T) {
		// The first call is held until the second client has sent its
		// call; the extension must never see the two at once.
		var active, maxActive atomic.Int32
		firstIn := make(chan struct{})
		release := make(chan struct{})
		var seen atomic.Int32
		ext.setHook(func(ctx context.Context, r fakeext.Request) error {
			if r.Type != "browser_get_text" || r.TabID != 101 {
				return nil
			}
			n := active.Add(1)
			defer active.Add(-1)
			for {
				m := maxActive.Load()
				if n <= m || maxActive.CompareAndSwap(m, n) {
					break
				}
			}
			if seen.Add(1) == 1 {
				close(firstIn)
				select {
				case <-release:
				case <-ctx.Done():
				}
			}
			return nil
		})
		defer ext.setHook(nil)
		var wg sync.WaitGroup
		wg.Add(2)
		go func() {
			defer wg.Done()
			ps[1].mustCall(ctx, t, "browser_get_text", map[string]any{"tab": 1})
		}()
		<-firstIn
		go func() {
			defer wg.Done()
			ps[2].mustCall(ctx, t, "browser_get_text", map[string]any{"tab": 1})
		}()
		// The second call waits in the owner's queue (had it overtaken
		// the first, the extension would have seen it).
		cl.waitOwnerQueued(ctx, t, 1)
		close(release)
		wg.Wait()
		if m := maxActive.Load(); m != 1 {
			t.Fatalf("the extension saw %d calls to one tab at once, want 1", m)
		}
		if s := seen.Load(); s != 2 {
			t.Fatalf("the extension saw %d calls, want 2", s)
		}
	})
}

// TestHandOverOnStdinClose: the owner's AI app closes stdin (and SIGTERMs
// 2 s later, as hosts do); a forwarder owns the ports at once, the
// extension reconnects to it, and the forwarder's next call works.
func TestHandOverOnStdinClose(t *testing.T) {
	ctx := watchdog(t, 90*time.Second)
	_, ps, ext := startShared(ctx, t, 2)
	owner, fwd := ps[0], ps[1]
	fwd.mustCall(ctx, t, "browser_get_text", map[string]any{"tab": 1})
	mark := fwd.log.count()
	conns := ext.connections()

	closed := time.Now()
	if err := owner.close(); err != nil {
		t.Errorf("the owner did not exit cleanly: %v", err)
	}
	exited := time.Now()
	owned, _ := fwd.log.waitFor(ctx, t, logOwner, mark)
	reconnected := ext.waitConnections(ctx, t, conns+1)
	t.Logf("takeover: owner exited %v after stdin closed; forwarder owned both ports %v after the owner's exit "+
		"(negative: before it); extension reconnected %v after the exit",
		exited.Sub(closed).Round(time.Millisecond), owned.Sub(exited).Round(time.Millisecond), reconnected.Sub(exited).Round(time.Millisecond))
	if d := exited.Sub(closed); d > 1900*time.Millisecond {
		t.Errorf("the owner took %v to exit after stdin closed: a host would SIGTERM it", d)
	}
	if d := owned.Sub(exited); d > 5*time.Second {
		t.Errorf("the forwarder took %v to take over", d)
	}
	// The owner's own hand-over log is not checked: the client closes its
	// stderr pipe with stdin (which once killed the owner with SIGPIPE
	// mid-hand-over; the clean exit checked above pins that).
	if fwd.log.has("reason=disconnected", mark) || !fwd.log.has(`"reason":"owner leaving"`, mark) {
		t.Error("the forwarder did not take over on owner_leaving")
	}
	fwd.mustCall(ctx, t, "browser_get_text", map[string]any{"tab": 1})
}

// TestFailoverAfterKill: kill -9 of the owner; of two forwarders exactly one
// becomes owner and the other forwards to it; a call in flight at the dead
// owner fails saying it may or may not have run, and is not repeated.
func TestFailoverAfterKill(t *testing.T) {
	ctx := watchdog(t, 90*time.Second)
	_, ps, ext := startShared(ctx, t, 3)
	owner, b, c := ps[0], ps[1], ps[2]
	marks := []int{b.log.count(), c.log.count()}
	conns := ext.connections()

	held := make(chan struct{})
	var once sync.Once
	ext.setHook(func(ctx context.Context, r fakeext.Request) error {
		if r.Type == "browser_click" {
			once.Do(func() { close(held) })
			<-ctx.Done() // never answers: the owner dies first
			return ctx.Err()
		}
		return nil
	})
	inflight := make(chan string, 1)
	go func() {
		text, _ := b.call(ctx, t, "browser_click", map[string]any{"tab": 1, "ref": "e1", "element": "Continue button"})
		inflight <- text
	}()
	<-held
	ext.setHook(nil)

	killed := time.Now()
	owner.kill9()
	if text := <-inflight; !strings.Contains(text, "may or may not have run") {
		t.Errorf("in-flight call on a killed owner: %q, want it to say it may or may not have run", text)
	}

	// Exactly one winner.
	var winner, loser *mb
	var owned time.Time
	deadline := time.After(15 * time.Second)
	for winner == nil {
		bLogged, cLogged := b.log.changed(), c.log.changed() // taken before the look: no line is missed
		for i, p := range []*mb{b, c} {
			if p.log.has(logOwner, marks[i]) {
				if winner != nil {
					t.Fatal("both forwarders became owner")
				}
				winner = p
				owned, _ = p.log.waitFor(ctx, t, logOwner, marks[i])
				loser = []*mb{c, b}[i]
			}
		}
		if winner == nil {
			select {
			case <-deadline:
				t.Fatal("no forwarder took over")
			case <-bLogged:
			case <-cLogged:
			}
		}
	}
	lmark := marks[0]
	if loser == c {
		lmark = marks[1]
	}
	loser.log.waitFor(ctx, t, logForwarder, lmark)
	reconnected := ext.waitConnections(ctx, t, conns+1)
	t.Logf("failover after kill -9: %s owned both ports %v after the kill; extension reconnected %v after the kill",
		winner.name, owned.Sub(killed).Round(time.Millisecond), reconnected.Sub(killed).Round(time.Millisecond))
	if loser.log.has(logOwner, lmark) {
		t.Fatal("both forwarders became owner")
	}
	if n := ext.current().Count("browser_click"); n != 0 {
		t.Errorf("the in-flight click was repeated on the new owner (%d clicks)", n)
	}
	for _, p := range []*mb{b, c} {
		p.mustCall(ctx, t, "browser_get_text", map[string]any{"tab": 2})
	}
	if got := ext.current().Count("browser_get_text"); got != 2 {
		t.Errorf("the extension saw %d calls after failover, want 2", got)
	}
}

// TestHandOverOnSIGTERM: a signal without stdin closing hands over the same
// way.
func TestHandOverOnSIGTERM(t *testing.T) {
	ctx := watchdog(t, 60*time.Second)
	_, ps, _ := startShared(ctx, t, 2)
	owner, fwd := ps[0], ps[1]
	mark := fwd.log.count()
	sent := time.Now()
	owner.cmd.Process.Signal(syscall.SIGTERM)
	owned, _ := fwd.log.waitFor(ctx, t, logOwner, mark)
	t.Logf("SIGTERM: forwarder owned both ports %v after the signal", owned.Sub(sent).Round(time.Millisecond))
	if !fwd.log.has(`"reason":"owner leaving"`, mark) {
		t.Error("the forwarder did not take over on owner_leaving")
	}
	owner.log.waitFor(ctx, t, "handed over", 0)
	fwd.mustCall(ctx, t, "browser_get_text", map[string]any{"tab": 1})
}

// TestDoctorReportsOwnerForwardersProfiles: `monkbrowse doctor` asks the
// owner over the control port.
func TestDoctorReportsOwnerForwardersProfiles(t *testing.T) {
	ctx := watchdog(t, 60*time.Second)
	cl, ps, _ := startShared(ctx, t, 2)
	ps[1].mustCall(ctx, t, "browser_list_tabs", nil)
	cmd := exec.CommandContext(ctx, cl.bin, "doctor", "--port", strconv.Itoa(cl.port), "--control-port", strconv.Itoa(cl.ctl))
	cmd.Env = append(os.Environ(), "HOME="+cl.home)
	out, _ := cmd.CombinedOutput() // exit 1 is fine: doctor has advice when no tab is shared etc.
	text := string(out)
	for _, want := range []string{
		fmt.Sprintf("pid %d, on control port %d", ps[0].cmd.Process.Pid, cl.ctl),
		fmt.Sprintf("pid %d, monkbrowse", ps[1].cmd.Process.Pid),
		"work (Work, connected): 2 shared tab(s)",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("doctor output lacks %q:\n%s", want, text)
		}
	}
}
