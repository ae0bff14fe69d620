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

// Hello is the first request an extension sends on a socket (DESIGN §5.2).
type Hello struct {
	Protocol          int       `json:"protocol"`
	ProfileID         string    `json:"profileId"`
	Label             string    `json:"label"`
	Slug              string    `json:"slug,omitempty"`
	ChromeProfileName string    `json:"chromeProfileName,omitempty"`
	ExtVersion        string    `json:"extVersion"`
	Tabs              []TabInfo `json:"tabs"`
}

// HelloAck answers a hello. It travels as the result of an ok:true response
// frame whether it accepts or rejects: a rejection is a well-formed answer.
type HelloAck struct {
	OK            bool   `json:"ok"`
	Protocol      int    `json:"protocol"`
	ServerVersion string `json:"serverVersion"`
	AssignedLabel string `json:"assignedLabel,omitempty"`
	AssignedSlug  string `json:"assignedSlug,omitempty"`
	Reason        string `json:"reason,omitempty"`
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
// closed after sending it. When Accept is true, Hello holds the validated,
// normalised hello and the caller builds the accepting ack with AcceptAck
// after assigning a label and slug.
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
		return reject("malformed hello: the payload must be a JSON object with protocol, profileId, label, extVersion and tabs; this extension may be broken: reinstall it")
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
	h.ProfileID = strings.TrimSpace(h.ProfileID)
	h.Label = strings.TrimSpace(h.Label)
	switch {
	case h.ProfileID == "":
		return reject("malformed hello: profileId is missing; the extension must send its stable profile id")
	case len(h.ProfileID) > MaxProfileIDLen:
		return reject("malformed hello: profileId is longer than %d characters", MaxProfileIDLen)
	case len(h.Label) > MaxLabelLen:
		return reject("malformed hello: label is longer than %d characters; choose a shorter label in the extension's options", MaxLabelLen)
	}
	// A slug the extension persisted is only a wish: drop it when it is not
	// one this server could have assigned.
	if h.Slug != "" && Slugify(h.Slug) != h.Slug {
		h.Slug = ""
	}
	if h.Tabs == nil {
		h.Tabs = []TabInfo{}
	}
	return HelloVerdict{Accept: true, Hello: h}
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
