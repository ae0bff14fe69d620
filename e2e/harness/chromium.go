package harness

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/serviceworker"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
)

// BrowserConfig says how to start Chromium.
type BrowserConfig struct {
	// ExecPath is the browser binary; empty means ChromiumPath().
	ExecPath string
	// Extension is the unpacked extension to load (required).
	Extension Extension
	// UserDataDir is the profile directory. Empty means a fresh temporary
	// directory that Close removes. Reuse a directory to restart the same
	// profile.
	UserDataDir string
	// Headed shows a window (needs a display); the default is --headless=new.
	Headed bool
	// Output receives Chromium's own stdout and stderr; nil discards them.
	Output io.Writer
	// Name labels the browser in watchdog messages.
	Name string
	// Width and Height are the window size; 0 means 1280×800.
	Width, Height int
	// Monkbrowse is the monkbrowse binary whose pairing host the profile
	// gets (InstallNativeHost); Chromium then runs with a home holding
	// PairingSecret, so the extension pairs with every server StartServer
	// started. Empty: no host, and the extension stays unpaired.
	Monkbrowse string
	// Welcome lets the extension open its welcome page on installation, as
	// it does for a person. Off (the default), Launch writes the
	// extension's "no-welcome" marker file into Extension.Dir first.
	Welcome bool
	// ExtraFlags are more Chromium switches, "name" or "name=value" (a
	// leading "--" is dropped), e.g. "enable-features=WebMCP" for the
	// site-tools tests. Empty for every other test.
	ExtraFlags []string
	// AllowExtensionID registers the pairing host for Extension.ID too
	// (`monkbrowse install --allow-extension-id`): a copy of the extension
	// under another key then pairs like the real one.
	AllowExtensionID bool
}

// NoWelcomeMarker is the file that, in the extension's folder, keeps the
// extension from opening its welcome page on installation.
const NoWelcomeMarker = "no-welcome"

// Browser is one running Chromium with the extension loaded.
type Browser struct {
	cfg         BrowserConfig
	ExtensionID string
	// Dir is the profile directory in use.
	Dir       string
	removeDir bool
	// hostHome holds the pairing host's secret and script (Monkbrowse).
	hostHome string

	allocCtx    context.Context
	allocCancel context.CancelFunc
	ctx         context.Context // the first tab's chromedp context
	cancel      context.CancelFunc
	pid         int
}

// Launch starts Chromium with the extension, waits for the extension's
// service worker to appear and returns the browser. The flags are those
// verified for Debian's Chromium (shared/spec/LIBNOTES.md).
func Launch(ctx context.Context, cfg BrowserConfig) (*Browser, error) {
	if cfg.Extension.Dir == "" || cfg.Extension.ID == "" {
		return nil, errors.New("harness: BrowserConfig.Extension is not set")
	}
	if !cfg.Welcome {
		if err := os.WriteFile(filepath.Join(cfg.Extension.Dir, NoWelcomeMarker), []byte("the test harness suppresses the welcome page\n"), 0o644); err != nil {
			return nil, fmt.Errorf("harness: writing the welcome marker: %w", err)
		}
	}
	if cfg.ExecPath == "" {
		p, err := ChromiumPath()
		if err != nil {
			return nil, err
		}
		cfg.ExecPath = p
	}
	if cfg.Name == "" {
		cfg.Name = "chromium"
	}
	if cfg.Width == 0 || cfg.Height == 0 {
		cfg.Width, cfg.Height = 1280, 800
	}
	b := &Browser{cfg: cfg, ExtensionID: cfg.Extension.ID, Dir: cfg.UserDataDir}
	if b.Dir == "" {
		d, err := os.MkdirTemp("", "monkbrowse-e2e-profile-")
		if err != nil {
			return nil, err
		}
		b.Dir, b.removeDir = d, true
	}
	if cfg.Monkbrowse != "" {
		home, err := os.MkdirTemp("", "monkbrowse-e2e-browser-home-")
		b.hostHome = home
		if err == nil {
			err = SeedPairing(home)
		}
		if err == nil {
			var ids []string
			if cfg.AllowExtensionID {
				ids = append(ids, cfg.Extension.ID)
			}
			err = InstallNativeHost(ctx, cfg.Monkbrowse, home, b.Dir, ids...)
		}
		if err != nil {
			if b.removeDir {
				_ = os.RemoveAll(b.Dir)
			}
			if home != "" {
				_ = os.RemoveAll(home)
			}
			return nil, err
		}
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(cfg.ExecPath),
		chromedp.UserDataDir(b.Dir),
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.NoSandbox,
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("password-store", "basic"),
		chromedp.Flag("use-mock-keychain", true),
		chromedp.Flag("load-extension", cfg.Extension.Dir),
		chromedp.Flag("disable-extensions-except", cfg.Extension.Dir),
		chromedp.WindowSize(cfg.Width, cfg.Height),
		chromedp.ModifyCmdFunc(func(cmd *exec.Cmd) {
			if cmd.SysProcAttr == nil {
				cmd.SysProcAttr = &syscall.SysProcAttr{}
			}
			// The browser dies with the test process.
			cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
		}),
	}
	for _, f := range cfg.ExtraFlags {
		name, value, hasValue := strings.Cut(strings.TrimPrefix(f, "--"), "=")
		if hasValue {
			opts = append(opts, chromedp.Flag(name, value))
		} else {
			opts = append(opts, chromedp.Flag(name, true))
		}
	}
	if cfg.Headed {
		opts = append(opts, chromedp.VisibleWindow)
	} else {
		opts = append(opts, chromedp.Flag("headless", "new"), chromedp.Flag("hide-scrollbars", true), chromedp.Flag("mute-audio", true))
	}
	if cfg.Output != nil {
		opts = append(opts, chromedp.CombinedOutput(cfg.Output))
	}
	b.allocCtx, b.allocCancel = chromedp.NewExecAllocator(context.Background(), opts...)
	b.ctx, b.cancel = chromedp.NewContext(b.allocCtx)
	if err := runGuarded(ctx, b.ctx, b.cancel); err != nil {
		b.Close()
		return nil, fmt.Errorf("starting %s (%s): %w", cfg.Name, cfg.ExecPath, err)
	}
	if p := chromedp.FromContext(b.ctx).Browser.Process(); p != nil {
		b.pid = p.Pid
		registerProcess(b.pid, cfg.Name)
	}
	if _, err := b.ServiceWorkerTarget(ctx); err != nil {
		b.Close()
		return nil, err
	}
	return b, nil
}

