package owner

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/gorilla/websocket"
	"github.com/rs/zerolog"

	"github.com/monkbrowse/monkbrowse/protocol"
	"github.com/monkbrowse/monkbrowse/server/internal/fakeext"
	"github.com/monkbrowse/monkbrowse/server/internal/proc"
)

// syncBuffer is a log sink safe for the owner's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestImpostorsNeverBecomeProfiles: fake extensions with the pinned Origin
// and a seed-shaped profile but without the pairing secret are refused with
// the reason, are logged as unproven clients, never appear as profiles and,
// more of them than the profile cap, do not lock the real extension out.
func TestImpostorsNeverBecomeProfiles(t *testing.T) {
	var logs syncBuffer
	l := zerolog.New(&logs)
	o := startOwner(t, Config{MaxProfiles: 2, Self: proc.Self{Logger: &l}})
	origin := "chrome-extension://" + UnpackedExtensionID
	for i := range 5 {
		ctx, cancel := context.WithTimeout(context.Background(), watchdog)
		_, err := fakeext.Connect(ctx, fakeext.Options{URL: wsURL(o), Origin: origin, Secret: "not the secret", IgnoreServerProof: true,
			Label: "work", Tabs: []fakeext.Tab{{ID: 7, Shared: true, Slot: 1, Active: true, URL: "https://upload.example/"}}})
		cancel()
		var rej *fakeext.RejectedError
		if !errors.As(err, &rej) || !strings.Contains(rej.Ack.Reason, "could not prove it is paired") {
			t.Fatalf("impostor %d: want the not-paired rejection, got %v", i, err)
		}
	}
	if ps := o.Profiles(); len(ps) != 0 {
		t.Fatalf("impostors became profiles: %+v", ps)
	}
	if !strings.Contains(logs.String(), UnprovenClient) {
		t.Errorf("the log does not say %q:\n%s", UnprovenClient, logs.String())
	}
	// The real extension still gets in, twice over the cap's worth of refusals.
	a := connect(t, o, fakeext.Options{Secret: testPairing, Origin: origin, Label: "Work"})
	b := connect(t, o, fakeext.Options{Secret: testPairing, Origin: origin, Label: "Home"})
	if a.Ack().AssignedLabel != "Work" || b.Ack().AssignedLabel != "Home" {
		t.Fatalf("acks %+v %+v", a.Ack(), b.Ack())
	}
}

// TestUnprovenServerGetsNoProfile: a fake extension refuses a server whose
// proof does not hold and never sends its auth (profile, tabs).
func TestUnprovenServerGetsNoProfile(t *testing.T) {
	o := startOwner(t, Config{PairingSecret: func() (string, error) { return "the server's other secret", nil }})
	ctx, cancel := context.WithTimeout(context.Background(), watchdog)
	defer cancel()
	_, err := fakeext.Connect(ctx, fakeext.Options{URL: wsURL(o), Secret: testPairing})
	var us *fakeext.UnprovenServerError
	if !errors.As(err, &us) {
		t.Fatalf("want UnprovenServerError, got %v", err)
	}
	if ps := o.Profiles(); len(ps) != 0 {
		t.Fatalf("profiles %+v", ps)
	}
}

// TestReplayedTranscriptFails: an auth that was valid on one connection is
// refused on another (the server's nonce is fresh), even when the hello
// replays the same extension nonce; so are the server's own proof reflected
// back and a control-port proof under the same secret.
func TestReplayedTranscriptFails(t *testing.T) {
	o := startOwner(t, Config{})
	ws1 := dialRaw(t, o, "")
	nonce, ack1 := rawHello(t, ws1, "1", testPairing)
	recorded := authFrame("2", testPairing, nonce, ack1, protocol.Auth{ProfileID: "replay", Label: "Work", Tabs: []protocol.TabInfo{}})
	ws1.Close()

	replay := func(name string, frame func(ack protocol.HelloAck) []byte) {
		t.Run(name, func(t *testing.T) {
			ws := dialRaw(t, o, "")
			ws.WriteMessage(websocket.TextMessage, helloFrame("1", protocol.Hello{Protocol: protocol.ProtocolVersion, ExtVersion: "0.3.0", Nonce: nonce}))
			got := readFrame(t, ws)
			var ack protocol.HelloAck
			if err := jsonResult(got, &ack); err != nil || !ack.OK {
				t.Fatalf("hello: %s", got)
			}
			if ack.Nonce == ack1.Nonce || ack.Proof == ack1.Proof {
				t.Fatalf("the server reused its nonce or proof: %s", got)
			}
			ws.WriteMessage(websocket.TextMessage, frame(ack))
			got = readFrame(t, ws)
			if !strings.Contains(got, `"ok":false`) || !strings.Contains(got, "could not prove it is paired") {
				t.Fatalf("replayed auth answered %s", got)
			}
			expectClosed(t, ws)
		})
	}
	replay("recorded auth", func(protocol.HelloAck) []byte { return recorded })
	replay("server proof reflected", func(ack protocol.HelloAck) []byte {
		return reqFrame("2", protocol.MsgAuth, protocol.Auth{Proof: ack.Proof, ProfileID: "replay", Tabs: []protocol.TabInfo{}})
	})
	replay("control port proof", func(ack protocol.HelloAck) []byte {
		return reqFrame("2", protocol.MsgAuth, protocol.Auth{Proof: protocol.Proof(testPairing, protocol.ProofLabelForwarder, nonce, ack.Nonce), ProfileID: "replay", Tabs: []protocol.TabInfo{}})
	})
	if ps := o.Profiles(); len(ps) != 0 {
		t.Fatalf("a replay became a profile: %+v", ps)
	}
}

// TestNoPairingSecretRefusesWithReason: a server whose secret cannot be
// read proves nothing and says why.
func TestNoPairingSecretRefusesWithReason(t *testing.T) {
	o := startOwner(t, Config{PairingSecret: func() (string, error) {
		return "", errors.New("~/.monkbrowse is a symlink")
	}})
	ws := dialRaw(t, o, "")
	ws.WriteMessage(websocket.TextMessage, helloFrame("1", protocol.Hello{Protocol: protocol.ProtocolVersion, ExtVersion: "0.3.0", Nonce: protocol.NewNonce()}))
	got := readFrame(t, ws)
	if !strings.Contains(got, `"ok":false`) || !strings.Contains(got, "no pairing secret (~/.monkbrowse is a symlink)") || strings.Contains(got, `"proof"`) {
		t.Fatalf("hello answered %s", got)
	}
	expectClosed(t, ws)
}

// jsonResult decodes the result of a response frame.
func jsonResult(frame string, v any) error {
	var f struct {
		Result json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal([]byte(frame), &f); err != nil {
		return err
	}
	return json.Unmarshal(f.Result, v)
}
