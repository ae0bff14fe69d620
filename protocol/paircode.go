package protocol

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// One-time pairing codes (issue 24, DESIGN §5.2): for a
// monkbrowse that runs where the extension's native-messaging host cannot
// reach (WSL, a container, over SSH), `monkbrowse pair` prints a code that
// the person pastes into the extension's options. The code is never sent,
// and never used as a key itself: both sides derive from it, with
// HMAC-SHA256 keyed with the code's canonical text,
//
//	codeId  = first 16 bytes of HMAC(code, PairCodeLabelID)     (hex, names the code)
//	codeKey = HMAC(code, PairCodeLabelKey)                      (hex text, the proofs' key)
//
// and run the extension port's exchange with codeKey in place of the
// pairing secret and labels of their own:
//
//	extension → hello {protocol, extVersion, nonce, codeId}
//	server    → {ok, auth: AuthSchemeCode, nonce, proof: HMAC(codeKey, ProofLabelCodeServer || ne || ns)}
//	extension → pair {proof: HMAC(codeKey, ProofLabelCodeExtension || ne || ns)}
//	server    → {ok, sealed: AES-256-GCM(sealKey, secret)}, then closes the socket
//
// with sealKey = HMAC(codeKey, PairCodeLabelSeal || ne || ns): a fresh key
// for each exchange, known only to the two ends. The server marks the code
// used before it sends the sealed secret, so a code pairs once; the
// extension keeps the secret for this port and connects with it as usual.
const (
	// MsgPair is the extension's second request on a code exchange.
	MsgPair = "pair"
	// AuthSchemeCode names the code exchange in the hello's ack.
	AuthSchemeCode = "pairing-code-v1"

	PairCodeLabelID         = "monkbrowse pairing-code id v1"
	PairCodeLabelKey        = "monkbrowse pairing-code key v1"
	PairCodeLabelSeal       = "monkbrowse pairing-code seal v1"
	ProofLabelCodeServer    = "monkbrowse pairing-code server-proof v1"
	ProofLabelCodeExtension = "monkbrowse pairing-code extension-proof v1"

	// PairCodeSymbols is a code's length in base-32 symbols (5 bits each:
	// 140 random bits, so that a transcript — which lets anyone test
	// guesses offline — is no help).
	PairCodeSymbols = 28
	// PairCodeTTL is how long a code can be used after `monkbrowse pair`
	// printed it.
	PairCodeTTL = 10 * time.Minute
	// PairCodeIDLen is a code id's length on the wire (hex digits).
	PairCodeIDLen = 32
)

// pairCodeAlphabet is Crockford's base 32: no I, L, O or U, so that a code
// read aloud or retyped survives (NormalizePairCode maps I and L to 1, O
// to 0).
const pairCodeAlphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

// NewPairCode returns a fresh code in its display form: seven groups of
// four symbols joined by dashes.
func NewPairCode() string {
	b := make([]byte, PairCodeSymbols)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24+)
	var s strings.Builder
	for i, x := range b {
		if i > 0 && i%4 == 0 {
			s.WriteByte('-')
		}
		s.WriteByte(pairCodeAlphabet[x&31]) // 256 is a multiple of 32: uniform
	}
	return s.String()
}

// ErrPairCodeFormat is wrapped by NormalizePairCode's errors.
var ErrPairCodeFormat = errors.New("not a monkbrowse pairing code")

// NormalizePairCode turns what the person pasted into the code's canonical
// text: upper case, without spaces or dashes, I and L read as 1, O as 0.
func NormalizePairCode(s string) (string, error) {
	var b strings.Builder
	for _, r := range strings.ToUpper(s) {
		switch {
		case r == '-' || r == ' ' || r == '\t' || r == '\n' || r == '\r':
			continue
		case r == 'I' || r == 'L':
			r = '1'
		case r == 'O':
			r = '0'
		}
		if r > 0x7f || !strings.ContainsRune(pairCodeAlphabet, r) {
			return "", fmt.Errorf("%w: %q is not one of its letters or digits", ErrPairCodeFormat, r)
		}
		b.WriteRune(r)
		if b.Len() > PairCodeSymbols {
			break
		}
	}
	if b.Len() != PairCodeSymbols {
		return "", fmt.Errorf("%w: a code has %d letters and digits (seven groups of four), this has %d", ErrPairCodeFormat, PairCodeSymbols, b.Len())
	}
	return b.String(), nil
}

