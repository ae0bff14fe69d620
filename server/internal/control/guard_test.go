package control

import (
	"bytes"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/rs/zerolog"
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
	f := start(t)
	var logs lockedBuf
	l := zerolog.New(&logs)
	f.srv.log = l
	const n = 20
	// The forwarder with the right token connects first, so that its
	// fwd_hello is one round trip on an open socket.
	good := f.rawPeer(t, ctx)
	start := time.Now()
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
	close(burst)
	// Once the server holds all n failures, a right token is accepted at
	// once: before even the first failure's (delayed) answer arrives.
	for f.srv.refused.Load() < n {
		select {
		case <-ctx.Done():
			t.Fatalf("watchdog: the server saw %d of %d failed attempts", f.srv.refused.Load(), n)
		case <-time.After(time.Millisecond):
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
