package harness

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
)

// Tab is a page target the harness is attached to through CDP. It is the
// test's independent view of a tab: reading values, checked states, the
// location and the DOM without going through monkbrowse.
type Tab struct {
	b        *Browser
	ctx      context.Context
	cancel   context.CancelFunc
	TargetID target.ID
}

// NewTab opens url in a new window of the browser and waits for it to load.
func (b *Browser) NewTab(ctx context.Context, url string) (*Tab, error) {
	tctx, cancel := chromedp.NewContext(b.ctx)
	if err := runGuarded(ctx, tctx, cancel); err != nil {
		return nil, fmt.Errorf("opening a tab: %w", err)
	}
	t := &Tab{b: b, ctx: tctx, cancel: cancel, TargetID: chromedp.FromContext(tctx).Target.TargetID}
	if url != "" {
		if err := t.Navigate(ctx, url); err != nil {
			t.Close()
			return nil, err
		}
	}
	return t, nil
}

// NewBackgroundTab opens url as a background tab of the most recently
// focused window (Target.createTarget with newWindow=false, background=true),
// like a person's ctrl-click, and attaches to it.
func (b *Browser) NewBackgroundTab(ctx context.Context, url string) (*Tab, error) {
	return b.openTarget(ctx, "a background tab", target.CreateTargetParams{
		URL: url, NewWindow: ptr(false), Background: ptr(true),
	})
}

// NewUnfocusedWindow opens url in a new window that does not take the
// focus (Target.createTarget with newWindow=true, focus=false): the page is
// visible but its document does not have focus, as when the person works in
// another application.
func (b *Browser) NewUnfocusedWindow(ctx context.Context, url string) (*Tab, error) {
	return b.openTarget(ctx, "an unfocused window", target.CreateTargetParams{
		URL: url, NewWindow: ptr(true), Focus: ptr(false),
	})
}

// openTarget creates a page target, attaches to it and waits for its load.
func (b *Browser) openTarget(ctx context.Context, what string, p target.CreateTargetParams) (*Tab, error) {
	c, cancel := bounded(ctx, b.ctx)
	defer cancel()
	res, err := chromedp.CallBrowser(c, target.CreateTarget, p)
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", what, err)
	}
	t, err := b.AttachTab(ctx, res.TargetID)
	if err != nil {
		return nil, err
	}
	if err := t.WaitLoaded(ctx); err != nil {
		t.Close()
		return nil, err
	}
	return t, nil
}

func ptr[T any](v T) *T { return &v }

// AttachTab attaches to an existing page target. Close closes the tab.
func (b *Browser) AttachTab(ctx context.Context, id target.ID) (*Tab, error) {
	tctx, cancel := chromedp.NewContext(b.ctx, chromedp.WithTargetID(id))
	if err := runGuarded(ctx, tctx, cancel); err != nil {
		return nil, fmt.Errorf("attaching to tab %s: %w", id, err)
	}
	return &Tab{b: b, ctx: tctx, cancel: cancel, TargetID: id}, nil
}

// FirstTab is the tab the browser started with. Its Close does nothing: the
// tab ends with the browser.
func (b *Browser) FirstTab() *Tab {
	return &Tab{b: b, ctx: b.ctx, TargetID: chromedp.FromContext(b.ctx).Target.TargetID}
}

// AttachPage attaches to the first page target whose URL starts with prefix,
// without waiting for one. Its Close detaches and leaves the tab open.
func (b *Browser) AttachPage(ctx context.Context, prefix string) (*Tab, error) {
	infos, err := b.Targets(ctx)
	if err != nil {
		return nil, err
	}
	for _, in := range infos {
		if in.Type == "page" && strings.HasPrefix(in.URL, prefix) {
			tctx, cancel := chromedp.NewContext(b.ctx, chromedp.WithTargetID(in.TargetID), chromedp.WithDetachOnCancel())
			if err := runGuarded(ctx, tctx, cancel); err != nil {
				return nil, fmt.Errorf("attaching to the page at %s: %w", in.URL, err)
			}
			return &Tab{b: b, ctx: tctx, cancel: cancel, TargetID: in.TargetID}, nil
		}
	}
	return nil, fmt.Errorf("no page target at %s", prefix)
}

// WaitTab waits for a page target whose URL satisfies match and attaches to
// it.
func (b *Browser) WaitTab(ctx context.Context, what string, match func(url string) bool) (*Tab, error) {
	in, err := b.FindTarget(ctx, what, func(in *target.Info) bool {
		return in.Type == "page" && match(in.URL)
	})
	if err != nil {
		return nil, err
	}
	return b.AttachTab(ctx, in.TargetID)
}

// Close closes the tab (and detaches).
func (t *Tab) Close() {
	if t.cancel != nil {
		t.cancel()
	}
}

// Context returns a chromedp context of the tab bounded by ctx, for direct
// chromedp calls.
func (t *Tab) Context(ctx context.Context) (context.Context, context.CancelFunc) {
	return bounded(ctx, t.ctx)
}

