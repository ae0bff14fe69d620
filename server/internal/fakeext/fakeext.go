// Package fakeext is a fake monkbrowse extension for tests: it speaks the
// real protocol (messaging.Peer over a real gorilla WebSocket through
// wsconn), says hello like the extension does, holds scripted tabs (shared
// or not, with slots, URLs and titles) and a tiny model of each page
// (elements with refs, input values, checked state, text), and answers every
// wire message of DESIGN §5.1 by changing that model.
//
// Tests steer it: [Ext.SetHook] sees every request before it is answered
// and may hold it (block on a channel), fail it or disconnect the socket;
// [Ext.Requests] and [Ext.Order] record what arrived; [Ext.ShareTab],
// [Ext.SetShared], [Ext.RemoveTab], [Ext.SetText] and [Ext.SendTabsChanged]
// change the browser under the server; [Ext.SetIgnorePings] makes it stop
// answering pings.
//
// All methods are safe for concurrent use.
package fakeext

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"

	"github.com/gorilla/websocket"

	"github.com/monkbrowse/monkbrowse/messaging"
	"github.com/monkbrowse/monkbrowse/messaging/wsconn"
	"github.com/monkbrowse/monkbrowse/protocol"
)

// Options configures a fake extension. Zero fields mean defaults.
type Options struct {
	// URL is the server's extension endpoint, e.g. ws://127.0.0.1:9222/.
	URL string
	// Origin is sent as the Origin header; empty sends none.
	Origin string
	// ProfileID identifies the profile; empty means a random id.
	ProfileID string
	// Label and Slug are sent in the hello (Slug re-announces an earlier
	// assignment); ChromeProfileName too.
	Label, Slug, ChromeProfileName string
	// ExtVersion defaults to protocol.Version.
	ExtVersion string
	// Protocol is the hello's protocol number; 0 means
	// protocol.ProtocolVersion.
	Protocol int
	// Paused says in the auth that the person paused the AI in this
	// profile (see [Ext.SetPaused]).
	Paused bool
	// Tabs are the browser's tabs. Nil means one shared, active tab
	// (id 101, slot 1) at https://example.com/.
	Tabs []Tab
	// PageFor builds the page a URL shows. Nil means DefaultPage.
	PageFor func(url string) Page
	// TitleFor names a URL's page. Nil means DefaultTitle.
	TitleFor func(url string) string
	// Evaluate answers browser_evaluate. Nil: "document.title" and
	// "location.href" are answered from the tab, anything else with
	// {"expression": expr}.
	Evaluate func(tab Tab, expr string) (any, error)
	// Logger receives the peer's diagnostics; nil discards them.
	Logger *slog.Logger
	// Secret is the pairing secret the fake proves; empty reads it from
	// the pairing file under Home (protocol.PairingPath), as any program of
	// the same user may.
	Secret string
	// Home is the home folder whose pairing file is read when Secret is
	// empty; empty means the current user's.
	Home string
	// IgnoreServerProof sends the auth even when the server's proof does
	// not hold: an impostor that does not care whom it talks to.
	IgnoreServerProof bool
	// Hook, if set, is installed before the hello, so it sees the very
	// first request (SetHook changes it later).
	Hook Hook
}

// UnprovenServerError is returned by Connect when the server's proof in its
// hello ack does not hold: the fake said nothing about its profile or tabs.
type UnprovenServerError struct{ Ack protocol.HelloAck }

func (e *UnprovenServerError) Error() string {
	return "fakeext: the server could not prove it holds the pairing secret; no profile or tab was sent"
}

// RejectedError is returned by Connect when the server rejected the hello
// or the auth.
type RejectedError struct{ Ack protocol.HelloAck }

func (e *RejectedError) Error() string { return "fakeext: hello rejected: " + e.Ack.Reason }

// Ext is a connected fake extension.
type Ext struct {
	opts  Options
	peer  *messaging.Peer
	sock  *muteSocket
	ack   protocol.HelloAck
	id    string
	hello protocol.Auth

	mu       sync.Mutex
	tabs     []*Tab
	nextTab  int
	reqs     []Request
	hook     Hook
	failNext map[string]string
	dropOn   map[string]bool
	paused   bool // the whole profile, as last told (SetPaused)
	refused  []protocol.Refused
	// refusedMore is closed (and replaced) when a refused notify arrives.
	refusedMore chan struct{}
}

