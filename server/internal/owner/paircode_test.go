package owner

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/rs/zerolog"

	"github.com/monkbrowse/monkbrowse/protocol"
	"github.com/monkbrowse/monkbrowse/server/internal/fakeext"
	"github.com/monkbrowse/monkbrowse/server/internal/proc"
)

// memCodes is an in-memory PairingCodes: the codes `monkbrowse pair`
// printed, by id (control.PairingCodes keeps them in files).
type memCodes struct {
	mu      sync.Mutex
	keys    map[string]string
	used    map[string]bool
	expired map[string]bool
}

func newMemCodes(codes ...string) (*memCodes, []string) {
	m := &memCodes{keys: map[string]string{}, used: map[string]bool{}, expired: map[string]bool{}}
	var shown []string
	for _, c := range codes {
		canon, err := protocol.NormalizePairCode(c)
		if err != nil {
			panic(err)
		}
		m.keys[protocol.PairCodeID(canon)] = protocol.PairCodeKey(canon)
		shown = append(shown, c)
	}
	return m, shown
}

func (m *memCodes) Lookup(id string) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	switch k, ok := m.keys[id]; {
	case m.used[id]:
		return "", protocol.ErrPairCodeUsed
	case m.expired[id]:
		return "", protocol.ErrPairCodeExpired
	case !ok:
		return "", protocol.ErrPairCodeUnknown
	default:
		return k, nil
	}
}

func (m *memCodes) Redeem(id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.used[id] {
		return protocol.ErrPairCodeUsed
	}
	m.used[id] = true
	return nil
}

func pairCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), watchdog)
	t.Cleanup(cancel)
	return ctx
}

// TestPairWithCode (issue 24): the person's pasted code gets the pairing
// secret, which then connects as a profile; the code exchange itself
// never becomes a profile; the same code a second time, a mistyped code
// and an expired code are refused, each with its own reason.
func TestPairWithCode(t *testing.T) {
	codes, shown := newMemCodes(protocol.NewPairCode(), protocol.NewPairCode())
	o := startOwner(t, Config{PairingCodes: codes})
	secret, err := fakeext.PairWithCode(pairCtx(t), wsURL(o), "", strings.ToLower(shown[0]))
	if err != nil || secret != testPairing {
		t.Fatalf("PairWithCode = %q, %v", secret, err)
	}
	if ps := o.Profiles(); len(ps) != 0 {
		t.Fatalf("the code exchange became a profile: %+v", ps)
	}
	e := connect(t, o, fakeext.Options{Secret: secret, Label: "Remote"})
	if e.Ack().AssignedLabel != "Remote" {
		t.Fatalf("ack %+v", e.Ack())
	}

	refused := func(code, want string) {
		t.Helper()
		_, err := fakeext.PairWithCode(pairCtx(t), wsURL(o), "", code)
		var rej *fakeext.RejectedError
		if !errors.As(err, &rej) || !strings.Contains(rej.Ack.Reason, want) || !strings.Contains(rej.Ack.Reason, "monkbrowse pair") {
			t.Fatalf("code %s: want a rejection saying %q, got %v", code, want, err)
		}
	}
	refused(shown[0], "already used")
	mistyped := []byte(shown[1])
	mistyped[0] = map[bool]byte{true: 'B', false: 'A'}[mistyped[0] == 'A']
	refused(string(mistyped), "not one that `monkbrowse pair` printed")
	canon, _ := protocol.NormalizePairCode(shown[1])
	codes.mu.Lock()
	codes.expired[protocol.PairCodeID(canon)] = true
	codes.mu.Unlock()
	refused(shown[1], "expired")
	if ps := o.Profiles(); len(ps) != 1 {
		t.Fatalf("profiles %+v", ps)
	}
}