// Do runs chromedp actions on the tab.
func (t *Tab) Do(ctx context.Context, actions ...chromedp.Action[chromedp.Void]) error {
	c, cancel := bounded(ctx, t.ctx)
	defer cancel()
	return chromedp.Do(c, actions...)
}

// Run runs one chromedp action with a result on the tab.
func Run[T any](ctx context.Context, t *Tab, a chromedp.Action[T]) (T, error) {
	c, cancel := bounded(ctx, t.ctx)
	defer cancel()
	return chromedp.Run(c, a)
}

// FitViewport resizes the tab's window so that its viewport (innerWidth ×
// innerHeight) is w × h.
func (t *Tab) FitViewport(ctx context.Context, w, h int) error {
	c, cancel := bounded(ctx, t.ctx)
	defer cancel()
	win, err := chromedp.CallBrowser(c, cdpbrowser.GetWindowForTarget, cdpbrowser.GetWindowForTargetParams{TargetID: t.TargetID})
	if err != nil {
		return fmt.Errorf("finding the tab's window: %w", err)
	}
	if _, err := chromedp.CallBrowser(c, cdpbrowser.SetContentsSize, cdpbrowser.SetContentsSizeParams{WindowID: win.WindowID, Width: int64(w), Height: int64(h)}); err != nil {
		return fmt.Errorf("resizing the tab's window: %w", err)
	}
	got, err := chromedp.Run(c, chromedp.Evaluate[[]int](`[innerWidth, innerHeight]`))
	if err != nil {
		return err
	}
	if len(got) != 2 || got[0] != w || got[1] != h {
		return fmt.Errorf("the viewport is %v after resizing, want %d×%d", got, w, h)
	}
	return nil
}

// Navigate loads url through CDP and waits for the load event.
func (t *Tab) Navigate(ctx context.Context, url string) error {
	if err := t.Do(ctx, chromedp.Navigate(url)); err != nil {
		return fmt.Errorf("navigating to %s: %w", url, err)
	}
	return nil
}

// Eval evaluates expr in the page's main world (promises awaited) and
// decodes the result into T.
func Eval[T any](ctx context.Context, t *Tab, expr string) (T, error) {
	c, cancel := bounded(ctx, t.ctx)
	defer cancel()
	return chromedp.Run(c, chromedp.Evaluate[T](expr, chromedp.EvalAwaitPromise))
}

// Location is the tab's current URL, read through CDP.
func (t *Tab) Location(ctx context.Context) (string, error) {
	return Eval[string](ctx, t, "location.href")
}

// WaitLoaded waits until the document's readyState is complete.
func (t *Tab) WaitLoaded(ctx context.Context) error {
	_, err := WaitEval[bool](ctx, t, "document.readyState === 'complete'", func(v bool) bool { return v })
	return err
}

