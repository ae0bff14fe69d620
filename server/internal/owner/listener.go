package owner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/gorilla/websocket"

	"github.com/monkbrowse/monkbrowse/messaging"
	"github.com/monkbrowse/monkbrowse/messaging/wsconn"
	"github.com/monkbrowse/monkbrowse/protocol"
	"github.com/monkbrowse/monkbrowse/server/internal/netguard"
)

// sayHelloFirst answers any request sent before an accepted hello.
const sayHelloFirst = "say hello first: the first request on a monkbrowse socket must be hello"

// sayAuthNext answers any request between an accepted hello and the auth.
const sayAuthNext = "send auth next: after the hello's ack the extension proves the pairing with an auth request"

// UnprovenClient is what the server log and doctor say about a client of
// the extension port whose auth did not prove the pairing secret.
const UnprovenClient = "a client on the extension port could not prove it is your monkbrowse extension"

// serveHTTP accepts extension WebSockets (any path) and answers anything
// else with a short plain-text note.
func (o *Owner) serveHTTP(w http.ResponseWriter, r *http.Request) {
	// A DNS-rebinding page reaches 127.0.0.1 under its own host name: only
	// loopback names are served, on any port (port forwards keep working).
	if !netguard.LoopbackHost(r.Host) {
		o.refusals.Refused("refused a request whose Host is not a loopback name",
			func(e netguard.Fields) { e.Str("host", r.Host).Str("remote", r.RemoteAddr) })
		http.Error(w, netguard.HostRefusal, http.StatusForbidden)
		return
	}
	w.Header().Set(protocol.HeaderServer, o.cfg.Version)
	if !websocket.IsWebSocketUpgrade(r) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusUpgradeRequired)
		fmt.Fprintf(w, "monkbrowse %s: this port is for the monkbrowse browser extension (WebSocket, protocol %d).\n", o.cfg.Version, protocol.ProtocolVersion)
		return
	}
	foreign, reason := o.checkOrigin(r.Header.Get("Origin"))
	if reason != "" {
		o.refusals.Refused("refused a WebSocket from a web page's origin",
			func(e netguard.Fields) { e.Str("origin", r.Header.Get("Origin")).Str("remote", r.RemoteAddr) })
		http.Error(w, reason, http.StatusForbidden)
		return
	}
	// Another user's program was refused before its first byte was read
	// (netguard.Gate).
	up := websocket.Upgrader{
		HandshakeTimeout: 10 * time.Second,
		CheckOrigin:      func(*http.Request) bool { return true }, // checked above
	}
	ws, err := up.Upgrade(w, r, nil)
	if err != nil {
		o.log.Debug().Err(err).Msg("WebSocket upgrade failed")
		return // the upgrader has answered
	}
	o.mu.Lock()
	if o.stopping() {
		o.mu.Unlock()
		_ = ws.Close()
		return
	}
	o.wg.Add(1)
	o.mu.Unlock()
	defer o.wg.Done()
	// Until its hello is accepted the socket may send frames of at most
	// protocol.MaxUnprovenFrame (a hello with many tabs still fits, so an
	// outdated or foreign extension still gets its explicit rejection) and
	// counts against the port's cap of pending sockets; beyond it the
	// oldest pending socket is closed.
	sock := wsconn.New(ws, &wsconn.Options{ReadLimit: o.cfg.ReadLimit, UnprovenLimit: protocol.MaxUnprovenFrame})
	release := o.pending.Add(func() { _ = sock.Close() })
	o.accept(sock, r.RemoteAddr, foreign, release)
}

// UnpackedExtensionID is the id of the extension built from this
// repository (its manifest carries a fixed key; extension/EXTENSION_ID).
const UnpackedExtensionID = "emkgfnickjohaibbledibfemnfkoamdj"

// StoreExtensionID is the id of the Chrome Web Store build, once it is
// published; empty until then.
const StoreExtensionID = ""

// PinnedExtensionIDs are the extension ids the extension port trusts
// without any flag.
func PinnedExtensionIDs() []string {
	var ids []string
	for _, id := range []string{UnpackedExtensionID, StoreExtensionID} {
		if id != "" {
			ids = append(ids, id)
		}
	}
	return ids
}

