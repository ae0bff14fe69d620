package control

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/rs/zerolog"

	"github.com/monkbrowse/monkbrowse/server/internal/netguard"
)

type lockedBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuf) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestFailedAuthDelayedLimitedAndLoggedOnceASecond: each failed fwd_hello is
// answered no sooner than 250 ms after it arrived; 20 failures in parallel
// are answered at most 20 a second overall and logged at most once a
// second; a correct token meanwhile is accepted at once.
func TestFailedAuthDelayedLimitedAndLoggedOnceASecond(t *testing.T) {
	ctx := watchdog(t, 30*time.Second)
	var logs lockedBuf
	l := zerolog.New(&logs)
	// The fixture's 2 s hello timeout would close the last of the failed
	// attempts while the limiter still holds them (20 a second, after the
	// dials of 21 sockets on a loaded machine): not what this test is about.
	f := start(t, func(c *Config) { c.Logger = &l; c.HelloTimeout = 30 * time.Second })
	const n = 20
	// The forwarder with the right token connects first, so that its
	// fwd_hello is one round trip on an open socket.
	good := f.rawPeer(t, ctx)
	// Answer times count from the burst, not from before the dials: dialling
	// 20 sockets on a loaded machine can take longer than the delay itself,
	// and an answer sent at once would then still look late enough.
	var start time.Time
	var wg sync.WaitGroup
	var mu sync.Mutex
	var answered []time.Duration
	burst := make(chan struct{})
	for range n {
		p := f.rawPeer(t, ctx)
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-burst // every wrong hello in one burst, on open sockets
			ack := helloAck(t, ctx, p, strings.Repeat("0", 64))
			if ack.OK {
				t.Error("a wrong token was accepted")
			}
			mu.Lock()
			answered = append(answered, time.Since(start))
			mu.Unlock()
		}()
	}
	start = time.Now() // before the close: each goroutine reads it after the burst
	close(burst)
	// Once the server holds all n failures, a right token is accepted at
	// once: before even the first failure's (delayed) answer arrives.
	for {
		changed := f.srv.refusals.Changed()
		if f.srv.refusals.Total() >= n {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("watchdog: the server saw %d of %d failed attempts", f.srv.refusals.Total(), n)
		case <-changed:
		}
	}
	if ack := helloAck(t, ctx, good, f.token); !ack.OK {
		t.Fatalf("the right token was refused: %+v", ack)
	}
	mu.Lock()
	before := len(answered)
	mu.Unlock()
	if before > 0 {
		t.Errorf("the right token was accepted after %d failed attempts were answered: it waited behind them", before)
	}
	wg.Wait()
	elapsed := time.Since(start)
	var first, last time.Duration = time.Hour, 0
	for _, d := range answered {
		first, last = min(first, d), max(last, d)
	}
	if first < FailedAuthDelay {
		t.Errorf("a failed attempt was answered after %s, before the %s delay", first, FailedAuthDelay)
	}
	// n answers at 20 a second need (n-1)/20 s between the first and last;
	// a quarter of slack for a late reading of the first answer.
	if want := time.Duration(n-1) * time.Second / FailedAuthPerSecond; last-first < want*3/4 {
		t.Errorf("%d failed attempts were answered within %s, faster than %d a second", n, last-first, FailedAuthPerSecond)
	}
	lines := strings.Count(logs.String(), "refused a control-port connection")
	if max := int(elapsed/time.Second) + 1; lines > max {
		t.Errorf("%d log lines for %d failures in %s: more than one a second", lines, n, elapsed)
	}
	if lines == 0 {
		t.Error("the failures were not logged at all")
	}
}

// TestControlHostMustBeLoopback: a DNS-rebinding page (its own host name)
// is refused before anything else.
func TestControlHostMustBeLoopback(t *testing.T) {
	f := start(t)
	for _, host := range []string{"evil.example", "evil.example:9219", "10.0.0.1:9219"} {
		d := websocket.Dialer{}
		_, resp, err := d.Dial(f.url(), http.Header{"Host": {host}})
		if err == nil || resp == nil || resp.StatusCode != http.StatusForbidden {
			t.Errorf("Host %q: %v", host, err)
		}
	}
	d := websocket.Dialer{}
	ws, _, err := d.Dial(f.url(), http.Header{"Host": {"localhost:1"}})
	if err != nil {
		t.Fatalf("Host localhost: %v", err)
	}
	ws.Close()
}