func hmacHex(key string, parts ...[]byte) string {
	m := hmac.New(sha256.New, []byte(key))
	for _, p := range parts {
		m.Write(p)
	}
	return hex.EncodeToString(m.Sum(nil))
}

// PairCodeID is the id of a canonical code (NormalizePairCode).
func PairCodeID(code string) string {
	return hmacHex(code, []byte(PairCodeLabelID))[:PairCodeIDLen]
}

// PairCodeKey is the key of a canonical code: the proofs' and the seal's
// key, in hex text.
func PairCodeKey(code string) string {
	return hmacHex(code, []byte(PairCodeLabelKey))
}

// ValidPairCodeID reports whether id has a code id's wire form.
func ValidPairCodeID(id string) bool {
	if len(id) != PairCodeIDLen {
		return false
	}
	for _, c := range id {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// PairRequest is the payload of MsgPair.
type PairRequest struct {
	Proof string `json:"proof"`
}

// CheckPair reports whether a raw pair payload proves codeKey over the
// hello's nonces. It never panics.
func CheckPair(raw []byte, codeKey, nonceExtension, nonceServer string) bool {
	var p PairRequest
	if json.Unmarshal(raw, &p) != nil {
		return false
	}
	return CheckProof(codeKey, ProofLabelCodeExtension, nonceExtension, nonceServer, p.Proof)
}

// CodeProofAck answers a hello that names a usable code: the server's
// nonce and its proof under the code's key.
func CodeProofAck(serverVersion, codeKey, nonceExtension, nonceServer string) HelloAck {
	return HelloAck{OK: true, Protocol: ProtocolVersion, ServerVersion: serverVersion, Auth: AuthSchemeCode,
		Nonce: nonceServer, Proof: Proof(codeKey, ProofLabelCodeServer, nonceExtension, nonceServer)}
}

// sealAEAD is AES-256-GCM under the exchange's seal key.
func sealAEAD(codeKey, nonceExtension, nonceServer string) (cipher.AEAD, error) {
	k := Proof(codeKey, PairCodeLabelSeal, nonceExtension, nonceServer)
	if k == "" {
		return nil, errors.New("malformed nonce")
	}
	key, _ := hex.DecodeString(k)
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(block)
}

// SealSecret seals the pairing secret for one code exchange: hex of a
// fresh 12-byte IV followed by the AES-256-GCM ciphertext and tag, with
// PairCodeLabelSeal as additional data.
func SealSecret(codeKey, nonceExtension, nonceServer, secret string) (string, error) {
	g, err := sealAEAD(codeKey, nonceExtension, nonceServer)
	if err != nil {
		return "", err
	}
	iv := make([]byte, g.NonceSize())
	_, _ = rand.Read(iv)
	return hex.EncodeToString(g.Seal(iv, iv, []byte(secret), []byte(PairCodeLabelSeal))), nil
}

// OpenSealed opens SealSecret's output; any tampering or another key is an
// error. It never panics.
func OpenSealed(codeKey, nonceExtension, nonceServer, sealed string) (string, error) {
	g, err := sealAEAD(codeKey, nonceExtension, nonceServer)
	if err != nil {
		return "", err
	}
	b, err := hex.DecodeString(sealed)
	if err != nil || len(b) < g.NonceSize()+g.Overhead() {
		return "", errors.New("the sealed secret is malformed")
	}
	pt, err := g.Open(nil, b[:g.NonceSize()], b[g.NonceSize():], []byte(PairCodeLabelSeal))
	if err != nil {
		return "", errors.New("the sealed secret does not open with this code")
	}
	return string(pt), nil
}

// Why a code cannot pair, as the server answers the hello.
var (
	ErrPairCodeUnknown = errors.New("this pairing code is not one that `monkbrowse pair` printed for this monkbrowse: check that you pasted all of it, and that you ran monkbrowse pair where this monkbrowse server runs, as the same user; or run monkbrowse pair again for a new code")
	ErrPairCodeUsed    = errors.New("this pairing code was already used (a code pairs once): run `monkbrowse pair` again for a new one")
	ErrPairCodeExpired = fmt.Errorf("this pairing code expired (a code lasts %d minutes): run `monkbrowse pair` again for a new one", int(PairCodeTTL/time.Minute))
)
