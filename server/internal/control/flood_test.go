//go:build !race

// The race detector slows every socket by an order of magnitude on a small
// machine: run it without it: MONKBROWSE_FLOOD=1 go test -run Flood ./internal/control/

package control

import (
	"context"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/monkbrowse/monkbrowse/forwarder"
	"github.com/monkbrowse/monkbrowse/server/internal/netguard"
)

// TestFloodOfIdleSocketsDoesNotKeepTheForwarderOut: 1,000 control
// connections that never say fwd_hello, reopened shortly after they are
// closed; a retrying forwarder still gets in within 5 s.
func TestFloodOfIdleSocketsDoesNotKeepTheForwarderOut(t *testing.T) {
	if os.Getenv("MONKBROWSE_FLOOD") == "" {
		t.Skip("set MONKBROWSE_FLOOD=1 to run (1,000 sockets from this process: on a machine already loaded the kernel's accept queue, not monkbrowse, decides)")
	}
	f := start(t)
	ctx, stop := context.WithCancel(context.Background())
	var opened atomic.Int64
	allOpened := make(chan struct{}) // closed when the 1,000th socket is open
	var wg sync.WaitGroup
	defer func() { stop(); wg.Wait() }()
	for range 1000 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				dctx, cancel := context.WithTimeout(ctx, 5*time.Second)
				ws, _, err := websocket.DefaultDialer.DialContext(dctx, f.url(), nil)
				cancel()
				if err != nil {
					time.Sleep(10 * time.Millisecond) // the flood's pace: it waits for nothing
					continue
				}
				if opened.Add(1) == 1000 {
					close(allOpened)
				}
				go func() { <-ctx.Done(); ws.Close() }()
				for {
					if _, _, err := ws.ReadMessage(); err != nil {
						break
					}
				}
				ws.Close()
				select {
				case <-ctx.Done():
				case <-time.After(100 * time.Millisecond):
				}
			}
		}()
	}
	select {
	case <-allOpened:
	case <-time.After(30 * time.Second):
		t.Fatalf("only %d flood sockets opened in 30 s", opened.Load())
	}
	if n := f.srv.pending.Len(); n > netguard.DefaultMaxPending {
		t.Fatalf("%d pending connections, cap %d", n, netguard.DefaultMaxPending)
	}
	start := time.Now()
	for {
		// Each attempt may use what is left of the 5 s.
		dctx, cancel := context.WithDeadline(context.Background(), start.Add(5*time.Second))
		c, err := forwarder.Dial(dctx, &forwarder.Options{Port: f.port, Home: f.home})
		cancel()
		if err == nil {
			t.Logf("the forwarder got in after %s; %d flood sockets opened, %d evicted", time.Since(start).Round(time.Millisecond), opened.Load(), f.srv.pending.Evicted())
			c.Close()
			return
		}
		if time.Since(start) > 5*time.Second {
			t.Fatalf("the forwarder did not get in within 5 s under the flood (last error: %v)", err)
		}
	}
}
