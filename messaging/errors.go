package messaging

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"
)

// ErrClosed reports that a peer or socket is closed. Every error returned
// because the connection went away, whichever side closed it, matches it with
// errors.Is.
var ErrClosed = errors.New("messaging: peer closed")

// ErrMalformedFrame is wrapped by [DecodeFrame] and [Frame.Encode] errors for
// frames that do not follow the envelope.
var ErrMalformedFrame = errors.New("messaging: malformed frame")

// RequestTimeoutError is a request's timeout: [WithRequestTimeout] makes it
// the cause of the request's context, and [Peer.Request] (and
// [Peer.RequestSettled], and [Peer.Ping] with Type "ping") return it when no
// response arrived before that timeout. It carries the type and the duration
// so that the message can tell a person what was slow. A caller may also set
// one with context.WithTimeoutCause itself.
type RequestTimeoutError struct {
	Type    string
	Timeout time.Duration
}

func (e *RequestTimeoutError) Error() string {
	return fmt.Sprintf("request %q timed out after %s", e.Type, e.Timeout)
}

// Is lets callers that only care about deadlines test for
// context.DeadlineExceeded, as they would with a context-based timeout.
func (e *RequestTimeoutError) Is(target error) bool { return target == context.DeadlineExceeded }

// RemoteError is an ok:false response: the other side received the request
// and answered with an error. Decide on Code, never on Message: Message is
// written for people and may change with any release.
type RemoteError struct {
	Type    string // the request type that failed
	Message string // the remote's error text, unchanged
	Code    string // the remote's machine-readable reason ("" if it gave none)
}

// ErrorCode returns the remote's code, so that a handler that passes a
// RemoteError on (a proxy) passes its code on too (see [Coded]).
func (e *RemoteError) ErrorCode() string { return e.Code }

// Coded is implemented by errors that carry a machine-readable code. A
// request handler's error that is (or wraps) one answers with that code in
// the response's "code" field; [WithCode] makes one.
type Coded interface {
	error
	ErrorCode() string
}

// WithCode returns err with a code for the response's "code" field; its
// message is err's. It returns nil for a nil err.
func WithCode(code string, err error) error {
	if err == nil {
		return nil
	}
	return &codedError{code: code, err: err}
}

type codedError struct {
	code string
	err  error
}

func (e *codedError) Error() string     { return e.err.Error() }
func (e *codedError) Unwrap() error     { return e.err }
func (e *codedError) ErrorCode() string { return e.code }

// ErrorCode returns the code err carries (the outermost [Coded] in its
// chain), or "".
func ErrorCode(err error) string {
	var c Coded
	if errors.As(err, &c) {
		return c.ErrorCode()
	}
	return ""
}

// Error returns the remote's message unchanged: the extension writes its
// errors for the person (or AI) reading them, and prefixing them with
// transport details would only bury the advice. Type is there for callers
// that want to name the request.
func (e *RemoteError) Error() string {
	if e.Message == "" {
		return fmt.Sprintf("request %q failed (the other side gave no reason)", e.Type)
	}
	return e.Message
}

// disconnectedError is what calls on a closed peer get. It matches ErrClosed
// and unwraps to the transport error that ended the connection, if any.
type disconnectedError struct {
	op    string // e.g. `request "browser_click"`, "ping"; empty for Peer.Err
	cause error
}

func (e *disconnectedError) Error() string {
	msg := "peer disconnected"
	if e.op != "" {
		msg = e.op + " failed: " + msg
	}
	// A bare ErrClosed or EOF adds nothing to "peer disconnected"; anything
	// else (a WebSocket close code, a network error) helps whoever debugs it.
	if e.cause != nil && e.cause != ErrClosed && e.cause != errPipeClosed && !errors.Is(e.cause, io.EOF) {
		msg += " (" + e.cause.Error() + ")"
	}
	return msg
}

func (e *disconnectedError) Is(target error) bool { return target == ErrClosed }
func (e *disconnectedError) Unwrap() error        { return e.cause }
