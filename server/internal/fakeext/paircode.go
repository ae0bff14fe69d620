package fakeext

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/monkbrowse/monkbrowse/messaging"
	"github.com/monkbrowse/monkbrowse/messaging/wsconn"
	"github.com/monkbrowse/monkbrowse/protocol"
)

// PairWithCode runs the extension's side of a code exchange
// (protocol/paircode.go) against url with the code the person would paste,
// and returns the pairing secret the server sealed for it. A refusal is a
// *RejectedError; a server that cannot prove it knows the code is an
// *UnprovenServerError (nothing more is sent to it).
func PairWithCode(ctx context.Context, url, origin, pasted string) (string, error) {
	code, err := protocol.NormalizePairCode(pasted)
	if err != nil {
		return "", err
	}
	key := protocol.PairCodeKey(code)
	ws, err := Dial(ctx, url, origin)
	if err != nil {
		return "", err
	}
	peer := messaging.NewPeer(wsconn.New(ws, &wsconn.Options{ReadLimit: -1}), nil)
	peer.Start()
	defer peer.Close()
	nonce := protocol.NewNonce()
	hctx, cancel := messaging.WithRequestTimeout(ctx, protocol.MsgHello, protocol.HelloTimeout)
	defer cancel()
	raw, err := peer.Request(hctx, protocol.MsgHello, protocol.Hello{Protocol: protocol.ProtocolVersion, ExtVersion: protocol.Version, Nonce: nonce, CodeID: protocol.PairCodeID(code)})
	if err != nil {
		return "", fmt.Errorf("fakeext: code hello: %w", err)
	}
	var ack protocol.HelloAck
	if err := json.Unmarshal(raw, &ack); err != nil {
		return "", fmt.Errorf("fakeext: code hello ack %s: %w", raw, err)
	}
	if !ack.OK {
		return "", &RejectedError{Ack: ack}
	}
	if ack.Auth != protocol.AuthSchemeCode || !protocol.CheckProof(key, protocol.ProofLabelCodeServer, nonce, ack.Nonce, ack.Proof) {
		return "", &UnprovenServerError{Ack: ack}
	}
	pctx, cancel2 := messaging.WithRequestTimeout(ctx, protocol.MsgPair, protocol.HelloTimeout)
	defer cancel2()
	raw, err = peer.Request(pctx, protocol.MsgPair, protocol.PairRequest{Proof: protocol.Proof(key, protocol.ProofLabelCodeExtension, nonce, ack.Nonce)})
	if err != nil {
		return "", fmt.Errorf("fakeext: pair: %w", err)
	}
	var sealed protocol.HelloAck
	if err := json.Unmarshal(raw, &sealed); err != nil {
		return "", fmt.Errorf("fakeext: pair ack %s: %w", raw, err)
	}
	if !sealed.OK {
		return "", &RejectedError{Ack: sealed}
	}
	return protocol.OpenSealed(key, nonce, ack.Nonce, sealed.Sealed)
}
