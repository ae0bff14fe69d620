package protocol

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
)

// The control port's mutual proof (DESIGN §5.4, issue 23). Neither side
// sends the control token: each proves it holds it with an HMAC-SHA256,
// keyed with the token's text exactly as read from the token file (without
// surrounding whitespace), over a label that names the direction followed
// by both sides' nonces as raw bytes:
//
//	ownerProof     = HMAC-SHA256(token, ProofLabelOwner     || nonceForwarder || nonceOwner)
//	forwarderProof = HMAC-SHA256(token, ProofLabelForwarder || nonceForwarder || nonceOwner)
//
// The nonces are NonceSize fresh random bytes each, so neither proof can be
// replayed on another connection, and the labels differ, so the owner's
// proof cannot be reflected back as the forwarder's. The owner proves
// first: a forwarder sends nothing more (no proof, no call) to a listener
// that cannot.
const (
	ProofLabelOwner     = "monkbrowse control owner-proof v1"
	ProofLabelForwarder = "monkbrowse control forwarder-proof v1"
	// The extension port's labels (issue 24): the same construction keyed
	// with the pairing secret, with the extension's nonce first and the
	// server's second. They differ from the control port's, so a transcript
	// of one port is never a valid proof on the other even if the two
	// secrets were equal, and from each other, so the server's proof cannot
	// be reflected back as the extension's.
	ProofLabelServer    = "monkbrowse extension server-proof v1"
	ProofLabelExtension = "monkbrowse extension extension-proof v1"
	// NonceSize is the length of each side's nonce in bytes; on the wire a
	// nonce is 2*NonceSize lower-case hex digits, and so is a proof
	// (sha256.Size bytes).
	NonceSize = 32
	// AuthScheme names this exchange in every fwd_hello ack (FwdHelloAck.Auth).
	AuthScheme = "hmac-sha256-v1"
)

// MaxUnprovenFrame bounds every frame a connection sends before it has
// proven itself (control port: both proofs; extension port: an accepted
// hello). 1 MiB holds a hello with hundreds of tabs, so even an outdated or
// foreign extension still gets its explicit rejection; after the proof the
// port's normal limit applies.
const MaxUnprovenFrame = 1 << 20

// NewNonce returns a fresh random nonce in its wire form (hex).
func NewNonce() string {
	b := make([]byte, NonceSize)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24+)
	return hex.EncodeToString(b)
}

// DecodeNonce checks a nonce's wire form: exactly 2*NonceSize hex digits.
func DecodeNonce(s string) ([]byte, error) {
	if len(s) != 2*NonceSize {
		return nil, fmt.Errorf("nonce must be %d hex digits, got %d characters", 2*NonceSize, len(s))
	}
	b, err := hex.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("nonce is not hex: %v", err)
	}
	return b, nil
}

// Proof computes a proof (label is one of the ProofLabel constants; the
// first nonce is the connecting side's, the second the listener's) in its
// wire form, or "" when a nonce is not a valid nonce.
func Proof(token, label, nonceForwarder, nonceOwner string) string {
	nf, err1 := DecodeNonce(nonceForwarder)
	no, err2 := DecodeNonce(nonceOwner)
	if err1 != nil || err2 != nil {
		return ""
	}
	m := hmac.New(sha256.New, []byte(token))
	m.Write([]byte(label))
	m.Write(nf)
	m.Write(no)
	return hex.EncodeToString(m.Sum(nil))
}

// CheckProof reports, in constant time, whether proof is the proof of label
// over the two nonces under token. A malformed proof or nonce is false.
func CheckProof(token, label, nonceForwarder, nonceOwner, proof string) bool {
	want := Proof(token, label, nonceForwarder, nonceOwner)
	if want == "" || len(proof) != len(want) {
		return false
	}
	got, err := hex.DecodeString(proof)
	if err != nil {
		return false
	}
	w, _ := hex.DecodeString(want)
	return hmac.Equal(got, w)
}
