package wsconn_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/monkbrowse/monkbrowse/messaging"
	"github.com/monkbrowse/monkbrowse/messaging/wsconn"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

const watchdog = 5 * time.Second

// waitBlocked waits until some goroutine is parked (on the network, a
// channel) inside the function fn, as runtime.Stack shows it: the test waits
// for the call to block, not for a guessed delay.
func waitBlocked(t *testing.T, fn string) {
	t.Helper()
	buf := make([]byte, 1<<20)
	deadline := time.Now().Add(watchdog)
	for {
		n := runtime.Stack(buf, true)
		for _, g := range strings.Split(string(buf[:n]), "\n\n") {
			head, _, _ := strings.Cut(g, "\n")
			if !strings.Contains(head, "[running") && !strings.Contains(head, "[runnable") && strings.Contains(g, fn+"(") {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s to block", fn)
		}
		runtime.Gosched()
	}
}

// dial starts a loopback WebSocket server and returns the server side
// wrapped by wsconn (with opts) and the raw client connection. Everything is
// closed when the test ends.
func dial(t testing.TB, opts *wsconn.Options) (messaging.PeerSocket, *websocket.Conn) {
	t.Helper()
	conns := make(chan *websocket.Conn, 1)
	up := websocket.Upgrader{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := up.Upgrade(w, r, nil)
		if err != nil {
			t.Errorf("upgrade: %v", err)
			return
		}
		conns <- c
	}))
	t.Cleanup(srv.Close)
	client, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(srv.URL, "http"), nil)
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	t.Cleanup(func() { client.Close() })
	var server *websocket.Conn
	select {
	case server = <-conns:
	case <-time.After(watchdog):
		t.Fatal("no server connection")
	}
	s := wsconn.New(server, opts)
	t.Cleanup(func() { s.Close() })
	return s, client
}

func TestPeerOverWebSocket(t *testing.T) {
	s, c := dial(t, nil)
	a := messaging.NewPeer(s, nil)
	b := messaging.NewPeer(wsconn.New(c, nil), nil)
	defer a.Close()
	defer b.Close()
	b.Handle("echo", func(_ context.Context, p json.RawMessage) (any, error) { return p, nil })
	a.Start()
	b.Start()
	res, err := a.Request(context.Background(), "echo", map[string]string{"hi": "<there>"})
	if err != nil || string(res) != `{"hi":"<there>"}` {
		t.Fatalf("got %s, %v", res, err)
	}
	if err := a.Ping(context.Background()); err != nil {
		t.Fatal(err)
	}
	// The client going away fails the server side's calls with ErrClosed.
	b.Close()
	select {
	case <-a.Done():
	case <-time.After(watchdog):
		t.Fatal("server peer did not notice the close")
	}
	if _, err := a.Request(context.Background(), "echo", 1); !errors.Is(err, messaging.ErrClosed) {
		t.Fatalf("after close: %v", err)
	}
	// Peer.Close on the other side closed cleanly, with a close frame.
	var ce *websocket.CloseError
	if err := a.Err(); !errors.As(err, &ce) || ce.Code != websocket.CloseNormalClosure {
		t.Fatalf("server peer's Err = %v, want close 1000", err)
	}
}

func TestSendWritesTextFrames(t *testing.T) {
	s, c := dial(t, nil)
	if err := s.Send(context.Background(), []byte(`{"k":"png"}`)); err != nil {
		t.Fatal(err)
	}
	c.SetReadDeadline(time.Now().Add(watchdog))
	typ, data, err := c.ReadMessage()
	if err != nil || typ != websocket.TextMessage || string(data) != `{"k":"png"}` {
		t.Fatalf("got %d %q %v", typ, data, err)
	}
	// Binary frames are accepted too.
	if err := c.WriteMessage(websocket.BinaryMessage, []byte(`{"k":"pog"}`)); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), watchdog)
	defer cancel()
	if got, err := s.Receive(ctx); err != nil || string(got) != `{"k":"pog"}` {
		t.Fatalf("got %q %v", got, err)
	}
}

// TestReadLimit pins that a frame over the limit ends the connection: the
// sender sees close code 1009 and the receiver an error matching ErrClosed.
func TestReadLimit(t *testing.T) {
	s, c := dial(t, &wsconn.Options{ReadLimit: 1024})
	ctx, cancel := context.WithTimeout(context.Background(), watchdog)
	defer cancel()
	if err := c.WriteMessage(websocket.TextMessage, []byte(strings.Repeat("a", 1024))); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Receive(ctx); err != nil || len(got) != 1024 {
		t.Fatalf("frame at the limit: %d bytes, %v", len(got), err)
	}
	if err := c.WriteMessage(websocket.TextMessage, []byte(strings.Repeat("a", 1025))); err != nil {
		t.Fatal(err)
	}
	_, err := s.Receive(ctx)
	if !errors.Is(err, messaging.ErrClosed) || !errors.Is(err, websocket.ErrReadLimit) {
		t.Fatalf("over the limit: %v", err)
	}
	c.SetReadDeadline(time.Now().Add(watchdog))
	_, _, err = c.ReadMessage()
	if !websocket.IsCloseError(err, websocket.CloseMessageTooBig) {
		t.Fatalf("client saw %v, want close 1009", err)
	}
	if err := s.Send(ctx, []byte("x")); !errors.Is(err, messaging.ErrClosed) {
		t.Fatalf("send after read limit: %v", err)
	}
}