// TestOriginFloodLogsAFewLines: 2,000 upgrades with a web Origin are all
// refused with 403 and cost the MCP log at most a line a second.
func TestOriginFloodLogsAFewLines(t *testing.T) {
	var logs lockedBuf
	l := zerolog.New(&logs)
	f := start(t, func(c *Config) { c.Logger = &l })
	start := time.Now()
	tr := &http.Transport{MaxIdleConnsPerHost: 8}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	for i := range 2000 {
		req, _ := http.NewRequest("GET", "http://127.0.0.1:"+strconv.Itoa(f.port)+"/", nil)
		req.Header.Set("Connection", "Upgrade")
		req.Header.Set("Upgrade", "websocket")
		req.Header.Set("Sec-WebSocket-Version", "13")
		req.Header.Set("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ==")
		req.Header.Set("Origin", "https://evil.example")
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("attempt %d: %v", i, err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Fatalf("attempt %d: %s, want 403", i, resp.Status)
		}
	}
	elapsed := time.Since(start)
	lines := strings.Count(logs.String(), "\n")
	t.Logf("2,000 refused upgrades in %s: %d log lines", elapsed.Round(time.Millisecond), lines)
	if max := int(elapsed/time.Second) + 1; lines > max || lines == 0 {
		t.Fatalf("%d log lines for 2,000 refusals in %s (want 1..%d):\n%s", lines, elapsed, max, logs.String())
	}
	if !strings.Contains(logs.String(), `"refusedSinceStart"`) {
		t.Fatalf("the log line does not count the refusals:\n%s", logs.String())
	}
}

// TestOtherUsersPeerRefused: a connection the OS attributes to another user
// is refused before the upgrade with a clear 403; ours, root's and
// unattributable ones go on to the proof. The uid table is a fake (a test
// running as one user cannot make another user's connection).
func TestOtherUsersPeerRefused(t *testing.T) {
	ctx := watchdog(t, 10*time.Second)
	var mu sync.Mutex
	owner := map[string]int{} // the peer's address → uid; absent: unattributable
	f := start(t, func(c *Config) {
		c.UID = 1000
		c.PeerUID = func(remote, local string) (int, bool) {
			mu.Lock()
			defer mu.Unlock()
			uid, ok := owner[remote]
			return uid, ok
		}
	})
	for _, tc := range []struct {
		name    string
		uid     int
		known   bool
		refused bool
	}{
		{"another user", 1001, true, true},
		{"ours", 1000, true, false},
		{"root", 0, true, false},
		{"unattributable", 0, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// The uid is looked up before the connection's first byte is
			// read, maybe before DialContext returns here: the client's
			// address is chosen and entered first.
			local := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: freeLocalPort(t)}
			if tc.known {
				mu.Lock()
				owner[local.String()] = tc.uid
				mu.Unlock()
			}
			d := websocket.Dialer{NetDialContext: (&net.Dialer{LocalAddr: local}).DialContext}
			ws, resp, err := d.DialContext(ctx, f.url(), nil)
			if tc.refused {
				if err == nil {
					ws.Close()
					t.Fatal("another user's connection was upgraded")
				}
				body, _ := io.ReadAll(resp.Body)
				if resp.StatusCode != http.StatusForbidden || !strings.Contains(string(body), "another user of this computer (uid 1001)") {
					t.Fatalf("refusal: %s %q", resp.Status, body)
				}
				return
			}
			if err != nil {
				t.Fatalf("upgrade refused: %v", err)
			}
			ws.Close()
		})
	}
}

// freeLocalPort is a port free on 127.0.0.1 right now, for a client's own
// address.
func freeLocalPort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// TestControlRefusalLineCut (issue 40, finding 7): a 3 KiB Origin (under
// the control port's 4 KiB header limit) is refused, and its refusal line
// carries at most MaxLogField bytes of it.
func TestControlRefusalLineCut(t *testing.T) {
	var logs lockedBuf
	l := zerolog.New(&logs)
	f := start(t, func(c *Config) { c.Logger = &l })
	origin := "https://" + strings.Repeat("a", 3<<10) + "TAILMARK.example"
	_, resp, err := websocket.DefaultDialer.Dial(f.url(), http.Header{"Origin": {origin}})
	if err == nil || resp == nil || resp.StatusCode != http.StatusForbidden {
		t.Fatalf("a browser Origin: %v", err)
	}
	line := logs.String()
	if !strings.Contains(line, "refused a control-port connection from a browser origin") {
		t.Fatalf("no refusal line: %.500s", line)
	}
	if strings.Contains(line, "TAILMARK") || !strings.Contains(line, "bytes cut") || len(line) > 2*netguard.MaxLogField+400 {
		t.Fatalf("the refusal line carries the Origin whole (%d bytes): %.500s", len(line), line)
	}
}
