package messaging_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/gorilla/websocket"
	"github.com/monkbrowse/monkbrowse/messaging"
	"github.com/monkbrowse/monkbrowse/messaging/wsconn"
)

// BenchmarkRoundTrip measures request/response round trips with a small
// payload shaped like a real tool call, over the in-memory pipe and over a
// loopback WebSocket, with one request at a time and with 64 in flight (the
// server drives many tabs at once).
func BenchmarkRoundTrip(b *testing.B) {
	transports := []struct {
		name string
		pair func(b *testing.B) (messaging.PeerSocket, messaging.PeerSocket)
	}{
		{"pipe", func(*testing.B) (messaging.PeerSocket, messaging.PeerSocket) { return messaging.Pipe() }},
		{"ws", wsPair},
	}
	payload := json.RawMessage(`{"ref":"e12","element":"Sign in button","tabId":1234567}`)
	for _, tr := range transports {
		for _, inflight := range []int{1, 64} {
			b.Run(fmt.Sprintf("%s/inflight=%d", tr.name, inflight), func(b *testing.B) {
				sa, sb := tr.pair(b)
				client, server := messaging.NewPeer(sa, nil), messaging.NewPeer(sb, nil)
				defer client.Close()
				defer server.Close()
				server.Handle("browser_click", func(_ context.Context, p json.RawMessage) (any, error) {
					return p, nil
				})
				client.Start()
				server.Start()

				var next atomic.Int64
				var failed atomic.Int64
				var wg sync.WaitGroup
				b.ReportAllocs()
				b.ResetTimer()
				for range inflight {
					wg.Go(func() {
						for next.Add(1) <= int64(b.N) {
							if _, err := client.Request(context.Background(), "browser_click", payload); err != nil {
								failed.Add(1)
							}
						}
					})
				}
				wg.Wait()
				b.StopTimer()
				if n := failed.Load(); n > 0 {
					b.Fatalf("%d requests failed", n)
				}
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "roundtrips/s")
			})
		}
	}
}

// wsPair connects two wsconn sockets over a loopback httptest server.
func wsPair(b *testing.B) (messaging.PeerSocket, messaging.PeerSocket) {
	b.Helper()
	conns := make(chan *websocket.Conn, 1)
	up := websocket.Upgrader{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := up.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		conns <- c
	}))
	b.Cleanup(srv.Close)
	c, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(srv.URL, "http"), nil)
	if err != nil {
		b.Fatal(err)
	}
	return wsconn.New(c, nil), wsconn.New(<-conns, nil)
}