// TestUnprovenLimit: until RaiseReadLimit a frame over UnprovenLimit ends
// the connection with 1009, even one that never finishes (the reader gives
// up after UnprovenLimit+1 bytes instead of buffering the rest); after it,
// frames up to ReadLimit pass.
func TestUnprovenLimit(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), watchdog)
	defer cancel()
	t.Run("raised", func(t *testing.T) {
		s, c := dial(t, &wsconn.Options{ReadLimit: 8192, UnprovenLimit: 1024})
		if err := c.WriteMessage(websocket.TextMessage, []byte(strings.Repeat("a", 1024))); err != nil {
			t.Fatal(err)
		}
		if got, err := s.Receive(ctx); err != nil || len(got) != 1024 {
			t.Fatalf("frame at the unproven limit: %d bytes, %v", len(got), err)
		}
		s.(*wsconn.Conn).RaiseReadLimit()
		if err := c.WriteMessage(websocket.TextMessage, []byte(strings.Repeat("b", 8192))); err != nil {
			t.Fatal(err)
		}
		if got, err := s.Receive(ctx); err != nil || len(got) != 8192 {
			t.Fatalf("frame at the full limit after the raise: %d bytes, %v", len(got), err)
		}
	})
	t.Run("unfinished big frame", func(t *testing.T) {
		s, c := dial(t, &wsconn.Options{ReadLimit: 64 << 20, UnprovenLimit: 1024})
		// One frame header announcing 60 MiB, then 4 KiB of it, never the
		// rest: the reader must give up without waiting for the rest.
		w, err := c.NextWriter(websocket.TextMessage)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(strings.Repeat("a", 5000))); err != nil { // flushes a first frame
			t.Fatal(err)
		}
		_, err = s.Receive(ctx)
		if !errors.Is(err, messaging.ErrClosed) || !errors.Is(err, websocket.ErrReadLimit) {
			t.Fatalf("over the unproven limit: %v", err)
		}
		c.SetReadDeadline(time.Now().Add(watchdog))
		_, _, err = c.ReadMessage()
		if !websocket.IsCloseError(err, websocket.CloseMessageTooBig) {
			t.Fatalf("client saw %v, want close 1009", err)
		}
	})
}

func TestCleanClose(t *testing.T) {
	s, c := dial(t, nil)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s.Close() // idempotent
	c.SetReadDeadline(time.Now().Add(watchdog))
	_, _, err := c.ReadMessage()
	if !websocket.IsCloseError(err, websocket.CloseNormalClosure) {
		t.Fatalf("client saw %v, want close 1000", err)
	}
	if _, err := s.Receive(context.Background()); !errors.Is(err, messaging.ErrClosed) {
		t.Fatalf("receive after close: %v", err)
	}
	if err := s.Send(context.Background(), []byte("x")); !errors.Is(err, messaging.ErrClosed) {
		t.Fatalf("send after close: %v", err)
	}
}

func TestRemoteCloseCode(t *testing.T) {
	s, c := dial(t, nil)
	c.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseGoingAway, "bye"), time.Now().Add(time.Second))
	ctx, cancel := context.WithTimeout(context.Background(), watchdog)
	defer cancel()
	_, err := s.Receive(ctx)
	var ce *websocket.CloseError
	if !errors.Is(err, messaging.ErrClosed) || !errors.As(err, &ce) || ce.Code != websocket.CloseGoingAway {
		t.Fatalf("got %v", err)
	}
}

func TestCloseUnblocksReceive(t *testing.T) {
	s, _ := dial(t, nil)
	errc := make(chan error, 1)
	go func() {
		_, err := s.Receive(context.Background())
		errc <- err
	}()
	waitBlocked(t, "wsconn.(*Conn).read")
	s.Close()
	select {
	case err := <-errc:
		if !errors.Is(err, messaging.ErrClosed) {
			t.Fatalf("got %v", err)
		}
	case <-time.After(watchdog):
		t.Fatal("Receive still blocked after Close")
	}
}

func TestReceiveHonoursContext(t *testing.T) {
	s, _ := dial(t, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	start := time.Now()
	if _, err := s.Receive(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("got %v", err)
	}
	if time.Since(start) > watchdog {
		t.Fatal("Receive ignored its context")
	}
}

// TestConcurrentSends would panic inside gorilla ("concurrent write to
// websocket connection") or fail -race if Send did not serialise writers.
func TestConcurrentSends(t *testing.T) {
	s, c := dial(t, nil)
	const writers, each = 8, 100
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				if err := s.Send(context.Background(), fmt.Appendf(nil, `{"w":%d,"i":%d}`, w, i)); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	next := make([]int, writers) // per writer, frames arrive in order
	c.SetReadDeadline(time.Now().Add(watchdog))
	for range writers * each {
		_, data, err := c.ReadMessage()
		if err != nil {
			t.Fatal(err)
		}
		var m struct{ W, I int }
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatalf("frame %q: %v", data, err)
		}
		if m.I != next[m.W] {
			t.Fatalf("writer %d: frame %d arrived, want %d", m.W, m.I, next[m.W])
		}
		next[m.W]++
	}
	wg.Wait()
}
