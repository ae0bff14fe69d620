package owner

import (
	"testing"

	"github.com/gorilla/websocket"

	"github.com/monkbrowse/monkbrowse/server/internal/fakeext"
)

// TestUnprovenSocketsCapped: sockets without an accepted hello count
// against Config.MaxPending; one more closes the oldest of them at once,
// and the extension still gets in after them. (The flood test measures the
// same at 1,000 sockets, opt-in; this one runs every time.)
func TestUnprovenSocketsCapped(t *testing.T) {
	o := startOwner(t, Config{MaxPending: 2})
	// A ping before the hello is answered: once its pong is read, the
	// server has counted the socket (it is counted before it is read).
	pinged := func() *websocket.Conn {
		t.Helper()
		ws := dialRaw(t, o, "")
		if err := ws.WriteMessage(websocket.TextMessage, []byte(`{"k":"png"}`)); err != nil {
			t.Fatal(err)
		}
		if got := readFrame(t, ws); got != `{"k":"pog"}` {
			t.Fatalf("ping before hello: got %s", got)
		}
		return ws
	}
	first := pinged()
	second := pinged()
	if n, ev := o.pending.Len(), o.pending.Evicted(); n != 2 || ev != 0 {
		t.Fatalf("two unproven sockets: %d counted, %d evicted; want 2 and 0", n, ev)
	}
	pinged() // the third: the oldest goes
	if n, ev := o.pending.Len(), o.pending.Evicted(); n != 2 || ev != 1 {
		t.Fatalf("a third unproven socket over a cap of 2: %d counted, %d evicted; want 2 and 1", n, ev)
	}
	if err := expectClosed(t, first); err == nil {
		t.Fatal("the oldest unproven socket was not closed")
	}
	if err := second.WriteMessage(websocket.TextMessage, []byte(`{"k":"png"}`)); err != nil {
		t.Fatal(err)
	}
	if got := readFrame(t, second); got != `{"k":"pog"}` {
		t.Fatalf("the second socket, still within the cap: got %s", got)
	}
	// The extension still gets in: its socket, pending until its hello is
	// accepted, closes the oldest (the second), then leaves the cap.
	connect(t, o, fakeext.Options{Secret: testPairing})
	if n, ev := o.pending.Len(), o.pending.Evicted(); n != 1 || ev != 2 {
		t.Fatalf("after the extension got in: %d counted, %d evicted; want 1 (the third) and 2", n, ev)
	}
}
