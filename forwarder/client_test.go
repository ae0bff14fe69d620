package forwarder

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/monkbrowse/monkbrowse/messaging"
	"github.com/monkbrowse/monkbrowse/protocol"
)

// watchdog fails the test instead of letting it hang.
func watchdog(t *testing.T, d time.Duration) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

func listen(t *testing.T) (net.Listener, int) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	return ln, ln.Addr().(*net.TCPAddr).Port
}

func writeToken(t *testing.T, home, tok string) {
	t.Helper()
	dir := filepath.Join(home, protocol.TokenDirName)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, protocol.TokenFileName), []byte(tok+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
}

func wantNotOwner(t *testing.T, err error, port int) {
	t.Helper()
	var no *NotOwnerError
	if !errors.As(err, &no) {
		t.Fatalf("err = %v (%T), want *NotOwnerError", err, err)
	}
	if no.Port != port || !strings.Contains(err.Error(), "127.0.0.1:"+strconv.Itoa(port)) || !strings.Contains(err.Error(), "not a monkbrowse owner") {
		t.Fatalf("message does not name the port or say what is wrong: %v", err)
	}
}

func TestDialNothingListening(t *testing.T) {
	ctx := watchdog(t, 10*time.Second)
	ln, port := listen(t)
	ln.Close()
	_, err := Dial(ctx, &Options{Port: port, Home: t.TempDir()})
	if !errors.Is(err, ErrNoOwner) {
		t.Fatalf("err = %v, want ErrNoOwner", err)
	}
}

func TestDialPlainHTTPServer(t *testing.T) {
	ctx := watchdog(t, 10*time.Second)
	ln, port := listen(t)
	srv := &http.Server{Handler: http.NotFoundHandler()}
	go srv.Serve(ln)
	defer srv.Close()
	home := t.TempDir()
	writeToken(t, home, "abc")
	_, err := Dial(ctx, &Options{Port: port, Home: home})
	wantNotOwner(t, err, port)
	if !strings.Contains(err.Error(), "404") {
		t.Errorf("message should say what the port answered: %v", err)
	}
}

func TestDialGarbageServer(t *testing.T) {
	ctx := watchdog(t, 10*time.Second)
	ln, port := listen(t)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				bufio.NewReader(c).ReadString('\n')
				c.Write([]byte("SSH-2.0-OpenSSH_9.6\r\n"))
			}()
		}
	}()
	_, err := Dial(ctx, &Options{Port: port, Home: t.TempDir()})
	wantNotOwner(t, err, port)
}

func TestDialSilentServer(t *testing.T) {
	ctx := watchdog(t, 10*time.Second)
	ln, port := listen(t)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close() // accept and never answer
		}
	}()
	// The caller's deadline bounds the handshake: a server that never
	// answers is reported silent, not as the caller's own deadline.
	dctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	_, err := Dial(dctx, &Options{Port: port, Home: t.TempDir()})
	wantNotOwner(t, err, port)
	var no *NotOwnerError
	if !errors.As(err, &no) || !no.Silent {
		t.Fatalf("silent server: %v", err)
	}
}

