package owner

import (
	"bytes"
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
	h, a, authID, secret, err := o.handshake(sock, foreign)
	release()
	if err != nil {
		// Debug: a flood of idle sockets must not flood stderr.
		o.log.Debug().Err(err).Str("remote", remote).Msg("extension socket closed before an accepted hello")
		_ = sock.Close()
		return
	}

	c := &conn{o: o, remote: remote, secret: secret}
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
	if err := o.sendResponse(sock, authID, ack); err != nil || !ack.OK {
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

// handshake runs the extension port's pairing exchange (DESIGN §5.2): a
// hello (version and the extension's nonce) answered with the server's
// nonce and proof, then an auth carrying the extension's proof and its
// profile. Nothing is admitted to the registry here: a client that cannot
// prove occupies no profile slot, only a pending socket until it is closed.
// A rejected hello or auth is answered with its ack before the error
// returns (the caller closes the socket).
func (o *Owner) handshake(sock messaging.PeerSocket, foreign string) (protocol.Hello, protocol.Auth, string, string, error) {
	ctx, cancel := context.WithTimeout(o.ctx, o.cfg.HelloTimeout)
	defer cancel()
	f, err := o.awaitRequest(ctx, sock, protocol.MsgHello, sayHelloFirst)
	if err != nil {
		return protocol.Hello{}, protocol.Auth{}, "", "", err
	}
	v := protocol.CheckHello(f.Payload, o.cfg.Version)
	if foreign != "" && !v.Legacy {
		// Only a 0.2 hello gets its "update the extension" answer
		// as is; any other hello from an untrusted id is refused.
		v.Accept = false
		v.Ack = protocol.RejectAck(o.cfg.Version, foreignReason(foreign))
	}
	var secret string
	if v.Accept {
		secret, err = o.pairingSecret()
		if err != nil {
			v.Accept = false
			v.Ack = protocol.RejectAck(o.cfg.Version, fmt.Sprintf(
				"this monkbrowse server cannot prove it is yours: it has no pairing secret (%v); fix the folder `monkbrowse doctor` names, then restart your AI app", err))
			o.log.Warn().Err(err).Msg("no pairing secret: every extension is refused")
		}
	}
	if !v.Accept {
		if foreign != "" {
			o.refusals.Refused("refused the hello of an extension that is not trusted",
				func(e netguard.Fields) { e.Str("extensionId", foreign) })
		} else {
			o.refusals.Refused("hello rejected", func(e netguard.Fields) { e.Str("reason", ackReason(v.Ack)) })
		}
		if err := o.sendResponse(sock, f.ID, v.Ack); err != nil {
			return protocol.Hello{}, protocol.Auth{}, "", "", err
		}
		return protocol.Hello{}, protocol.Auth{}, "", "", fmt.Errorf("hello rejected: %+v", v.Ack)
	}
	nonceServer := protocol.NewNonce()
	if v.Hello.CodeID != "" {
		return protocol.Hello{}, protocol.Auth{}, "", "", o.pairWithCode(ctx, sock, f.ID, v.Hello, nonceServer, secret)
	}
	if err := o.sendResponse(sock, f.ID, protocol.ProofAck(o.cfg.Version, secret, v.Hello.Nonce, nonceServer)); err != nil {
		return protocol.Hello{}, protocol.Auth{}, "", "", err
	}
	f, err = o.awaitRequest(ctx, sock, protocol.MsgAuth, sayAuthNext)
	if err != nil {
		return protocol.Hello{}, protocol.Auth{}, "", "", err
	}
	av := protocol.CheckAuth(f.Payload, o.cfg.Version, secret, v.Hello.Nonce, nonceServer)
	if !av.Accept {
		if av.Unproven {
			o.refusals.Refused(UnprovenClient, nil)
		} else {
			o.refusals.Refused("auth rejected", func(e netguard.Fields) { e.Str("reason", av.Ack.Reason) })
		}
		if err := o.sendResponse(sock, f.ID, av.Ack); err != nil {
			return protocol.Hello{}, protocol.Auth{}, "", "", err
		}
		return protocol.Hello{}, protocol.Auth{}, "", "", fmt.Errorf("auth rejected: %s", av.Ack.Reason)
	}
	return v.Hello, av.Auth, f.ID, secret, nil
}

// PairingCodes is where the owner finds the codes `monkbrowse pair`
// printed (control.PairingCodes).
type PairingCodes interface {
	// Lookup returns the key of a usable code, or why it cannot pair
	// (protocol.ErrPairCodeUnknown, ErrPairCodeUsed, ErrPairCodeExpired).
	Lookup(id string) (key string, err error)
	// Redeem marks the code used; only one Redeem of a code succeeds.
	Redeem(id string) error
}

// errCodeExchangeDone ends a code exchange's socket: it carried the sealed
// secret, never a profile; the extension connects again with the secret.
var errCodeExchangeDone = errors.New("code exchange done: the extension connects again with the pairing secret")

// pairWithCode runs the rest of a code exchange (protocol/paircode.go): the
// server proves it knows the code first, then the extension; the code is
// redeemed before the secret, sealed under a key of this exchange alone,
// is sent. The connection always ends (an error): a code exchange never
// becomes a profile.
func (o *Owner) pairWithCode(ctx context.Context, sock messaging.PeerSocket, helloID string, h protocol.Hello, nonceServer, secret string) error {
	var key string
	err := errors.New("this monkbrowse server does not pair with codes")
	if o.cfg.PairingCodes != nil {
		key, err = o.cfg.PairingCodes.Lookup(h.CodeID)
	}
	if err != nil {
		o.refusals.Refused("refused a pairing code", func(e netguard.Fields) { e.Str("why", err.Error()) })
		if serr := o.sendResponse(sock, helloID, protocol.RejectAck(o.cfg.Version, err.Error())); serr != nil {
			return serr
		}
		return fmt.Errorf("pairing code refused: %w", err)
	}
	if err := o.sendResponse(sock, helloID, protocol.CodeProofAck(o.cfg.Version, key, h.Nonce, nonceServer)); err != nil {
		return err
	}
	f, err := o.awaitRequest(ctx, sock, protocol.MsgPair, "send pair next: after a code hello's ack the extension proves it knows the code with a pair request")
	if err != nil {
		return err
	}
	if !protocol.CheckPair(f.Payload, key, h.Nonce, nonceServer) {
		// Not redeemed: whoever sent this knows the code's id, not the
		// code (an eavesdropper); the person's own paste still works.
		o.refusals.Refused(UnprovenClient+" (its pairing-code proof is wrong)", nil)
		if err := o.sendResponse(sock, f.ID, protocol.RejectAck(o.cfg.Version, "the extension could not prove it knows this pairing code: paste the code again")); err != nil {
			return err
		}
		return errors.New("pairing-code proof wrong")
	}
	if err := o.cfg.PairingCodes.Redeem(h.CodeID); err != nil {
		o.refusals.Refused("refused a pairing code", func(e netguard.Fields) { e.Str("why", err.Error()) })
		if serr := o.sendResponse(sock, f.ID, protocol.RejectAck(o.cfg.Version, err.Error())); serr != nil {
			return serr
		}
		return fmt.Errorf("pairing code refused: %w", err)
	}
	sealed, err := protocol.SealSecret(key, h.Nonce, nonceServer, secret)
	if err != nil {
		return err
	}
	ack := protocol.HelloAck{OK: true, Protocol: protocol.ProtocolVersion, ServerVersion: o.cfg.Version, Auth: protocol.AuthSchemeCode, Sealed: sealed}
	if err := o.sendResponse(sock, f.ID, ack); err != nil {
		return err
	}
	o.log.Info().Str("ext", h.ExtVersion).Msg("an extension paired with a one-time code")
	return errCodeExchangeDone
}

func (o *Owner) pairingSecret() (string, error) {
	if o.cfg.PairingSecret == nil {
		return "", errors.New("none was configured")
	}
	s, err := o.cfg.PairingSecret()
	if err == nil && s == "" {
		err = errors.New("the pairing secret is empty")
	}
	return s, err
}

// awaitRequest reads frames until a request of type typ arrives. It
// answers pings, refuses other requests with refusal, drops everything
// else, and gives up at ctx's deadline (the hello timeout).
func (o *Owner) awaitRequest(ctx context.Context, sock messaging.PeerSocket, typ, refusal string) (messaging.Frame, error) {
	for {
		data, err := sock.Receive(ctx)
		if err != nil {
			if errors.Is(context.Cause(ctx), context.DeadlineExceeded) {
				return messaging.Frame{}, fmt.Errorf("no %s within %s", typ, o.cfg.HelloTimeout)
			}
			return messaging.Frame{}, err
		}
		f, err := messaging.DecodeFrame(data)
		if err != nil {
			o.log.Debug().Err(err).Str("awaiting", typ).Msg("malformed frame before the handshake ended dropped")
			continue
		}
		switch f.K {
		case messaging.KindPing:
			if err := sock.Send(ctx, []byte(`{"k":"pog"}`)); err != nil {
				return messaging.Frame{}, err
			}
		case messaging.KindRequest:
			if f.Type != typ {
				if err := o.sendError(ctx, sock, f.ID, refusal); err != nil {
					return messaging.Frame{}, err
				}
				continue
			}
			return f, nil
		default:
			// Notifications and stray responses mean nothing before the
			// handshake ends.
		}
	}
}

func (o *Owner) sendResponse(sock messaging.PeerSocket, id string, result any) error {
	var raw bytes.Buffer
	enc := json.NewEncoder(&raw)
	enc.SetEscapeHTML(false) // the wire's one encoding rule, as messaging.Peer writes
	if err := enc.Encode(result); err != nil {
		return err
	}
	ok := true
	frame, err := messaging.Frame{K: messaging.KindResponse, ID: id, OK: &ok, Result: raw.Bytes()}.Encode()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(o.ctx, 5*time.Second)
	defer cancel()
	return sock.Send(ctx, frame)
}

func (o *Owner) sendError(ctx context.Context, sock messaging.PeerSocket, id, msg string) error {
	ok := false
	frame, err := messaging.Frame{K: messaging.KindResponse, ID: id, OK: &ok, Error: msg}.Encode()
	if err != nil {
		return err
	}
	return sock.Send(ctx, frame)
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
