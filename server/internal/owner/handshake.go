package owner

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/monkbrowse/monkbrowse/messaging"
	"github.com/monkbrowse/monkbrowse/protocol"
	"github.com/monkbrowse/monkbrowse/server/internal/netguard"
)

// handshakeResult is what an accepted extension-port handshake yields.
type handshakeResult struct {
	Hello protocol.Hello // the extension's hello (its version)
	Auth  protocol.Auth  // its proven auth: profile, tabs
	// AuthID is the auth request's id: the registry's ack answers it.
	AuthID string
	// Secret is the pairing secret the extension proved (a reset closes
	// the connection at its next ping).
	Secret string
}

// handshake runs the extension port's pairing exchange (DESIGN §5.2): a
// hello (version and the extension's nonce) answered with the server's
// nonce and proof, then an auth carrying the extension's proof and its
// profile. Nothing is admitted to the registry here: a client that cannot
// prove occupies no profile slot, only a pending socket until it is closed.
// A rejected hello or auth is answered with its ack before the error
// returns (the caller closes the socket).
func (o *Owner) handshake(sock messaging.PeerSocket, foreign string) (handshakeResult, error) {
	ctx, cancel := context.WithTimeout(o.ctx, o.cfg.HelloTimeout)
	defer cancel()
	f, err := o.awaitRequest(ctx, sock, protocol.MsgHello, sayHelloFirst)
	if err != nil {
		return handshakeResult{}, err
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
			return handshakeResult{}, err
		}
		return handshakeResult{}, fmt.Errorf("hello rejected: %+v", v.Ack)
	}
	nonceServer := protocol.NewNonce()
	if v.Hello.CodeID != "" {
		return handshakeResult{}, o.pairWithCode(ctx, sock, f.ID, v.Hello, nonceServer, secret)
	}
	if err := o.sendResponse(sock, f.ID, protocol.ProofAck(o.cfg.Version, secret, v.Hello.Nonce, nonceServer)); err != nil {
		return handshakeResult{}, err
	}
	f, err = o.awaitRequest(ctx, sock, protocol.MsgAuth, sayAuthNext)
	if err != nil {
		return handshakeResult{}, err
	}
	av := protocol.CheckAuth(f.Payload, o.cfg.Version, secret, v.Hello.Nonce, nonceServer)
	if !av.Accept {
		if av.Unproven {
			o.refusals.Refused(UnprovenClient, nil)
		} else {
			o.refusals.Refused("auth rejected", func(e netguard.Fields) { e.Str("reason", av.Ack.Reason) })
		}
		if err := o.sendResponse(sock, f.ID, av.Ack); err != nil {
			return handshakeResult{}, err
		}
		return handshakeResult{}, fmt.Errorf("auth rejected: %s", av.Ack.Reason)
	}
	return handshakeResult{Hello: v.Hello, Auth: av.Auth, AuthID: f.ID, Secret: secret}, nil
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