// Connect dials the server, says hello and returns once the hello was
// accepted. A rejected hello is a *RejectedError (the socket is closed).
func Connect(ctx context.Context, opts Options) (*Ext, error) {
	if opts.ProfileID == "" {
		var b [8]byte
		_, _ = rand.Read(b[:])
		opts.ProfileID = "fake-" + hex.EncodeToString(b[:])
	}
	if opts.ExtVersion == "" {
		opts.ExtVersion = protocol.Version
	}
	if opts.Protocol == 0 {
		opts.Protocol = protocol.ProtocolVersion
	}
	if opts.PageFor == nil {
		opts.PageFor = DefaultPage
	}
	if opts.TitleFor == nil {
		opts.TitleFor = DefaultTitle
	}
	tabs := opts.Tabs
	if tabs == nil {
		tabs = []Tab{{ID: 101, WindowID: 1, Shared: true, Slot: 1, Active: true, URL: "https://example.com/"}}
	}
	e := &Ext{opts: opts, id: opts.ProfileID, failNext: map[string]string{}, dropOn: map[string]bool{}, hook: opts.Hook}
	for i := range tabs {
		t := tabs[i]
		e.initTab(&t)
		e.tabs = append(e.tabs, &t)
		if t.ID >= e.nextTab {
			e.nextTab = t.ID + 1
		}
	}
	if e.nextTab < 1000 {
		e.nextTab = 1000
	}

	ws, err := Dial(ctx, opts.URL, opts.Origin)
	if err != nil {
		return nil, err
	}
	e.sock = &muteSocket{PeerSocket: wsconn.New(ws, &wsconn.Options{ReadLimit: -1})}
	e.peer = messaging.NewPeer(e.sock, &messaging.Options{Logger: opts.Logger})
	for _, w := range protocol.WireMessages {
		typ := w.Type
		e.peer.Handle(typ, func(ctx context.Context, payload json.RawMessage) (any, error) {
			return e.serve(ctx, typ, payload)
		})
	}
	e.peer.HandleNotify(protocol.MsgRefused, func(_ context.Context, payload json.RawMessage) {
		var r protocol.Refused
		if json.Unmarshal(payload, &r) == nil {
			e.mu.Lock()
			e.refused = append(e.refused, r)
			if e.refusedMore != nil {
				close(e.refusedMore)
				e.refusedMore = nil
			}
			e.mu.Unlock()
		}
	})
	e.peer.Start()

	secret := opts.Secret
	if secret == "" {
		path, err := protocol.PairingPath(opts.Home)
		if err == nil {
			secret, err = protocol.ReadPairingSecret(path)
		}
		if err != nil && !opts.IgnoreServerProof {
			_ = e.peer.Close()
			return nil, fmt.Errorf("fakeext: %w", err)
		}
	}
	nonce := protocol.NewNonce()
	hctx, cancel := messaging.WithRequestTimeout(ctx, protocol.MsgHello, protocol.HelloTimeout)
	defer cancel()
	raw, err := e.peer.Request(hctx, protocol.MsgHello, protocol.Hello{Protocol: opts.Protocol, ExtVersion: opts.ExtVersion, Nonce: nonce})
	if err != nil {
		_ = e.peer.Close()
		return nil, fmt.Errorf("fakeext: hello: %w", err)
	}
	var hack protocol.HelloAck
	if err := json.Unmarshal(raw, &hack); err != nil {
		_ = e.peer.Close()
		return nil, fmt.Errorf("fakeext: hello ack %s: %w", raw, err)
	}
	if !hack.OK {
		_ = e.peer.Close()
		return nil, &RejectedError{Ack: hack}
	}
	if !protocol.CheckProof(secret, protocol.ProofLabelServer, nonce, hack.Nonce, hack.Proof) && !opts.IgnoreServerProof {
		_ = e.peer.Close()
		return nil, &UnprovenServerError{Ack: hack}
	}

	e.mu.Lock()
	e.hello = protocol.Auth{
		Proof:     protocol.Proof(secret, protocol.ProofLabelExtension, nonce, hack.Nonce),
		ProfileID: opts.ProfileID, Label: opts.Label, Slug: opts.Slug,
		ChromeProfileName: opts.ChromeProfileName, Tabs: e.sharedLocked(), Paused: opts.Paused,
	}
	e.paused = opts.Paused
	auth := e.hello
	e.mu.Unlock()
	actx, cancel2 := messaging.WithRequestTimeout(ctx, protocol.MsgAuth, protocol.HelloTimeout)
	defer cancel2()
	raw, err = e.peer.Request(actx, protocol.MsgAuth, auth)
	if err != nil {
		_ = e.peer.Close()
		return nil, fmt.Errorf("fakeext: auth: %w", err)
	}
	if err := json.Unmarshal(raw, &e.ack); err != nil {
		_ = e.peer.Close()
		return nil, fmt.Errorf("fakeext: auth ack %s: %w", raw, err)
	}
	if !e.ack.OK {
		_ = e.peer.Close()
		return nil, &RejectedError{Ack: e.ack}
	}
	return e, nil
}