// CheckExtensionID returns nil when id is a Chrome extension id: exactly 32
// letters from a to p (Chrome writes the first 128 bits of the SHA-256 of
// the extension's public key in those letters), and otherwise an error that
// says so. --allow-extension-id values pass through it before they reach the
// Origin check or a native host's allowed_origins.
func CheckExtensionID(id string) error {
	bad := len(id) != 32
	for _, r := range id {
		if r < 'a' || r > 'p' {
			bad = true
		}
	}
	if bad {
		return fmt.Errorf("%q is not a Chrome extension id: an id is 32 lower-case letters from a to p, as chrome://extensions shows it (Developer mode on), e.g. %s", protocol.Cut(id, 64), UnpackedExtensionID)
	}
	return nil
}

// checkOrigin applies the Origin policy of DESIGN §8. No Origin (native
// programs, tests: same-user processes are trusted) and the pinned
// extension ids plus those given with --allow-extension-id are accepted.
// Another chrome-extension:// origin is upgraded only to be told, in answer
// to its hello, that it is not accepted (foreign is its id): that is how an
// old monkbrowse extension with another id learns to update. Anything else
// — a web page — is refused with reason.
func (o *Owner) checkOrigin(origin string) (foreign, reason string) {
	if origin == "" {
		return "", ""
	}
	u, err := url.Parse(origin)
	if err != nil || u.Scheme != "chrome-extension" || u.Host == "" {
		return "", "monkbrowse: WebSocket connections from web pages are refused; only the monkbrowse extension may connect"
	}
	for _, id := range append(PinnedExtensionIDs(), o.cfg.AllowedExtensionIDs...) {
		if strings.EqualFold(strings.TrimSpace(id), u.Host) {
			return "", ""
		}
	}
	return u.Host, ""
}

// ackReason is the reason of a rejected hello's ack, for the log.
func ackReason(ack any) string {
	switch a := ack.(type) {
	case protocol.HelloAck:
		return a.Reason
	case protocol.LegacyHelloAck:
		return a.Reason
	}
	return ""
}

// foreignReason answers the hello of an extension whose id is not trusted.
// Only a real extension id (32 letters, CheckExtensionID) is named, for the
// flag that would trust it; anything else an Origin carries is not echoed
// (issue 40: an Origin is a few KiB of whatever the client wrote).
func foreignReason(id string) string {
	if CheckExtensionID(id) != nil {
		return fmt.Sprintf("This client's origin names no Chrome extension id, and it is not the monkbrowse extension this server trusts (%s), so it may not connect. "+
			"Install or update the monkbrowse extension.", strings.Join(PinnedExtensionIDs(), ", "))
	}
	return fmt.Sprintf("This extension (id %s) is not the monkbrowse extension this server trusts (%s), so it may not connect. "+
		"Install or update the monkbrowse extension; if this is your own build of it, start monkbrowse with --allow-extension-id %s.",
		id, strings.Join(PinnedExtensionIDs(), ", "), id)
}

