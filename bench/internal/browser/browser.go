// Package browser starts headless Chromium with the monkbrowse extension for
// the benchmark, points the extension at a port and shares a tab through the
// extension's real popup page, as a person would.
package browser

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
)

// Config says how to start the browser.
type Config struct {
	ExecPath string // the Chromium binary
	ExtDir   string // the unpacked extension
	ExtID    string // its id (fixed by the manifest key)
	Width    int    // window size; 0 → 1280×720
	Height   int
	Output   io.Writer // Chromium's own output; nil discards it
}

// Browser is a running Chromium with the extension loaded.
type Browser struct {
	cfg         Config
	dir         string
	allocCancel context.CancelFunc
	ctx         context.Context
	cancel      context.CancelFunc
	pid         int
}

// Launch starts Chromium headless (--headless=new, no sandbox as the
// benchmark runs as root) and waits for the extension's service worker.
func Launch(ctx context.Context, cfg Config) (*Browser, error) {
	if cfg.Width == 0 {
		cfg.Width, cfg.Height = 1280, 720
	}
	dir, err := os.MkdirTemp("", "monkbrowse-bench-profile-")
	if err != nil {
		return nil, err
	}
	b := &Browser{cfg: cfg, dir: dir}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(cfg.ExecPath),
		chromedp.UserDataDir(dir),
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.NoSandbox,
		chromedp.Flag("headless", "new"),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.Flag("mute-audio", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("password-store", "basic"),
		chromedp.Flag("use-mock-keychain", true),
		chromedp.Flag("load-extension", cfg.ExtDir),
		chromedp.Flag("disable-extensions-except", cfg.ExtDir),
		chromedp.WindowSize(cfg.Width, cfg.Height),
		chromedp.ModifyCmdFunc(func(cmd *exec.Cmd) {
			if cmd.SysProcAttr == nil {
				cmd.SysProcAttr = &syscall.SysProcAttr{}
			}
			cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
		}),
	}
	if cfg.Output != nil {
		opts = append(opts, chromedp.CombinedOutput(cfg.Output))
	}
	var allocCtx context.Context
	allocCtx, b.allocCancel = chromedp.NewExecAllocator(context.Background(), opts...)
	b.ctx, b.cancel = chromedp.NewContext(allocCtx)
	if err := guarded(ctx, b.ctx, b.cancel); err != nil {
		b.Close()
		return nil, fmt.Errorf("starting %s: %w", cfg.ExecPath, err)
	}
	if p := chromedp.FromContext(b.ctx).Browser.Process(); p != nil {
		b.pid = p.Pid
	}
	if _, err := b.serviceWorker(ctx); err != nil {
		b.Close()
		return nil, err
	}
	return b, nil
}

// guarded runs the first action of a chromedp context (which must carry no
// deadline: chromedp ties the target's life to it) within guard.
func guarded(guard, cdpCtx context.Context, cancel context.CancelFunc) error {
	done := make(chan error, 1)
	go func() { done <- chromedp.Do(cdpCtx) }()
	select {
	case err := <-done:
		return err
	case <-guard.Done():
		cancel()
		<-done
		return guard.Err()
	}
}

// Pid is the browser's main process id.
func (b *Browser) Pid() int { return b.pid }