// WaitEval evaluates expr every 50 ms until ok accepts its value or ctx
// ends; the error then shows the last value seen.
func WaitEval[T any](ctx context.Context, t *Tab, expr string, ok func(T) bool) (T, error) {
	var last T
	var lastErr error
	for {
		c, cancel := context.WithTimeout(ctx, 5*time.Second)
		v, err := Eval[T](c, t, expr)
		cancel()
		if err == nil {
			last, lastErr = v, nil
			if ok(v) {
				return v, nil
			}
		} else {
			lastErr = err
		}
		select {
		case <-ctx.Done():
			lb, _ := json.Marshal(last)
			if lastErr != nil {
				return last, fmt.Errorf("waiting for `%s`: last error %v: %w", expr, lastErr, ctx.Err())
			}
			return last, fmt.Errorf("waiting for `%s`: last value %s: %w", expr, lb, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// EvalInFrame evaluates expr in an isolated world of the first frame of the
// tab whose URL contains urlPart (same-process frames, including a
// cross-origin frame of the same site).
func EvalInFrame[T any](ctx context.Context, t *Tab, urlPart, expr string) (T, error) {
	var zero T
	c, cancel := bounded(ctx, t.ctx)
	defer cancel()
	tree, err := chromedp.Call(c, page.GetFrameTree, cdp.Empty{})
	if err != nil {
		return zero, err
	}
	var found *cdp.Frame
	var walk func(n *page.FrameTree)
	walk = func(n *page.FrameTree) {
		if n == nil || found != nil {
			return
		}
		if n.Frame != nil && n.Frame.ParentID != "" && strings.Contains(n.Frame.URL, urlPart) {
			found = n.Frame
			return
		}
		for _, ch := range n.ChildFrames {
			walk(ch)
		}
	}
	walk(tree.FrameTree)
	if found == nil {
		return zero, fmt.Errorf("no frame with %q in its URL", urlPart)
	}
	world, err := chromedp.Call(c, page.CreateIsolatedWorld, page.CreateIsolatedWorldParams{FrameID: found.ID, WorldName: "e2e-check"})
	if err != nil {
		return zero, fmt.Errorf("isolated world in frame %s: %w", found.URL, err)
	}
	r, err := chromedp.Call(c, runtime.Evaluate, runtime.EvaluateParams{
		Expression: expr, ContextID: world.ExecutionContextID, ReturnByValue: ptr(true), AwaitPromise: ptr(true),
	})
	if err != nil {
		return zero, err
	}
	if r.ExceptionDetails != nil {
		return zero, &chromedp.ExceptionError{ExceptionDetails: r.ExceptionDetails}
	}
	var v T
	if err := json.Unmarshal(r.Result.Value, &v); err != nil {
		return zero, fmt.Errorf("decoding %s: %w", r.Result.Value, err)
	}
	return v, nil
}

// EvalInFrameTarget evaluates expr in the main world of the out-of-process
// frame (a cross-site iframe: its own "iframe" DevTools target) whose URL
// contains urlPart: the frame's own state, read independently of monkbrowse.
func EvalInFrameTarget[T any](ctx context.Context, b *Browser, urlPart, expr string) (T, error) {
	var zero T
	in, err := b.FindTarget(ctx, "the iframe target at "+urlPart, func(in *target.Info) bool {
		return in.Type == "iframe" && strings.Contains(in.URL, urlPart)
	})
	if err != nil {
		return zero, err
	}
	tctx, cancel := chromedp.NewContext(b.ctx, chromedp.WithTargetID(in.TargetID), chromedp.WithDetachOnCancel())
	defer cancel()
	if err := runGuarded(ctx, tctx, cancel); err != nil {
		return zero, fmt.Errorf("attaching to the iframe at %s: %w", in.URL, err)
	}
	c, cancel2 := bounded(ctx, tctx)
	defer cancel2()
	return chromedp.Run(c, chromedp.Evaluate[T](expr, chromedp.EvalAwaitPromise))
}

// EvalInExtensionWorlds evaluates expr in every execution context of the
// extension with extensionID (its content script's isolated world) in the
// out-of-process frame whose URL contains urlPart, and returns the values
// (JSON text), one per live context: none when nothing of the extension
// runs there.
func EvalInExtensionWorlds(ctx context.Context, b *Browser, extensionID, urlPart, expr string) ([]string, error) {
	return evalInExtensionWorlds(ctx, b, "iframe", extensionID, urlPart, expr)
}

// EvalInPageExtensionWorlds is EvalInExtensionWorlds in the top-level page
// (tab) whose URL contains urlPart.
func EvalInPageExtensionWorlds(ctx context.Context, b *Browser, extensionID, urlPart, expr string) ([]string, error) {
	return evalInExtensionWorlds(ctx, b, "page", extensionID, urlPart, expr)
}

func evalInExtensionWorlds(ctx context.Context, b *Browser, kind, extensionID, urlPart, expr string) ([]string, error) {
	in, err := b.FindTarget(ctx, "the "+kind+" target at "+urlPart, func(in *target.Info) bool {
		return in.Type == kind && strings.Contains(in.URL, urlPart)
	})
	if err != nil {
		return nil, err
	}
	tctx, cancel := chromedp.NewContext(b.ctx, chromedp.WithTargetID(in.TargetID), chromedp.WithDetachOnCancel())
	defer cancel()
	if err := runGuarded(ctx, tctx, cancel); err != nil {
		return nil, fmt.Errorf("attaching to the %s at %s: %w", kind, in.URL, err)
	}
	c, cancel2 := bounded(ctx, tctx)
	defer cancel2()
	var mu sync.Mutex
	var ids []runtime.ExecutionContextID
	if err := chromedp.Listen(c, func(ev any) {
		if e, ok := ev.(*runtime.EventExecutionContextCreated); ok && strings.HasPrefix(e.Context.Origin, "chrome-extension://"+extensionID) {
			mu.Lock()
			ids = append(ids, e.Context.ID)
			mu.Unlock()
		}
	}); err != nil {
		return nil, err
	}
	// Enabling Runtime again reports every existing context (CDP sends them
	// before its answer to Runtime.enable).
	if _, err := chromedp.Call(c, runtime.Disable, cdp.Empty{}); err != nil {
		return nil, err
	}
	if _, err := chromedp.Call(c, runtime.Enable, cdp.Empty{}); err != nil {
		return nil, err
	}
	mu.Lock()
	seen := append([]runtime.ExecutionContextID(nil), ids...)
	mu.Unlock()
	var out []string
	for _, id := range seen {
		r, err := chromedp.Call(c, runtime.Evaluate, runtime.EvaluateParams{Expression: expr, ContextID: id, ReturnByValue: ptr(true)})
		if err != nil || r.ExceptionDetails != nil {
			continue // a context of an earlier document, gone since
		}
		out = append(out, string(r.Result.Value))
	}
	return out, nil
}
