package protocol

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"
)

// TestProofIsTheDocumentedHMAC recomputes both proofs from DESIGN §5.4's
// definition with nothing but crypto/hmac, so the golden frames give another
// implementation something exact to check against.
func TestProofIsTheDocumentedHMAC(t *testing.T) {
	nf, _ := hex.DecodeString(sampleNonceF)
	no, _ := hex.DecodeString(sampleNonceO)
	for _, label := range []string{ProofLabelOwner, ProofLabelForwarder} {
		m := hmac.New(sha256.New, []byte(sampleToken))
		m.Write([]byte(label))
		m.Write(nf)
		m.Write(no)
		want := hex.EncodeToString(m.Sum(nil))
		if got := Proof(sampleToken, label, sampleNonceF, sampleNonceO); got != want {
			t.Fatalf("Proof(%q) = %s, want %s", label, got, want)
		}
		if !CheckProof(sampleToken, label, sampleNonceF, sampleNonceO, want) {
			t.Fatalf("CheckProof refuses the right proof for %q", label)
		}
		if !CheckProof(sampleToken, label, sampleNonceF, sampleNonceO, strings.ToUpper(want)) {
			t.Fatalf("CheckProof refuses an upper-case hex proof for %q", label)
		}
	}
}

// TestProofCannotBeReplayedOrReflected: a proof is bound to its direction,
// both nonces and the token.
func TestProofCannotBeReplayedOrReflected(t *testing.T) {
	owner := Proof(sampleToken, ProofLabelOwner, sampleNonceF, sampleNonceO)
	other := NewNonce()
	for name, ok := range map[string]bool{
		"reflected as the forwarder's": CheckProof(sampleToken, ProofLabelForwarder, sampleNonceF, sampleNonceO, owner),
		"another forwarder nonce":      CheckProof(sampleToken, ProofLabelOwner, other, sampleNonceO, owner),
		"another owner nonce":          CheckProof(sampleToken, ProofLabelOwner, sampleNonceF, other, owner),
		"nonces swapped":               CheckProof(sampleToken, ProofLabelOwner, sampleNonceO, sampleNonceF, owner),
		"another token":                CheckProof(sampleToken+"0", ProofLabelOwner, sampleNonceF, sampleNonceO, owner),
		"the token itself":             CheckProof(sampleToken, ProofLabelOwner, sampleNonceF, sampleNonceO, sampleToken),
		"empty":                        CheckProof(sampleToken, ProofLabelOwner, sampleNonceF, sampleNonceO, ""),
		"truncated":                    CheckProof(sampleToken, ProofLabelOwner, sampleNonceF, sampleNonceO, owner[:62]),
		"short nonce":                  CheckProof(sampleToken, ProofLabelOwner, sampleNonceF[:62], sampleNonceO, owner),
	} {
		if ok {
			t.Errorf("%s: accepted", name)
		}
	}
	if a, b := NewNonce(), NewNonce(); a == b || len(a) != 2*NonceSize {
		t.Fatalf("NewNonce: %q %q", a, b)
	}
}

// FuzzControlHandshake decodes arbitrary fwd_hello, fwd_hello ack, fwd_auth
// and fwd_auth ack payloads the way the owner and the forwarder do, and
// checks that no input panics and that nothing but the right HMAC passes a
// proof check.
func FuzzControlHandshake(f *testing.F) {
	f.Add([]byte(`{"pid":1,"version":"0.3.0","nonce":"`+sampleNonceF+`"}`), sampleNonceO)
	f.Add([]byte(`{"pid":1,"version":"0.3.0","token":"abab"}`), "")
	f.Add([]byte(`{"ok":true,"version":"0.3.0","nonce":"`+sampleNonceO+`","proof":"`+Proof(sampleToken, ProofLabelOwner, sampleNonceF, sampleNonceO)+`"}`), sampleNonceF)
	f.Add([]byte(`{"proof":"`+Proof(sampleToken, ProofLabelForwarder, sampleNonceF, sampleNonceO)+`"}`), sampleNonceO)
	f.Add([]byte(`{"ok":true,"pid":3,"app":"x","callSent":true}`), "")
	f.Add([]byte(`[]`), "zz")
	f.Fuzz(func(t *testing.T, raw []byte, nonce string) {
		var h FwdHello
		var lh LegacyFwdHello
		var ack FwdHelloAck
		var auth FwdAuth
		var aack FwdAuthAck
		_ = json.Unmarshal(raw, &h)
		_ = json.Unmarshal(raw, &lh)
		_ = json.Unmarshal(raw, &ack)
		_ = json.Unmarshal(raw, &auth)
		_ = json.Unmarshal(raw, &aack)
		right := func(label, nf, no string) string { return Proof(sampleToken, label, nf, no) }
		for _, c := range []struct{ label, nf, no, proof string }{
			{ProofLabelOwner, h.Nonce, nonce, ack.Proof},
			{ProofLabelOwner, nonce, ack.Nonce, ack.Proof},
			{ProofLabelForwarder, h.Nonce, nonce, auth.Proof},
			{ProofLabelForwarder, nonce, ack.Nonce, auth.Proof},
		} {
			if CheckProof(sampleToken, c.label, c.nf, c.no, c.proof) {
				if w := right(c.label, c.nf, c.no); w == "" || !strings.EqualFold(w, c.proof) {
					t.Fatalf("accepted a proof that is not the HMAC: %+v", c)
				}
			}
		}
		if _, err := DecodeNonce(h.Nonce); err == nil && len(h.Nonce) != 2*NonceSize {
			t.Fatalf("DecodeNonce accepted %q", h.Nonce)
		}
	})
}
