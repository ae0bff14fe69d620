package protocol

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// The extension socket's timing, the same on both ends (DESIGN §5.2): each
// side waits at most HelloTimeout for the hello exchange, and each pings the
// other every PingInterval. Generated into the extension (protocol.gen.ts).
const (
	HelloTimeout = 10 * time.Second
	PingInterval = 10 * time.Second
)

// Hello is the first request an extension sends on a socket (DESIGN §5.2):
// its protocol, its version and its fresh nonce (NewNonce), nothing about
// the person's tabs or profile. The server answers with its own nonce and
// its proof (HelloAck.Proof, ProofLabelServer); only a server that proved
// it holds the pairing secret gets the extension's Auth, which carries the
// proof of the extension and the profile (its id, label and tabs).
type Hello struct {
	Protocol   int    `json:"protocol"`
	ExtVersion string `json:"extVersion"`
	Nonce      string `json:"nonce"`
	// CodeID names a pairing code (PairCodeID) when the extension pairs
	// with a code instead (paircode.go); the exchange then ends with the
	// sealed secret, not a profile.
	CodeID string `json:"codeId,omitempty"`
}

// HelloAck answers a hello and, with the same shape, an auth. It travels as
// the result of an ok:true response frame whether it accepts or rejects: a
// rejection is a well-formed answer. A hello accepted so far carries Auth
// (AuthScheme), the server's Nonce and its Proof; an accepted auth carries
// the assigned label and slug.
type HelloAck struct {
	OK            bool   `json:"ok"`
	Protocol      int    `json:"protocol"`
	ServerVersion string `json:"serverVersion"`
	Auth          string `json:"auth,omitempty"`
	Nonce         string `json:"nonce,omitempty"`
	Proof         string `json:"proof,omitempty"`
	AssignedLabel string `json:"assignedLabel,omitempty"`
	AssignedSlug  string `json:"assignedSlug,omitempty"`
	Reason        string `json:"reason,omitempty"`
	// Sealed is the pairing secret sealed for a code exchange's pair
	// request (SealSecret).
	Sealed string `json:"sealed,omitempty"`
}

// Auth is the extension's second request (MsgAuth), sent only after it
// checked the server's proof: its own proof (ProofLabelExtension over the
// hello's two nonces) and the profile it speaks for. The server admits the
// profile only when the proof holds; a wrong proof is answered with a
// rejection and the socket is closed.
type Auth struct {
	Proof             string    `json:"proof"`
	ProfileID         string    `json:"profileId"`
	Label             string    `json:"label"`
	Slug              string    `json:"slug,omitempty"`
	ChromeProfileName string    `json:"chromeProfileName,omitempty"`
	Tabs              []TabInfo `json:"tabs"`
	// Paused: the AI is paused in this profile as it connects (TabsChanged.Paused).
	Paused bool `json:"paused,omitempty"`
	// Policy is the organisation's policy in force (TabsChanged.Policy).
	Policy *SitePolicy `json:"policy,omitempty"`
}

// LegacyHelloAck is the rejection sent to a 0.2 extension. AssignedPort is
// always 0 and exists only because the 0.2 ack parser requires it
// (`ok: boolean, assignedPort: number, serverVersion: string, reason?: string`).
type LegacyHelloAck struct {
	OK            bool   `json:"ok"`
	AssignedPort  int    `json:"assignedPort"`
	ServerVersion string `json:"serverVersion"`
	Reason        string `json:"reason,omitempty"`
}

// Limits on hello fields. They keep a misbehaving client from growing the
// registry without bound; real values are far below them.
const (
	MaxProfileIDLen = 128
	MaxLabelLen     = 64
	MaxSlugLen      = 40
)

// HelloVerdict is the outcome of CheckHello. When Accept is false, Ack is the
// exact value to send back as the response result, and the socket should be
// closed after sending it. When Accept is true, Hello holds the validated
// hello and the caller answers with ProofAck.
type HelloVerdict struct {
	Accept bool
	Hello  Hello
	Ack    any // HelloAck or LegacyHelloAck when rejected
	// Legacy reports a 0.2 hello (no protocol field).
	Legacy bool
}

