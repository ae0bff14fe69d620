package forwarder

import (
	"bufio"
	"context"
	"errors"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

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