// Close stops the browser and removes its profile.
func (b *Browser) Close() {
	if b.cancel != nil {
		b.cancel()
	}
	if b.allocCancel != nil {
		b.allocCancel()
	}
	for i := 0; i < 5; i++ {
		if os.RemoveAll(b.dir) == nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (b *Browser) within(ctx context.Context, c context.Context) (context.Context, context.CancelFunc) {
	c2, cancel := context.WithCancel(c)
	stop := context.AfterFunc(ctx, cancel)
	return c2, func() { stop(); cancel() }
}

func (b *Browser) serviceWorker(ctx context.Context) (*target.Info, error) {
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	prefix := "chrome-extension://" + b.cfg.ExtID + "/"
	for {
		c, cancel2 := b.within(ctx, b.ctx)
		infos, err := chromedp.Targets(c)
		cancel2()
		if err == nil {
			for _, in := range infos {
				if in.Type == "service_worker" && strings.HasPrefix(in.URL, prefix) {
					return in, nil
				}
			}
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("the extension's service worker (%s) did not start: %w", b.cfg.ExtID, ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// SetPort writes the extension's settings {port, label} through its service
// worker, as the options page does; the extension reconnects on the change.
func (b *Browser) SetPort(ctx context.Context, port int, label string) error {
	// Right after start-up the worker's target can exist before its global
	// scope does ("chrome is not defined"): retry briefly.
	var err error
	for i := 0; i < 20; i++ {
		if err = b.setPort(ctx, port, label); err == nil || ctx.Err() != nil {
			return err
		}
		time.Sleep(250 * time.Millisecond)
	}
	return err
}

func (b *Browser) setPort(ctx context.Context, port int, label string) error {
	in, err := b.serviceWorker(ctx)
	if err != nil {
		return err
	}
	swCtx, cancel := chromedp.NewContext(b.ctx, chromedp.WithTargetID(in.TargetID), chromedp.WithDetachOnCancel())
	defer cancel()
	if err := guarded(ctx, swCtx, cancel); err != nil {
		return fmt.Errorf("attaching to the service worker: %w", err)
	}
	c, cancel2 := b.within(ctx, swCtx)
	defer cancel2()
	expr := fmt.Sprintf(`chrome.storage.local.set({settings: {port: %d, label: %q}}).then(() => true)`, port, label)
	_, err = chromedp.Run(c, chromedp.Evaluate[bool](expr, chromedp.EvalAwaitPromise))
	return err
}

// Tab is a page the benchmark opened.
type Tab struct {
	ctx    context.Context
	cancel context.CancelFunc
}

// Close closes the tab.
func (t *Tab) Close() { t.cancel() }

// OpenTab opens url in a new tab and waits for it to load.
func (b *Browser) OpenTab(ctx context.Context, url string) (*Tab, error) {
	tctx, cancel := chromedp.NewContext(b.ctx)
	if err := guarded(ctx, tctx, cancel); err != nil {
		return nil, fmt.Errorf("opening a tab: %w", err)
	}
	t := &Tab{ctx: tctx, cancel: cancel}
	c, cancel2 := b.within(ctx, tctx)
	defer cancel2()
	if err := chromedp.Do(c, chromedp.Navigate(url)); err != nil {
		t.Close()
		return nil, fmt.Errorf("opening %s: %w", url, err)
	}
	return t, nil
}

// FirstTab navigates the browser's first tab (the one it started with) to
// url and returns it, so no blank tab is left over to cost memory. Its Close
// does nothing; the tab ends with the browser.
func (b *Browser) FirstTab(ctx context.Context, url string) (*Tab, error) {
	t := &Tab{ctx: b.ctx, cancel: func() {}}
	c, cancel := b.within(ctx, b.ctx)
	defer cancel()
	if err := chromedp.Do(c, chromedp.Navigate(url)); err != nil {
		return nil, fmt.Errorf("opening %s: %w", url, err)
	}
	return t, nil
}

// Eval evaluates expr in the tab (promises awaited).
func Eval[T any](ctx context.Context, b *Browser, t *Tab, expr string) (T, error) {
	c, cancel := b.within(ctx, t.ctx)
	defer cancel()
	return chromedp.Run(c, chromedp.Evaluate[T](expr, chromedp.EvalAwaitPromise))
}

// ShareTab connects the extension to port and shares the tab showing url
// through the popup page: it opens popup.html, waits for the connection,
// clicks the tab's Share toggle and waits for its number. The popup's tab
// is closed again, so the shared tab is the only page left.
func (b *Browser) ShareTab(ctx context.Context, url string) (slot int, err error) {
	popup, err := b.OpenTab(ctx, "chrome-extension://"+b.cfg.ExtID+"/popup.html")
	if err != nil {
		return 0, fmt.Errorf("opening the popup page: %w", err)
	}
	defer popup.Close()
	poll := func(what, expr string, ok func(string) bool) (string, error) {
		var last string
		for {
			v, err := Eval[string](ctx, b, popup, expr)
			if err == nil {
				last = v
				if ok(v) {
					return v, nil
				}
			}
			select {
			case <-ctx.Done():
				return last, fmt.Errorf("%s (last seen %q, err %v): %w", what, last, err, ctx.Err())
			case <-time.After(100 * time.Millisecond):
			}
		}
	}
	if _, err := poll("the extension did not connect",
		`chrome.storage.local.get('status').then(r => (r.status && r.status.state) || '')`,
		func(v string) bool { return v == "connected" }); err != nil {
		return 0, err
	}
	idStr, err := poll("no tab has the URL "+url,
		fmt.Sprintf(`chrome.tabs.query({}).then(ts => ts.filter(t => t.url === %q).map(t => String(t.id)).join(','))`, url),
		func(v string) bool { return v != "" && !strings.Contains(v, ",") })
	if err != nil {
		return 0, err
	}
	// The popup lists tabs when it opens: reload it so it shows this one.
	if _, err := Eval[bool](ctx, b, popup, `location.reload(), true`); err != nil {
		return 0, err
	}
	toggle := fmt.Sprintf(`li[data-tab-id="%s"] input.share`, idStr)
	if _, err := poll("the popup shows no Share toggle for tab "+idStr,
		fmt.Sprintf(`document.querySelector(%q) ? 'yes' : ''`, toggle),
		func(v string) bool { return v == "yes" }); err != nil {
		return 0, err
	}
	c, cancel := b.within(ctx, popup.ctx)
	defer cancel()
	if err := chromedp.Do(c, chromedp.Click(chromedp.CSS(toggle))); err != nil {
		return 0, fmt.Errorf("clicking Share: %w", err)
	}
	v, err := poll("the shared tab got no number",
		fmt.Sprintf(`(document.querySelector('li[data-tab-id="%s"] .slot') || {}).textContent || ''`, idStr),
		func(v string) bool { return strings.TrimSpace(v) != "" })
	if err != nil {
		return 0, err
	}
	if _, err := fmt.Sscan(strings.TrimSpace(v), &slot); err != nil {
		return 0, errors.New("the popup shows no number for the shared tab: " + v)
	}
	return slot, nil
}

// AttachPage attaches to the page target whose URL starts with prefix.
func (b *Browser) AttachPage(ctx context.Context, prefix string) (*Tab, error) {
	c, cancel := b.within(ctx, b.ctx)
	infos, err := chromedp.Targets(c)
	cancel()
	if err != nil {
		return nil, err
	}
	for _, in := range infos {
		if in.Type == "page" && strings.HasPrefix(in.URL, prefix) {
			tctx, tcancel := chromedp.NewContext(b.ctx, chromedp.WithTargetID(in.TargetID), chromedp.WithDetachOnCancel())
			if err := guarded(ctx, tctx, tcancel); err != nil {
				return nil, err
			}
			return &Tab{ctx: tctx, cancel: tcancel}, nil
		}
	}
	return nil, fmt.Errorf("no page target at %s", prefix)
}

// Run runs a chromedp action on the tab within ctx.
func Run[T any](ctx context.Context, b *Browser, t *Tab, a chromedp.Action[T]) (T, error) {
	c, cancel := b.within(ctx, t.ctx)
	defer cancel()
	return chromedp.Run(c, a)
}

// FitViewport resizes the tab's window so that its viewport (innerWidth ×
// innerHeight) is w × h, as the other servers' --viewport options do.
func (b *Browser) FitViewport(ctx context.Context, t *Tab, w, h int) error {
	c, cancel := b.within(ctx, t.ctx)
	defer cancel()
	tid := chromedp.FromContext(t.ctx).Target.TargetID
	win, err := chromedp.CallBrowser(c, cdpbrowser.GetWindowForTarget, cdpbrowser.GetWindowForTargetParams{TargetID: tid})
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