// runGuarded runs the first (attaching) action on a chromedp context that must
// not carry a deadline, because chromedp binds the tab's lifetime to it; guard
// bounds how long the caller waits.
func runGuarded(guard, cdpCtx context.Context, cancel context.CancelFunc) error {
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

// bounded derives from a chromedp context a context that also ends with
// guard (its deadline and cancellation).
func bounded(guard, cdpCtx context.Context) (context.Context, context.CancelFunc) {
	c, cancel := context.WithCancel(cdpCtx)
	if dl, ok := guard.Deadline(); ok {
		var cancel2 context.CancelFunc
		c, cancel2 = context.WithDeadline(c, dl)
		prev := cancel
		cancel = func() { cancel2(); prev() }
	}
	stop := context.AfterFunc(guard, cancel)
	return c, func() { stop(); cancel() }
}

// Close stops the browser and removes a temporary profile.
func (b *Browser) Close() {
	if b.cancel != nil {
		b.cancel()
	}
	if b.allocCancel != nil {
		b.allocCancel()
	}
	if b.pid != 0 {
		unregisterProcess(b.pid)
	}
	if b.hostHome != "" {
		_ = os.RemoveAll(b.hostHome)
	}
	if b.removeDir {
		for i := 0; i < 5; i++ {
			if os.RemoveAll(b.Dir) == nil {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
}

// Pid is the browser process id.
func (b *Browser) Pid() int { return b.pid }

// Targets lists the browser's CDP targets.
func (b *Browser) Targets(ctx context.Context) ([]*target.Info, error) {
	c, cancel := bounded(ctx, b.ctx)
	defer cancel()
	return chromedp.Targets(c)
}

// FindTarget polls the targets until match accepts one or ctx ends.
func (b *Browser) FindTarget(ctx context.Context, what string, match func(*target.Info) bool) (*target.Info, error) {
	var last []*target.Info
	for {
		infos, err := b.Targets(ctx)
		if err == nil {
			last = infos
			for _, in := range infos {
				if match(in) {
					return in, nil
				}
			}
		}
		select {
		case <-ctx.Done():
			var seen []string
			for _, in := range last {
				seen = append(seen, in.Type+" "+in.URL)
			}
			return nil, fmt.Errorf("no %s among the browser's targets [%s]: %w", what, strings.Join(seen, "; "), ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// ExtensionURL is chrome-extension://<id>/<p>.
func (b *Browser) ExtensionURL(p string) string {
	return "chrome-extension://" + b.ExtensionID + "/" + strings.TrimPrefix(p, "/")
}

// ServiceWorkerTarget waits (up to 20 s within ctx) for the extension's
// service worker target.
func (b *Browser) ServiceWorkerTarget(ctx context.Context) (*target.Info, error) {
	c, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	prefix := b.ExtensionURL("")
	in, err := b.FindTarget(c, "service worker of the extension "+b.ExtensionID, func(in *target.Info) bool {
		return in.Type == "service_worker" && strings.HasPrefix(in.URL, prefix)
	})
	if err != nil {
		return nil, fmt.Errorf("the extension's service worker did not start (is %s a built MV3 extension with a background service worker?): %w", b.cfg.Extension.Dir, err)
	}
	return in, nil
}

// InServiceWorker attaches to the extension's service worker for the length
// of fn and detaches afterwards (an attached debugger keeps a worker alive,
// which the tests must not rely on). fn gets a chromedp context of the
// worker bounded by ctx.
func (b *Browser) InServiceWorker(ctx context.Context, fn func(sw context.Context) error) error {
	in, err := b.ServiceWorkerTarget(ctx)
	if err != nil {
		return err
	}
	swCtx, cancel := chromedp.NewContext(b.ctx, chromedp.WithTargetID(in.TargetID), chromedp.WithDetachOnCancel())
	defer cancel()
	if err := runGuarded(ctx, swCtx, cancel); err != nil {
		return fmt.Errorf("attaching to the extension's service worker: %w", err)
	}
	c, cancel2 := bounded(ctx, swCtx)
	defer cancel2()
	return fn(c)
}

// EvalServiceWorker evaluates expr (promises awaited) in the extension's
// service worker.
func EvalServiceWorker[T any](ctx context.Context, b *Browser, expr string) (T, error) {
	var res T
	err := b.InServiceWorker(ctx, func(sw context.Context) error {
		var err error
		res, err = chromedp.Run(sw, chromedp.Evaluate[T](expr, chromedp.EvalAwaitPromise))
		return err
	})
	return res, err
}

// SetSettings writes the extension's settings {port, label} through its
// service worker, exactly as the options page stores them; the extension
// reconnects on any change of settings (docs/CONTRACTS.md).
func (b *Browser) SetSettings(ctx context.Context, port int, label string) error {
	expr := fmt.Sprintf(`(async () => {
		const cur = (await chrome.storage.local.get('settings')).settings || {};
		await chrome.storage.local.set({settings: {...cur, port: %d, label: %q}});
		return true;
	})()`, port, label)
	// A worker that is still starting may not have its extension bindings
	// yet; try again for a few seconds.
	deadline := time.Now().Add(5 * time.Second)
	for {
		_, err := EvalServiceWorker[bool](ctx, b, expr)
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return fmt.Errorf("setting the extension's port to %d: %w", port, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// ExtStatus is the extension's `status` record in chrome.storage.local.
type ExtStatus struct {
	State  string `json:"state"`
	Reason string `json:"reason,omitempty"`
	Port   int    `json:"port"`
	Since  int64  `json:"since"`
}

// ExtIdentity is the extension's `identity` record.
type ExtIdentity struct {
	ProfileID     string `json:"profileId"`
	AssignedLabel string `json:"assignedLabel,omitempty"`
	AssignedSlug  string `json:"assignedSlug,omitempty"`
}

// StopServiceWorkers stops every running service worker of the browser,
// the extension's included, through the DevTools ServiceWorker domain (as
// Chrome does to an idle worker). via is any attached page tab.
func (b *Browser) StopServiceWorkers(ctx context.Context, via *Tab) error {
	c, cancel := via.Context(ctx)
	defer cancel()
	if _, err := chromedp.Call(c, serviceworker.Enable, cdp.Empty{}); err != nil {
		return fmt.Errorf("ServiceWorker.enable: %w", err)
	}
	if _, err := chromedp.Call(c, serviceworker.StopAllWorkers, cdp.Empty{}); err != nil {
		return fmt.Errorf("ServiceWorker.stopAllWorkers: %w", err)
	}
	return nil
}

// AllowDownloads makes the browser save downloads in dir without asking.
// Chrome's own download records (chrome.downloads) are kept as usual.
func (b *Browser) AllowDownloads(ctx context.Context, dir string) error {
	c, cancel := bounded(ctx, b.ctx)
	defer cancel()
	_, err := chromedp.CallBrowser(c, cdpbrowser.SetDownloadBehavior, cdpbrowser.SetDownloadBehaviorParams{
		Behavior: cdpbrowser.SetDownloadBehaviorBehaviorAllow, DownloadPath: dir,
	})
	return err
}
