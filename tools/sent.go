package tools

import (
	"context"
	"sync"
)

type sentKey struct{}

// WithSent returns ctx carrying fn, to be called once, just before the
// call's first request is sent to the extension (issue 12, "sent or not":
// the owner asks the forwarder of a forwarded call call_sent). fn runs
// synchronously: the request waits for it. An error means the call must
// not be sent at all (its forwarder answered that its client cancelled it,
// or did not answer): the request fails with that error, which says so.
// In-process only: it is never on the wire.
func WithSent(ctx context.Context, fn func(context.Context) error) context.Context {
	var once sync.Once
	var err error
	return context.WithValue(ctx, sentKey{}, func(ctx context.Context) error {
		once.Do(func() { err = fn(ctx) })
		return err
	})
}

// MarkSent runs the call's Sent function the first time it is called for
// the call and returns its error, then and every later time; calls without
// one return nil. A session calls it before every request it sends, and
// sends nothing when it fails (issue 21: the call was cancelled, or its
// forwarder did not confirm it).
func MarkSent(ctx context.Context) error {
	if fn, ok := ctx.Value(sentKey{}).(func(context.Context) error); ok {
		return fn(ctx)
	}
	return nil
}

type clientKey struct{}

// WithClient returns ctx naming the calling AI app for what is kept per app
// (the snapshot that the next action's diff is computed against, a pause's
// app): the owner names a forwarder's calls after the connection they came
// on ("forwarder pid N"). In-process only: it is never on the wire.
func WithClient(ctx context.Context, client string) context.Context {
	return context.WithValue(ctx, clientKey{}, client)
}

// ClientOf is the calling app ctx's call was named after with WithClient;
// "" is the app this process serves itself.
func ClientOf(ctx context.Context) string {
	s, _ := ctx.Value(clientKey{}).(string)
	return s
}

type appKey struct{}

// withApp returns ctx carrying the calling AI app's name (protocol.CallTool.App).
func withApp(ctx context.Context, app string) context.Context {
	return context.WithValue(ctx, appKey{}, app)
}

// AppOf is the name of the AI app whose call ctx belongs to ("" when the
// call did not say). A session adds it to every request it sends
// (protocol.RequestAppField).
func AppOf(ctx context.Context) string {
	s, _ := ctx.Value(appKey{}).(string)
	return s
}