// CheckHello decides whether a raw hello payload may proceed. It never
// panics on any input. serverVersion is echoed in every ack.
func CheckHello(raw []byte, serverVersion string) HelloVerdict {
	reject := func(format string, a ...any) HelloVerdict {
		return HelloVerdict{Ack: HelloAck{
			OK:            false,
			Protocol:      ProtocolVersion,
			ServerVersion: serverVersion,
			Reason:        fmt.Sprintf(format, a...),
		}}
	}

	// A lenient pre-schema: any JSON object, fields decoded one by one, so an
	// old or broken hello still gets an answer it can parse.
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		return reject("malformed hello: the payload must be a JSON object with protocol, extVersion and nonce; this extension may be broken: reinstall it")
	}

	protoRaw, hasProto := fields["protocol"]
	if !hasProto || isJSONNull(protoRaw) {
		return HelloVerdict{Legacy: true, Ack: LegacyHelloAck{
			OK:            false,
			AssignedPort:  0,
			ServerVersion: serverVersion,
			Reason: fmt.Sprintf("This monkbrowse extension is too old for monkbrowse server %s (it speaks the 0.2 handshake, the server speaks protocol %d): "+
				"update the extension to 0.3 or newer and reload it from chrome://extensions.", serverVersion, ProtocolVersion),
		}}
	}
	var proto int
	if err := json.Unmarshal(protoRaw, &proto); err != nil {
		return reject("malformed hello: protocol must be an integer (this server speaks protocol %d)", ProtocolVersion)
	}
	switch {
	case proto > ProtocolVersion:
		return reject("protocol mismatch: the extension speaks protocol %d, this monkbrowse server (%s) speaks protocol %d: update the monkbrowse server, then restart your AI app",
			proto, serverVersion, ProtocolVersion)
	case proto < ProtocolVersion:
		return reject("protocol mismatch: the extension speaks protocol %d, this monkbrowse server (%s) speaks protocol %d: update the monkbrowse extension and reload it from chrome://extensions",
			proto, serverVersion, ProtocolVersion)
	}

	var h Hello
	if err := json.Unmarshal(raw, &h); err != nil {
		return reject("malformed hello: %s", describeJSONError(err))
	}
	if _, err := DecodeNonce(h.Nonce); err != nil {
		return reject("malformed hello: %v; this extension may be broken: reinstall it", err)
	}
	if h.CodeID != "" && !ValidPairCodeID(h.CodeID) {
		return reject("malformed hello: codeId must be %d hex digits; this extension may be broken: reinstall it", PairCodeIDLen)
	}
	return HelloVerdict{Accept: true, Hello: h}
}

// ProofAck is the answer to an accepted hello: the server's nonce and its
// proof over both nonces under the pairing secret.
func ProofAck(serverVersion, secret, nonceExtension, nonceServer string) HelloAck {
	return HelloAck{OK: true, Protocol: ProtocolVersion, ServerVersion: serverVersion, Auth: AuthScheme,
		Nonce: nonceServer, Proof: Proof(secret, ProofLabelServer, nonceExtension, nonceServer)}
}

// AuthVerdict is the outcome of CheckAuth: Accept with the validated,
// normalised Auth, or the rejection to send (the socket is closed after it).
type AuthVerdict struct {
	Accept bool
	Auth   Auth
	// Unproven reports a wrong or missing proof (as opposed to a proven
	// auth with a malformed profile).
	Unproven bool
	Ack      HelloAck
}

// NotPairedReason is the server's answer to an auth whose proof is wrong.
const NotPairedReason = "this extension could not prove it is paired with this monkbrowse (its pairing secret differs): " +
	"pair it again — the extension fetches the secret from the monkbrowse native-messaging host (run `monkbrowse install`), " +
	"or paste a code from `monkbrowse pair` in the extension's options"