// Dial opens a WebSocket to url with the given Origin header (none when
// empty). Tests that speak raw frames use it too.
func Dial(ctx context.Context, url, origin string) (*websocket.Conn, error) {
	h := http.Header{}
	if origin != "" {
		h.Set("Origin", origin)
	}
	d := websocket.Dialer{}
	ws, resp, err := d.DialContext(ctx, url, h)
	if err != nil {
		if resp != nil {
			return nil, &DialError{Status: resp.StatusCode, Err: err}
		}
		return nil, fmt.Errorf("fakeext: dial %s: %w", url, err)
	}
	return ws, nil
}

// DialError is a refused WebSocket upgrade, with the HTTP status.
type DialError struct {
	Status int
	Err    error
}

func (e *DialError) Error() string {
	return fmt.Sprintf("fakeext: upgrade refused with HTTP %d: %v", e.Status, e.Err)
}
func (e *DialError) Unwrap() error { return e.Err }

// Ack is the server's accepting hello_ack.
func (e *Ext) Ack() protocol.HelloAck { return e.ack }

// ProfileID is the profile id the fake said hello with.
func (e *Ext) ProfileID() string { return e.id }

// Close closes the socket (with a normal close frame) and waits for the
// fake's goroutines.
func (e *Ext) Close() error { return e.peer.Close() }

// Done is closed once the connection is over, whichever side ended it.
func (e *Ext) Done() <-chan struct{} { return e.peer.Done() }

// serve answers one request: record, hook, then the page model.
func (e *Ext) serve(ctx context.Context, typ string, payload json.RawMessage) (any, error) {
	var tid struct {
		TabID int `json:"tabId"`
	}
	_ = json.Unmarshal(payload, &tid)
	if typ == protocol.MsgPersonEdits {
		// The server's own question at the start of each call's turn
		// (issue 29): the fake's person never edits, and the question is
		// not one of the requests tests look at.
		return protocol.PersonEditsResult{TabID: tid.TabID}, nil
	}
	e.mu.Lock()
	r := Request{Seq: len(e.reqs) + 1, Type: typ, TabID: tid.TabID, Payload: append(json.RawMessage(nil), payload...)}
	e.reqs = append(e.reqs, r)
	hook := e.hook
	drop := e.dropOn[typ]
	delete(e.dropOn, typ)
	failMsg, fail := e.failNext[typ]
	delete(e.failNext, typ)
	e.mu.Unlock()

	if drop {
		_ = e.sock.Close() // the read loop ends and the peer closes
		<-ctx.Done()
		return nil, errors.New("disconnected")
	}
	if hook != nil {
		if err := hook(ctx, r); err != nil {
			return nil, err
		}
	}
	if fail {
		return nil, errors.New(failMsg)
	}
	res, notify, err := e.apply(typ, payload)
	if notify {
		go func() { _ = e.SendTabsChanged(context.Background()) }()
	}
	return res, err
}

// muteSocket counts incoming pings and drops them while mute is set, so that
// the server sees a peer that stopped answering.
type muteSocket struct {
	messaging.PeerSocket
	mute  atomic.Bool
	pings atomic.Int64
}

func (s *muteSocket) Receive(ctx context.Context) ([]byte, error) {
	for {
		b, err := s.PeerSocket.Receive(ctx)
		if err != nil || !bytes.Equal(bytes.TrimSpace(b), []byte(`{"k":"png"}`)) {
			return b, err
		}
		s.pings.Add(1)
		if !s.mute.Load() {
			return b, err
		}
	}
}
