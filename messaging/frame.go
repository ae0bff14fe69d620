package messaging

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// Frame kinds, the value of "k".
const (
	KindRequest  = "req"
	KindResponse = "res"
	KindNotify   = "ntf"
	KindPing     = "png"
	KindPong     = "pog"

	// CancelType is the notification a Peer sends when the caller of a
	// request gave up on it (its context ended before the response, other
	// than by the request's own timeout):
	// {"k":"ntf","type":"cancel","payload":{"id":"7"}}. A Peer that
	// receives it cancels the context of the handler serving that id; the
	// handler still answers (the answer is dropped or awaited by the
	// sender). It never reaches HandleNotify handlers.
	CancelType = "cancel"
)

// Frame is one envelope message in decoded form. Which fields are set depends
// on K: a request has ID, Type and (optionally) Payload; a response has ID, OK
// and either Result or Error, an error response optionally a Code; a
// notification has Type and Payload; ping and pong have only K.
//
// Payload and Result hold raw JSON. A nil (empty) Payload or Result means the
// field is absent; the JSON value null is kept as the four bytes "null" and
// encoded back as null, so decoding and re-encoding never changes a frame's
// meaning.
type Frame struct {
	K       string
	ID      string
	Type    string
	Payload json.RawMessage
	OK      *bool
	Result  json.RawMessage
	Error   string
	// Code is an ok:false response's machine-readable reason (protocol
	// declares the codes); Error stays the sentence for people and the AI.
	Code string
}

// wireFrame is the decoding target. It is separate from Frame so that Frame
// can implement json.Unmarshaler without recursing.
type wireFrame struct {
	K       string          `json:"k"`
	ID      string          `json:"id"`
	Type    string          `json:"type"`
	Payload json.RawMessage `json:"payload"`
	OK      *bool           `json:"ok"`
	Result  json.RawMessage `json:"result"`
	Error   string          `json:"error"`
	Code    string          `json:"code"`
}

// DecodeFrame parses one frame and checks its shape: a known kind, an id on
// requests and responses, a type on requests and notifications, ok on
// responses. Unknown fields are ignored so that a newer peer may add some.
// Errors wrap [ErrMalformedFrame]. Key matching follows encoding/json (exact
// match preferred, case-insensitive otherwise).
func DecodeFrame(data []byte) (Frame, error) {
	var w wireFrame
	if err := json.Unmarshal(data, &w); err != nil {
		return Frame{}, fmt.Errorf("%w: %v", ErrMalformedFrame, err)
	}
	f := Frame(w)
	if err := f.check(); err != nil {
		return Frame{}, err
	}
	return f, nil
}

// check reports whether f has the fields its kind needs.
func (f *Frame) check() error {
	var missing string
	switch f.K {
	case KindRequest:
		if f.ID == "" {
			missing = "id"
		} else if f.Type == "" {
			missing = "type"
		}
	case KindResponse:
		if f.ID == "" {
			missing = "id"
		} else if f.OK == nil {
			missing = "ok"
		}
	case KindNotify:
		if f.Type == "" {
			missing = "type"
		}
	case KindPing, KindPong:
	case "":
		return fmt.Errorf("%w: no kind (\"k\")", ErrMalformedFrame)
	default:
		return fmt.Errorf("%w: unknown kind %.32q", ErrMalformedFrame, f.K)
	}
	if missing != "" {
		return fmt.Errorf("%w: %.32q frame without %q", ErrMalformedFrame, f.K, missing)
	}
	return nil
}

