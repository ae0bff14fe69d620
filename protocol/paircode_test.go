package protocol

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// pairCodeVector is protocol/testdata/paircode.json: one code exchange
// computed here, which the extension's tests recompute with WebCrypto
// (extension/lib/pairing-code.test.ts), so the two implementations agree.
type pairCodeVector struct {
	Pasted, Code, ID, Key       string
	NonceExtension, NonceServer string
	ServerProof, ExtensionProof string
	Secret, Sealed              string
}

func makeVector(t *testing.T) pairCodeVector {
	t.Helper()
	pasted := " abcd-efgh-jkmn-pqrs-tvwx-yz01-234o\n" // lower case, a trailing O read as 0
	code, err := NormalizePairCode(pasted)
	if err != nil {
		t.Fatal(err)
	}
	key := PairCodeKey(code)
	return pairCodeVector{
		Pasted: pasted, Code: code, ID: PairCodeID(code), Key: key,
		NonceExtension: nonceE, NonceServer: nonceS,
		ServerProof:    Proof(key, ProofLabelCodeServer, nonceE, nonceS),
		ExtensionProof: Proof(key, ProofLabelCodeExtension, nonceE, nonceS),
		Secret:         testSecret,
	}
}

// TestPairCodeVector: the committed vector is what this package computes,
// and its sealed secret opens to the secret (the IV is random, so the
// sealed text is checked by opening it). UPDATE_VECTORS=1 rewrites it.
func TestPairCodeVector(t *testing.T) {
	want := makeVector(t)
	path := filepath.Join("testdata", "paircode.json")
	if os.Getenv("UPDATE_VECTORS") != "" {
		sealed, err := SealSecret(want.Key, want.NonceExtension, want.NonceServer, want.Secret)
		if err != nil {
			t.Fatal(err)
		}
		v := want
		v.Sealed = sealed
		data, _ := json.MarshalIndent(v, "", "  ")
		if err := os.WriteFile(path, append(data, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var got pairCodeVector
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	sealed := got.Sealed
	got.Sealed = ""
	if got != want {
		t.Fatalf("%s is stale (UPDATE_VECTORS=1 go test -run TestPairCodeVector):\n got %+v\nwant %+v", path, got, want)
	}
	if s, err := OpenSealed(want.Key, want.NonceExtension, want.NonceServer, sealed); err != nil || s != want.Secret {
		t.Fatalf("the vector's sealed secret opens to %q, %v", s, err)
	}
}

// TestPairCodeDerivations: the id and the key are two different functions
// of the code, neither is the code, and neither is the other's prefix.
func TestPairCodeDerivations(t *testing.T) {
	code, _ := NormalizePairCode(NewPairCode())
	id, key := PairCodeID(code), PairCodeKey(code)
	if !ValidPairCodeID(id) || len(key) != 64 || strings.HasPrefix(key, id) || strings.Contains(key, code) || strings.Contains(id, code) {
		t.Fatalf("code %s id %s key %s", code, id, key)
	}
	other, _ := NormalizePairCode(NewPairCode())
	if other == code || PairCodeID(other) == id {
		t.Fatal("two fresh codes agree")
	}
}

func TestNewPairCodeShape(t *testing.T) {
	seen := map[rune]bool{}
	for range 50 {
		c := NewPairCode()
		if len(c) != PairCodeSymbols+PairCodeSymbols/4-1 || strings.Count(c, "-") != PairCodeSymbols/4-1 {
			t.Fatalf("code %q", c)
		}
		n, err := NormalizePairCode(c)
		if err != nil || n != strings.ReplaceAll(c, "-", "") {
			t.Fatalf("NormalizePairCode(%q) = %q, %v", c, n, err)
		}
		for _, r := range n {
			seen[r] = true
		}
	}
	if len(seen) != 32 {
		t.Fatalf("50 codes used %d of the 32 symbols", len(seen))
	}
}

func TestNormalizePairCodeRefuses(t *testing.T) {
	for _, in := range []string{"", "ABCD", strings.Repeat("A", PairCodeSymbols+1), strings.Repeat("A", PairCodeSymbols-1) + "U", strings.Repeat("A", PairCodeSymbols-1) + "é"} {
		if _, err := NormalizePairCode(in); !errors.Is(err, ErrPairCodeFormat) {
			t.Errorf("NormalizePairCode(%q) = %v", in, err)
		}
	}
}

// TestSealedSecretNeedsTheCodeAndTheNonces: the sealed secret opens only
// with the same code key and the same two nonces, and any flipped byte is
// refused.
func TestSealedSecretNeedsTheCodeAndTheNonces(t *testing.T) {
	key := PairCodeKey("A")
	sealed, err := SealSecret(key, nonceE, nonceS, testSecret)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(sealed, testSecret) {
		t.Fatal("the secret is in the sealed text")
	}
	if s, err := OpenSealed(key, nonceE, nonceS, sealed); err != nil || s != testSecret {
		t.Fatalf("open: %q %v", s, err)
	}
	for name, try := range map[string]func() (string, error){
		"other code":    func() (string, error) { return OpenSealed(PairCodeKey("B"), nonceE, nonceS, sealed) },
		"swapped nonce": func() (string, error) { return OpenSealed(key, nonceS, nonceE, sealed) },
		"flipped byte": func() (string, error) {
			b := []byte(sealed)
			b[40] ^= 1
			return OpenSealed(key, nonceE, nonceS, string(b))
		},
		"truncated": func() (string, error) { return OpenSealed(key, nonceE, nonceS, sealed[:20]) },
	} {
		if s, err := try(); err == nil {
			t.Errorf("%s: opened to %q", name, s)
		}
	}
}

func TestCheckHelloCodeID(t *testing.T) {
	ok := CheckHello([]byte(`{"protocol":3,"extVersion":"0.3.0","nonce":"`+nonceE+`","codeId":"`+strings.Repeat("a", PairCodeIDLen)+`"}`), "1")
	if !ok.Accept || ok.Hello.CodeID == "" {
		t.Fatalf("%+v", ok)
	}
	bad := CheckHello([]byte(`{"protocol":3,"extVersion":"0.3.0","nonce":"`+nonceE+`","codeId":"XYZ"}`), "1")
	if bad.Accept || !strings.Contains(bad.Ack.(HelloAck).Reason, "codeId") {
		t.Fatalf("%+v", bad)
	}
}

func FuzzNormalizePairCode(f *testing.F) {
	f.Add("ABCD-EFGH-JKMN-PQRS-TVWX-YZ01-2345")
	f.Add("abcd efgh jkmn pqrs tvwx yz01 234o")
	f.Add("")
	f.Add(strings.Repeat("-", 100))
	f.Fuzz(func(t *testing.T, s string) {
		c, err := NormalizePairCode(s)
		if err != nil {
			return
		}
		if len(c) != PairCodeSymbols || strings.Trim(c, pairCodeAlphabet) != "" {
			t.Fatalf("NormalizePairCode(%q) = %q", s, c)
		}
		if again, err := NormalizePairCode(c); err != nil || again != c {
			t.Fatalf("not idempotent: %q → %q, %v", c, again, err)
		}
	})
}

func FuzzCheckPair(f *testing.F) {
	key := PairCodeKey("A")
	f.Add([]byte(`{"proof":"` + Proof(key, ProofLabelCodeExtension, nonceE, nonceS) + `"}`))
	f.Add([]byte(`{"proof":"` + Proof(key, ProofLabelCodeServer, nonceE, nonceS) + `"}`))
	f.Add([]byte(`{"proof":7}`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		if CheckPair(raw, key, nonceE, nonceS) {
			var p PairRequest
			if json.Unmarshal(raw, &p) != nil || !CheckProof(key, ProofLabelCodeExtension, nonceE, nonceS, p.Proof) {
				t.Fatalf("accepted %q", raw)
			}
		}
	})
}

func FuzzOpenSealed(f *testing.F) {
	key := PairCodeKey("A")
	good, _ := SealSecret(key, nonceE, nonceS, testSecret)
	f.Add(good)
	f.Add("")
	f.Add("zz")
	f.Add(strings.Repeat("00", 28))
	f.Fuzz(func(t *testing.T, sealed string) {
		s, err := OpenSealed(key, nonceE, nonceS, sealed)
		if err == nil && sealed != good && s == testSecret {
			// Another sealing of the same secret is fine; anything
			// opening must be an authentic sealing, which the fuzzer
			// cannot forge.
			t.Logf("opened another sealing")
		}
	})
}