// CheckAuth decides whether a raw auth payload proves the pairing secret
// over the hello's nonces and describes a usable profile. It never panics.
func CheckAuth(raw []byte, serverVersion, secret, nonceExtension, nonceServer string) AuthVerdict {
	reject := func(unproven bool, format string, a ...any) AuthVerdict {
		return AuthVerdict{Unproven: unproven, Ack: RejectAck(serverVersion, fmt.Sprintf(format, a...))}
	}
	var a Auth
	if err := json.Unmarshal(raw, &a); err != nil {
		// Decoded leniently first: a proof in a malformed auth still counts
		// as unproven unless it holds.
		var p struct {
			Proof string `json:"proof"`
		}
		_ = json.Unmarshal(raw, &p)
		if secret == "" || !CheckProof(secret, ProofLabelExtension, nonceExtension, nonceServer, p.Proof) {
			return reject(true, "%s", NotPairedReason)
		}
		return reject(false, "malformed auth: %s", describeJSONError(err))
	}
	if secret == "" || !CheckProof(secret, ProofLabelExtension, nonceExtension, nonceServer, a.Proof) {
		return reject(true, "%s", NotPairedReason)
	}
	a.ProfileID = strings.TrimSpace(a.ProfileID)
	a.Label = strings.TrimSpace(a.Label)
	switch {
	case a.ProfileID == "":
		return reject(false, "malformed auth: profileId is missing; the extension must send its stable profile id")
	case len(a.ProfileID) > MaxProfileIDLen:
		return reject(false, "malformed auth: profileId is longer than %d characters", MaxProfileIDLen)
	case len(a.Label) > MaxLabelLen:
		return reject(false, "malformed auth: label is longer than %d characters; choose a shorter label in the extension's options", MaxLabelLen)
	}
	// A slug the extension persisted is only a wish: drop it when it is not
	// one this server could have assigned.
	if a.Slug != "" && Slugify(a.Slug) != a.Slug {
		a.Slug = ""
	}
	if a.Tabs == nil {
		a.Tabs = []TabInfo{}
	}
	return AuthVerdict{Accept: true, Auth: a}
}

// AcceptAck builds the ack of an accepted hello.
func AcceptAck(serverVersion, label, slug string) HelloAck {
	return HelloAck{OK: true, Protocol: ProtocolVersion, ServerVersion: serverVersion, AssignedLabel: label, AssignedSlug: slug}
}

// RejectAck builds a rejection that is not about the protocol itself, such as
// the profile cap.
func RejectAck(serverVersion, reason string) HelloAck {
	return HelloAck{OK: false, Protocol: ProtocolVersion, ServerVersion: serverVersion, Reason: reason}
}

// Slugify derives a profile slug from a label: lower case, [a-z0-9-], runs of
// anything else collapsed to one dash, no leading or trailing dash, at most
// MaxSlugLen characters. It returns "" when nothing usable is left.
func Slugify(label string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(label) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(r)
		default:
			dash = true
		}
		if b.Len() >= MaxSlugLen {
			break
		}
	}
	s := b.String()
	if len(s) > MaxSlugLen {
		s = strings.TrimRight(s[:MaxSlugLen], "-")
	}
	return s
}

func isJSONNull(raw json.RawMessage) bool {
	return bytes.Equal(bytes.TrimSpace(raw), []byte("null"))
}

func describeJSONError(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		return fmt.Sprintf("field %q has the wrong type (got a JSON %s, want %s)", te.Field, te.Value, jsonKind(te.Type.Kind().String()))
	}
	return err.Error()
}

func jsonKind(goKind string) string {
	switch goKind {
	case "int", "int64", "float64":
		return "number"
	case "string":
		return "string"
	case "bool":
		return "boolean"
	case "slice":
		return "array"
	case "struct", "map":
		return "object"
	}
	return goKind
}