// Encode returns the frame's canonical encoding: compact JSON, fields in the
// order k, id, type, payload, ok, result, error, code, each omitted when empty (nil
// for Payload, Result and OK). That gives the shapes of DESIGN.md §4 exactly;
// in particular a successful response without a result is
// {"k":"res","id":"7","ok":true}. Payload and Result are compacted, their
// bytes otherwise kept; the strings Encode writes follow the wire's one
// encoding rule (encoding/json's without HTML escaping: U+2028 and U+2029
// escaped, <, > and & not), which extension/lib/frame.ts follows too, so both
// sides re-encode the golden vectors of protocol/testdata/frames byte for byte.
//
// Encode fails, wrapping [ErrMalformedFrame], for a frame [DecodeFrame] would
// reject and for Payload or Result that is not valid JSON.
func (f Frame) Encode() ([]byte, error) {
	return f.AppendEncode(make([]byte, 0, 64+len(f.Payload)+len(f.Result)+len(f.Error)+len(f.Code)))
}

// AppendEncode appends the encoding of [Frame.Encode] to dst.
func (f Frame) AppendEncode(dst []byte) ([]byte, error) {
	if err := f.check(); err != nil {
		return dst, err
	}
	b := append(dst, `{"k":`...)
	b = appendString(b, f.K)
	if f.ID != "" {
		b = append(b, `,"id":`...)
		b = appendString(b, f.ID)
	}
	if f.Type != "" {
		b = append(b, `,"type":`...)
		b = appendString(b, f.Type)
	}
	var err error
	if len(f.Payload) > 0 {
		b = append(b, `,"payload":`...)
		if b, err = appendCompact(b, f.Payload); err != nil {
			return dst, fmt.Errorf("%w: payload: %v", ErrMalformedFrame, err)
		}
	}
	if f.OK != nil {
		if *f.OK {
			b = append(b, `,"ok":true`...)
		} else {
			b = append(b, `,"ok":false`...)
		}
	}
	if len(f.Result) > 0 {
		b = append(b, `,"result":`...)
		if b, err = appendCompact(b, f.Result); err != nil {
			return dst, fmt.Errorf("%w: result: %v", ErrMalformedFrame, err)
		}
	}
	if f.Error != "" {
		b = append(b, `,"error":`...)
		b = appendString(b, f.Error)
	}
	if f.Code != "" {
		b = append(b, `,"code":`...)
		b = appendString(b, f.Code)
	}
	return append(b, '}'), nil
}

// MarshalJSON encodes the frame with [Frame.Encode], so that a Frame embedded
// in another value keeps the canonical form.
func (f Frame) MarshalJSON() ([]byte, error) { return f.Encode() }

// UnmarshalJSON decodes with [DecodeFrame].
func (f *Frame) UnmarshalJSON(data []byte) error {
	g, err := DecodeFrame(data)
	if err != nil {
		return err
	}
	*f = g
	return nil
}

// appendCompact appends raw JSON with insignificant whitespace removed.
// json.Compact leaves string contents byte for byte as they were (it does no
// HTML escaping), which is what keeps re-encoded golden vectors identical.
func appendCompact(dst []byte, raw []byte) ([]byte, error) {
	buf := bytes.NewBuffer(dst)
	if err := json.Compact(buf, raw); err != nil {
		return dst, err
	}
	return buf.Bytes(), nil
}

const hexDigits = "0123456789abcdef"

// appendString appends s as a JSON string in the wire's one encoding rule,
// which is encoding/json's without HTML escaping: the quote, the backslash and
// control characters are escaped (with the short forms \b \f \n \r \t where
// they exist), and so are U+2028 and U+2029; <, > and & are not. Invalid
// UTF-8, which a JavaScript string cannot hold, becomes U+FFFD as
// encoding/json would make it.
func appendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i++
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// marshalValue turns a payload or result given as any into raw JSON. nil
// means "absent". A json.RawMessage is taken as it is (Encode compacts and
// checks it). Other values are marshalled by encoding/json without HTML
// escaping, which is the wire's one encoding rule (see [Frame.Encode]).
func marshalValue(v any) (json.RawMessage, error) {
	switch v := v.(type) {
	case nil:
		return nil, nil
	case json.RawMessage:
		if len(v) == 0 {
			return nil, nil
		}
		return v, nil
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte{'\n'}), nil
}

// CancelPayload is the payload of a [CancelType] notification.
type CancelPayload struct {
	ID string `json:"id"`
}