// TestCodeIDAloneRedeemsNothing: a client that knows a code's id (it saw
// the person's hello go by) but not the code gets the server's proof, is
// refused at its pair request, receives nothing sealed, and the code still
// pairs the person's extension afterwards.
func TestCodeIDAloneRedeemsNothing(t *testing.T) {
	codes, shown := newMemCodes(protocol.NewPairCode())
	var logs syncBuffer
	l := zerolog.New(&logs)
	o := startOwner(t, Config{PairingCodes: codes, Self: proc.Self{Logger: &l}})
	canon, _ := protocol.NormalizePairCode(shown[0])
	ws := dialRaw(t, o, "")
	nonce := protocol.NewNonce()
	ws.WriteMessage(websocket.TextMessage, helloFrame("1", protocol.Hello{Protocol: protocol.ProtocolVersion, ExtVersion: "0.3.0", Nonce: nonce, CodeID: protocol.PairCodeID(canon)}))
	var ack protocol.HelloAck
	if got := readFrame(t, ws); jsonResult(got, &ack) != nil || !ack.OK || ack.Auth != protocol.AuthSchemeCode {
		t.Fatalf("code hello answered %s", got)
	}
	// Its best guesses: the server's own proof reflected, a proof under
	// the id, a proof under the pairing secret's label.
	for i, proof := range []string{ack.Proof, protocol.Proof(protocol.PairCodeID(canon), protocol.ProofLabelCodeExtension, nonce, ack.Nonce),
		protocol.Proof(protocol.PairCodeKey(canon), protocol.ProofLabelExtension, nonce, ack.Nonce)} {
		if i > 0 {
			ws = dialRaw(t, o, "")
			nonce = protocol.NewNonce()
			ws.WriteMessage(websocket.TextMessage, helloFrame("1", protocol.Hello{Protocol: protocol.ProtocolVersion, ExtVersion: "0.3.0", Nonce: nonce, CodeID: protocol.PairCodeID(canon)}))
			if got := readFrame(t, ws); jsonResult(got, &ack) != nil || !ack.OK {
				t.Fatalf("code hello answered %s", got)
			}
			switch i {
			case 1:
				proof = protocol.Proof(protocol.PairCodeID(canon), protocol.ProofLabelCodeExtension, nonce, ack.Nonce)
			case 2:
				proof = protocol.Proof(protocol.PairCodeKey(canon), protocol.ProofLabelExtension, nonce, ack.Nonce)
			}
		}
		ws.WriteMessage(websocket.TextMessage, reqFrame("2", protocol.MsgPair, protocol.PairRequest{Proof: proof}))
		got := readFrame(t, ws)
		if !strings.Contains(got, `"ok":false`) || strings.Contains(got, "sealed") || strings.Contains(got, testPairing) {
			t.Fatalf("guess %d answered %s", i, got)
		}
		expectClosed(t, ws)
	}
	if !strings.Contains(logs.String(), UnprovenClient) {
		t.Errorf("the log does not name the unproven client:\n%s", logs.String())
	}
	if secret, err := fakeext.PairWithCode(pairCtx(t), wsURL(o), "", shown[0]); err != nil || secret != testPairing {
		t.Fatalf("the person's paste after the guesses: %q, %v", secret, err)
	}
}

