package forwarder

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/monkbrowse/monkbrowse/messaging"
	"github.com/monkbrowse/monkbrowse/messaging/wsconn"
	"github.com/monkbrowse/monkbrowse/protocol"
)

// refusingOwner is an owner on the control port that accepts fwd_hello and
// refuses every call_tool with refusal.
func refusingOwner(t *testing.T, home string, refusal error) int {
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
		p := messaging.NewPeer(wsconn.New(ws, nil), nil)
		proveAsOwner(p, "tok", false)
		p.Handle(protocol.MsgCallTool, func(context.Context, json.RawMessage) (any, error) {
			return nil, refusal
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

// leavingWords is what the owner says when it refuses a call while handing
// over (server/internal/control).
const leavingWords = "monkbrowse owner is handing over to another process; the call was not run"

// TestOwnerLeavingIsDecidedByCode: the forwarder repeats a call elsewhere
// (ErrNotSent) when the owner's refusal carries protocol.CodeOwnerLeaving,
// whatever its words; the same words without the code are an ordinary
// refusal, shown to the AI as a tool error.
func TestOwnerLeavingIsDecidedByCode(t *testing.T) {
	for _, tc := range []struct {
		name     string
		refusal  error
		wantSent bool
	}{
		{"code, other words", messaging.WithCode(protocol.CodeOwnerLeaving, errors.New("the owner is going away (reworded)")), false},
		{"old words, no code", errors.New(leavingWords), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := watchdog(t, 10*time.Second)
			home := t.TempDir()
			c, err := Dial(ctx, &Options{Port: refusingOwner(t, home, tc.refusal), Home: home})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			res, err := c.CallTool(ctx, protocol.CallTool{Name: "browser_snapshot"})
			if !tc.wantSent {
				if !errors.Is(err, ErrNotSent) {
					t.Fatalf("CallTool = %+v, %v; want ErrNotSent", res, err)
				}
				return
			}
			if err != nil || !res.IsError || len(res.Content) == 0 || res.Content[0].Text != leavingWords {
				t.Fatalf("CallTool = %+v, %v; want the refusal as a tool error", res, err)
			}
		})
	}
}