// A WebSocket server that is not a monkbrowse owner: upgrades, then answers
// nothing, or answers something that is not an ack.
func TestDialForeignWebSocket(t *testing.T) {
	for _, tc := range []struct {
		name  string
		reply string // "" means say nothing
	}{
		{"silent", ""},
		{"wrong answer", `{"k":"res","id":"1","ok":true,"result":{"hello":"world"}}`},
		{"error answer", `{"k":"res","id":"1","ok":false,"error":"no handler for request \"fwd_hello\""}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := watchdog(t, 10*time.Second)
			ln, port := listen(t)
			up := websocket.Upgrader{}
			srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				ws, err := up.Upgrade(w, r, nil)
				if err != nil {
					return
				}
				defer ws.Close()
				ws.ReadMessage()
				if tc.reply != "" {
					ws.WriteMessage(websocket.TextMessage, []byte(tc.reply))
				}
				ws.ReadMessage()
			})}
			go srv.Serve(ln)
			defer srv.Close()
			home := t.TempDir()
			writeToken(t, home, "abc")
			dctx, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
			defer cancel()
			_, err := Dial(dctx, &Options{Port: port, Home: home})
			wantNotOwner(t, err, port)
		})
	}
}

func TestDialWebSocketWithoutTokenFile(t *testing.T) {
	ctx := watchdog(t, 10*time.Second)
	ln, port := listen(t)
	up := websocket.Upgrader{}
	var sawOrigin []string
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sawOrigin = r.Header.Values("Origin")
		ws, err := up.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer ws.Close()
		ws.ReadMessage()
	})}
	go srv.Serve(ln)
	defer srv.Close()
	_, err := Dial(ctx, &Options{Port: port, Home: t.TempDir()})
	wantNotOwner(t, err, port)
	if !strings.Contains(err.Error(), "control token") {
		t.Errorf("message should mention the missing token: %v", err)
	}
	if len(sawOrigin) != 0 {
		t.Errorf("the forwarder sent an Origin header %q; the owner refuses those", sawOrigin)
	}
}

// proveAsOwner makes p answer the control proof as a monkbrowse owner
// holding token (DESIGN §5.4), announcing callSent when tells.
func proveAsOwner(p *messaging.Peer, token string, tells bool) {
	var mu sync.Mutex
	var nf, no string
	p.Handle(protocol.MsgFwdHello, func(_ context.Context, payload json.RawMessage) (any, error) {
		var h protocol.FwdHello
		if err := json.Unmarshal(payload, &h); err != nil {
			return nil, err
		}
		mu.Lock()
		defer mu.Unlock()
		nf, no = h.Nonce, protocol.NewNonce()
		return protocol.FwdHelloAck{OK: true, Version: protocol.Version, Auth: protocol.AuthScheme, Nonce: no,
			Proof: protocol.Proof(token, protocol.ProofLabelOwner, nf, no)}, nil
	})
	p.Handle(protocol.MsgFwdAuth, func(_ context.Context, payload json.RawMessage) (any, error) {
		var a protocol.FwdAuth
		if err := json.Unmarshal(payload, &a); err != nil {
			return nil, err
		}
		mu.Lock()
		defer mu.Unlock()
		if !protocol.CheckProof(token, protocol.ProofLabelForwarder, nf, no, a.Proof) {
			return protocol.FwdAuthAck{OK: false, Reason: "wrong control token"}, nil
		}
		return protocol.FwdAuthAck{OK: true, PID: 1, App: "test", CallSent: tells}, nil
	})
}

// recordingOwner is a WebSocket server on the control port that records
// every message it receives and answers the first one (fwd_hello) with
// reply(hello), as a squatter or an older owner would.
func recordingOwner(t *testing.T, reply func(hello messaging.Frame) string) (port int, received func() string) {
	t.Helper()
	ln, port := listen(t)
	var mu sync.Mutex
	var got strings.Builder
	up := websocket.Upgrader{}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ws, err := up.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer ws.Close()
		for first := true; ; first = false {
			_, data, err := ws.ReadMessage()
			if err != nil {
				return
			}
			mu.Lock()
			got.Write(data)
			got.WriteByte('\n')
			mu.Unlock()
			if f, err := messaging.DecodeFrame(data); first && err == nil {
				ws.WriteMessage(websocket.TextMessage, []byte(reply(f)))
			}
		}
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return port, func() string { mu.Lock(); defer mu.Unlock(); return got.String() }
}

// TestDialSquatterLearnsNothing: a listener that answers fwd_hello like a
// new owner but cannot compute the owner proof gets only the hello (pid,
// version, nonce): never the token, never a proof of ours, never fwd_auth.
// The error says the port is held by a program that is not our monkbrowse.
func TestDialSquatterLearnsNothing(t *testing.T) {
	const token = "5f0c9a3e7b1d2c4a6e8f0a1b3c5d7e9f11223344556677889900aabbccddeeff"
	for name, proof := range map[string]func(nf, no string) string{
		"random proof":    func(nf, no string) string { return protocol.NewNonce() },
		"no proof":        func(nf, no string) string { return "" },
		"wrong token":     func(nf, no string) string { return protocol.Proof("other", protocol.ProofLabelOwner, nf, no) },
		"forwarder label": func(nf, no string) string { return protocol.Proof("x", protocol.ProofLabelForwarder, nf, no) },
	} {
		t.Run(name, func(t *testing.T) {
			ctx := watchdog(t, 10*time.Second)
			port, received := recordingOwner(t, func(f messaging.Frame) string {
				var h protocol.FwdHello
				_ = json.Unmarshal(f.Payload, &h)
				no := protocol.NewNonce()
				ack, _ := json.Marshal(protocol.FwdHelloAck{OK: true, Version: protocol.Version, Auth: protocol.AuthScheme, Nonce: no, Proof: proof(h.Nonce, no)})
				return `{"k":"res","id":"` + f.ID + `","ok":true,"result":` + string(ack) + `}`
			})
			home := t.TempDir()
			writeToken(t, home, token)
			_, err := Dial(ctx, &Options{Port: port, Home: home})
			var no *NotOwnerError
			if !errors.As(err, &no) || !no.NotYours || !strings.Contains(err.Error(), "is held by a program that is not your monkbrowse") {
				t.Fatalf("Dial = %v, want NotOwnerError{NotYours}", err)
			}
			got := received()
			if strings.Contains(got, token) || strings.Contains(got, protocol.MsgFwdAuth) || strings.Contains(got, "proof") || strings.Contains(got, protocol.MsgCallTool) {
				t.Fatalf("the squatter received more than a hello:\n%s", got)
			}
			if strings.Count(got, "\n") != 1 || !strings.Contains(got, `"type":"fwd_hello"`) {
				t.Fatalf("the squatter should have received exactly one fwd_hello:\n%s", got)
			}
		})
	}
}

// TestDialOlderOwner: an owner from before the proof answers a hello
// without a token as it always did (rejected, no auth field): the
// forwarder says to update, at once, and never sends a token.
func TestDialOlderOwner(t *testing.T) {
	ctx := watchdog(t, 10*time.Second)
	port, received := recordingOwner(t, func(f messaging.Frame) string {
		return `{"k":"res","id":"` + f.ID + `","ok":true,"result":{"ok":false,"version":"0.3.0","reason":"missing control token"}}`
	})
	home := t.TempDir()
	writeToken(t, home, "abcdef0123456789")
	_, err := Dial(ctx, &Options{Port: port, Home: home})
	var old *OutdatedOwnerError
	if !errors.As(err, &old) || old.Version != "0.3.0" || !strings.Contains(err.Error(), "update: an AI app is running an older monkbrowse") {
		t.Fatalf("Dial = %v, want OutdatedOwnerError", err)
	}
	if got := received(); strings.Contains(got, "abcdef0123456789") {
		t.Fatalf("the token reached the old owner:\n%s", got)
	}
}
