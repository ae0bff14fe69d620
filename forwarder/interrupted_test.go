package forwarder

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/monkbrowse/monkbrowse/messaging"
	"github.com/monkbrowse/monkbrowse/messaging/wsconn"
	"github.com/monkbrowse/monkbrowse/protocol"
)

// dyingOwner is a monkbrowse owner on the control port that accepts
// fwd_hello and then dies (drops the connection, as a killed process does)
// as soon as a call_tool arrives.
func dyingOwner(t *testing.T, home string) int {
	return dyingOwnerSent(t, home, false, false)
}

// dyingOwnerSent is dyingOwner that, with tells, announces call_sent in
// its ack and, with sends, asks call_sent for the call before dying (the
// call reached the extension).
func dyingOwnerSent(t *testing.T, home string, tells, sends bool) int {
	t.Helper()
	ln, port := listen(t)
	writeToken(t, home, "tok")
	up := websocket.Upgrader{}
	var mu sync.Mutex
	var peers []*messaging.Peer
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ws, err := up.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		sock := wsconn.New(ws, nil)
		p := messaging.NewPeer(sock, nil)
		proveAsOwner(p, "tok", tells)
		p.Handle(protocol.MsgCallTool, func(ctx context.Context, payload json.RawMessage) (any, error) {
			var ct protocol.CallTool
			_ = json.Unmarshal(payload, &ct)
			if sends {
				if _, err := p.Request(ctx, protocol.MsgCallSent, protocol.CallSent{Ref: ct.Ref}); err != nil {
					t.Errorf("call_sent: %v", err)
				}
			}
			_ = sock.Close() // killed mid-call: no answer, no owner_leaving
			<-ctx.Done()
			return nil, ctx.Err()
		})
		p.Start()
		mu.Lock()
		peers = append(peers, p)
		mu.Unlock()
	})}
	go srv.Serve(ln)
	t.Cleanup(func() {
		srv.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, p := range peers {
			p.Close()
		}
	})
	return port
}

// TestCallInFlightAtKilledOwnerIsInterrupted: a call in flight when the
// owner dies fails with an *InterruptedError (it may or may not have run;
// the caller decides whether the tool may be repeated), not with ErrNotSent
// and not with a finished tool result. A call made after the loss is
// ErrNotSent.
func TestCallInFlightAtKilledOwnerIsInterrupted(t *testing.T) {
	ctx := watchdog(t, 10*time.Second)
	home := t.TempDir()
	port := dyingOwner(t, home)
	c, err := Dial(ctx, &Options{Port: port, Home: home})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	res, err := c.CallTool(ctx, protocol.CallTool{Name: "browser_snapshot"})
	var ie *InterruptedError
	if !errors.As(err, &ie) || !errors.Is(err, ErrInterrupted) || errors.Is(err, ErrNotSent) {
		t.Fatalf("CallTool = %+v, %v (%T); want an *InterruptedError", res, err, err)
	}
	if ie.Tool != "browser_snapshot" || !strings.Contains(err.Error(), "browser_snapshot") || !strings.Contains(err.Error(), "may or may not have run") {
		t.Errorf("message: %v", err)
	}
	<-c.Lost()
	if _, err := c.CallTool(ctx, protocol.CallTool{Name: "browser_click"}); !errors.Is(err, ErrNotSent) {
		t.Errorf("a call after the loss: %v, want ErrNotSent", err)
	}
}

// TestInterruptedCallSaysWhetherItWasSent: an owner that tells call_sent
// and dies before it sent the call makes the call "not run"; one that told
// call_sent makes it "may or may not have run"; an owner that does not
// tell (an older one) leaves every interrupted call "may have run".
func TestInterruptedCallSaysWhetherItWasSent(t *testing.T) {
	for _, c := range []struct {
		name         string
		tells, sends bool
		notSent      bool
		want         string
	}{
		{"never sent", true, false, true, "browser_click was not run"},
		{"sent", true, true, false, "may or may not have run"},
		{"older owner", false, false, false, "may or may not have run"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx := watchdog(t, 10*time.Second)
			home := t.TempDir()
			port := dyingOwnerSent(t, home, c.tells, c.sends)
			cl, err := Dial(ctx, &Options{Port: port, Home: home})
			if err != nil {
				t.Fatal(err)
			}
			defer cl.Close()
			_, err = cl.CallTool(ctx, protocol.CallTool{Name: "browser_click", Args: json.RawMessage(`{"element":"Go","ref":"e3"}`)})
			var ie *InterruptedError
			if !errors.As(err, &ie) || !errors.Is(err, ErrInterrupted) {
				t.Fatalf("CallTool: %v (%T); want an *InterruptedError", err, err)
			}
			if ie.NotSent != c.notSent || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("NotSent=%v %q; want NotSent=%v and %q", ie.NotSent, err, c.notSent, c.want)
			}
		})
	}
}