// accept runs the hello handshake on a fresh socket and, once accepted,
// hands the socket to a Peer.
func (o *Owner) accept(sock *wsconn.Conn, remote, foreign string, release func()) {
	hs, err := o.handshake(sock, foreign)
	release()
	h, a := hs.Hello, hs.Auth
	if err != nil {
		// Debug: a flood of idle sockets must not flood stderr.
		o.log.Debug().Err(err).Str("remote", remote).Msg("extension socket closed before an accepted hello")
		_ = sock.Close()
		return
	}

	c := &conn{o: o, remote: remote, secret: hs.Secret}
	// connClosed (the peer's OnClose, run on the peer's own goroutine) is
	// counted too, so that Shutdown returns only after it has run.
	o.wg.Add(1)
	c.peer = messaging.NewPeer(sock, &messaging.Options{
		Logger:  o.slog,
		OnClose: func(err error) { o.connClosed(c, err) },
	})
	ack := o.reg.admit(a, c, o.cfg.Version)
	if ack.OK {
		// Accepted: full-size frames (screenshots) from now on; raised
		// before the ack leaves, and the extension answers requests
		// only after it.
		sock.RaiseReadLimit()
	}
	if err := o.sendResponse(sock, hs.AuthID, ack); err != nil || !ack.OK {
		if !ack.OK {
			o.refusals.Refused("hello rejected",
				func(e netguard.Fields) { e.Str("profile", a.ProfileID).Str("reason", ack.Reason) })
		}
		o.reg.drop(c)
		_ = c.peer.Close()
		return
	}
	// Handlers go in before Start so that nothing the extension sends
	// after its ack finds them missing.
	for _, typ := range []string{protocol.MsgHello, protocol.MsgAuth} {
		c.peer.Handle(typ, func(context.Context, json.RawMessage) (any, error) {
			return nil, errors.New("hello was already accepted on this socket; open a new socket to say hello again")
		})
	}
	c.peer.HandleNotify(protocol.MsgTabsChanged, func(_ context.Context, payload json.RawMessage) {
		var tc protocol.TabsChanged
		if err := json.Unmarshal(payload, &tc); err != nil {
			o.log.Warn().Err(err).Str("profile", c.slug).Msg("malformed tabs_changed dropped")
			return
		}
		// Calls waiting for the turn of a tab that left the shared tabs
		// are never sent (issue 21); the extension stops the running one.
		for _, t := range o.reg.setTabs(c, tc.Tabs) {
			if n := o.gate.abortQueued(c.prof.id, t.TabID, unsharedAbort(fmt.Sprintf("tab %d", t.Slot))); n > 0 {
				o.log.Debug().Str("profile", c.slug).Int("tabId", t.TabID).Int("calls", n).Msg(LogUnsharedQueuedAborted)
			}
		}
		o.applyPause(c, tc.Paused, tc.Tabs)
		o.reg.setRules(c, tc.Policy, tc.Left)
	})
	o.mu.Lock()
	if o.stopping() {
		o.mu.Unlock()
		o.reg.drop(c)
		_ = c.peer.Close()
		return
	}
	o.sockets[c] = struct{}{}
	o.mu.Unlock()
	c.peer.Start()
	old, ok := o.reg.activate(c)
	if !ok {
		_ = c.peer.Close()
		return
	}
	// Calls that waited for this profile to come back are not sent if
	// it comes back paused.
	o.applyAuthPause(c)
	if old != nil {
		o.log.Info().Str("profile", c.slug).Msg("a new socket replaced the profile's old one")
		o.wg.Add(1)
		go func() { defer o.wg.Done(); _ = old.peer.Close() }()
	}
	o.log.Info().Str("profile", c.slug).Str("label", ack.AssignedLabel).Str("ext", h.ExtVersion).Int("tabs", len(a.Tabs)).Msg("extension connected")
	if o.cfg.PingInterval > 0 {
		o.wg.Add(1)
		go o.keepAlive(c)
	}
}

// connClosed runs once a connection's peer has closed: the profile keeps its
// record and its queues; a queued call whose turn comes waits for the
// profile's reconnect (browser.onTab).
func (o *Owner) connClosed(c *conn, err error) {
	defer o.wg.Done()
	o.reg.drop(c)
	o.mu.Lock()
	delete(o.sockets, c)
	o.mu.Unlock()
	o.log.Info().Str("profile", c.slug).AnErr("why", err).Msg("extension disconnected")
}

// LogUnpaired is the server log's line when `monkbrowse pair --reset`
// replaced the secret a live connection proved.
const LogUnpaired = "the pairing secret was replaced (monkbrowse pair --reset): closed a connection proven with the old one"

// unpaired closes c when the pairing secret is no longer the one c proved
// (`monkbrowse pair --reset` from another process, or the file removed):
// checked at each ping, so a reset disconnects within PingInterval. An
// unreadable secret keeps the connection: a folder that turned unsafe is
// reported at the next hello.
func (o *Owner) unpaired(c *conn) bool {
	s, err := o.pairingSecret()
	if err != nil || s == c.secret {
		return false
	}
	o.log.Warn().Str("profile", c.slug).Msg(LogUnpaired)
	_ = c.peer.Close()
	return true
}

// keepAlive pings the extension every PingInterval and closes the
// connection after MissedPongs pings in a row went unanswered: a laptop
// that slept or a network that dropped the socket silently would otherwise
// keep the profile "connected" forever.
func (o *Owner) keepAlive(c *conn) {
	defer o.wg.Done()
	t := time.NewTicker(o.cfg.PingInterval)
	defer t.Stop()
	missed := 0
	for {
		select {
		case <-c.peer.Done():
			return
		case <-o.ctx.Done():
			return
		case <-t.C:
		}
		if o.unpaired(c) {
			return
		}
		ctx, cancel := context.WithTimeout(o.ctx, o.cfg.PongTimeout)
		err := c.peer.Ping(ctx)
		cancel()
		switch {
		case err == nil:
			missed = 0
		case errors.Is(err, messaging.ErrClosed), o.ctx.Err() != nil:
			return
		default:
			missed++
			o.log.Debug().Str("profile", c.slug).Int("missed", missed).Msg("ping unanswered")
			if missed >= o.cfg.MissedPongs {
				o.log.Warn().Str("profile", c.slug).Int("missed", missed).Msg("extension stopped answering pings; closing its socket")
				_ = c.peer.Close()
				return
			}
		}
	}
}
