package tools

import (
	"context"
	"sync"
)

type sentKey struct{}

// withSent returns ctx carrying fn (protocol.CallTool.Sent), to be called
// once, just before the call's first request is sent to the extension
// (issue 12, "sent or not": the owner tells a forwarder that its call is
// leaving for the browser). fn runs synchronously: the request waits for it.
func withSent(ctx context.Context, fn func(context.Context) error) context.Context {
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