// TestSealedSecretNeverInClear: every frame of a code exchange, read raw,
// holds neither the pairing secret nor the code nor its key.
func TestSealedSecretNeverInClear(t *testing.T) {
	codes, shown := newMemCodes(protocol.NewPairCode())
	o := startOwner(t, Config{PairingCodes: codes})
	canon, _ := protocol.NormalizePairCode(shown[0])
	key := protocol.PairCodeKey(canon)
	ws := dialRaw(t, o, "")
	nonce := protocol.NewNonce()
	ws.WriteMessage(websocket.TextMessage, helloFrame("1", protocol.Hello{Protocol: protocol.ProtocolVersion, ExtVersion: "0.3.0", Nonce: nonce, CodeID: protocol.PairCodeID(canon)}))
	first := readFrame(t, ws)
	var ack protocol.HelloAck
	if jsonResult(first, &ack) != nil || !protocol.CheckProof(key, protocol.ProofLabelCodeServer, nonce, ack.Nonce, ack.Proof) {
		t.Fatalf("the server's code proof does not hold: %s", first)
	}
	ws.WriteMessage(websocket.TextMessage, reqFrame("2", protocol.MsgPair, protocol.PairRequest{Proof: protocol.Proof(key, protocol.ProofLabelCodeExtension, nonce, ack.Nonce)}))
	second := readFrame(t, ws)
	for _, f := range []string{first, second} {
		for _, leak := range []string{testPairing, canon, shown[0], key} {
			if strings.Contains(f, leak) {
				t.Fatalf("a frame holds %q in clear: %s", leak, f)
			}
		}
	}
	var sealed protocol.HelloAck
	if jsonResult(second, &sealed) != nil {
		t.Fatal(second)
	}
	if s, err := protocol.OpenSealed(key, nonce, ack.Nonce, sealed.Sealed); err != nil || s != testPairing {
		t.Fatalf("opened %q, %v", s, err)
	}
	expectClosed(t, ws)
}

// TestServerThatCannotProveTheCodeGetsNoProof: a server that does not know
// the code (it answers the code's id with another key) is refused by the
// extension before the extension proves anything.
func TestServerThatCannotProveTheCodeGetsNoProof(t *testing.T) {
	code := protocol.NewPairCode()
	canon, _ := protocol.NormalizePairCode(code)
	codes := &memCodes{keys: map[string]string{protocol.PairCodeID(canon): protocol.PairCodeKey("ANOTHERCODE")}, used: map[string]bool{}, expired: map[string]bool{}}
	o := startOwner(t, Config{PairingCodes: codes})
	_, err := fakeext.PairWithCode(pairCtx(t), wsURL(o), "", code)
	var us *fakeext.UnprovenServerError
	if !errors.As(err, &us) {
		t.Fatalf("want UnprovenServerError, got %v", err)
	}
	if codes.used[protocol.PairCodeID(canon)] {
		t.Fatal("the code was redeemed without the extension's proof")
	}
}

// TestResetClosesProvenConnections (issue 24): once the pairing secret is
// replaced (`monkbrowse pair --reset` from another process), each live
// connection proven with the old one is closed at its next ping, and the
// old secret no longer gets in.
func TestResetClosesProvenConnections(t *testing.T) {
	var secret atomic.Value
	secret.Store(testPairing)
	var logs syncBuffer
	l := zerolog.New(&logs)
	o := startOwner(t, Config{PingInterval: 20 * time.Millisecond,
		PairingSecret: func() (string, error) { return secret.Load().(string), nil },
		Self:          proc.Self{Logger: &l},
	})
	a := connect(t, o, fakeext.Options{Secret: testPairing, Label: "A"})
	b := connect(t, o, fakeext.Options{Secret: testPairing, Label: "B"})
	secret.Store("the new secret after pair --reset")
	for _, e := range []*fakeext.Ext{a, b} {
		select {
		case <-e.Done():
		case <-time.After(5 * time.Second): // pings every 20 ms: 250 of them
			t.Fatal("a connection proven with the old secret stayed open after the reset")
		}
	}
	if !strings.Contains(logs.String(), LogUnpaired) {
		t.Errorf("the log does not say %q:\n%s", LogUnpaired, logs.String())
	}
	_, err := fakeext.Connect(pairCtx(t), fakeext.Options{URL: wsURL(o), Secret: testPairing})
	var us *fakeext.UnprovenServerError
	if !errors.As(err, &us) {
		t.Fatalf("the old secret after the reset: %v", err)
	}
	c := connect(t, o, fakeext.Options{Secret: "the new secret after pair --reset", Label: "C"})
	if c.Ack().AssignedLabel != "C" {
		t.Fatalf("%+v", c.Ack())
	}
}
