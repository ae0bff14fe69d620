package e2e

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/monkbrowse/monkbrowse/e2e/harness"
)

// suite is one browser connected to one monkbrowse owner, with the fixture
// servers. Most tests share one suite (see shared); tests about profiles and
// the daemon build their own.
type suite struct {
	p                 *prerequisites
	fx                *harness.Fixtures
	browser           *harness.Browser
	popup             *harness.Popup
	server            *harness.Server
	port, controlPort int
	home              string
	label             string
	// uploads is the owner's --upload-root: browser_upload_file reads only
	// files inside it.
	uploads string
}

// newSuite starts an owner and a browser (profile label) and waits until
// the extension is connected to the owner.
func newSuite(ctx context.Context, t testing.TB, p *prerequisites, fx *harness.Fixtures, label string) (*suite, error) {
	s := &suite{p: p, fx: fx, label: label}
	var err error
	if s.port, err = harness.FreePort(); err != nil {
		return nil, err
	}
	if s.controlPort, err = harness.FreePort(); err != nil {
		return nil, err
	}
	if s.home, err = os.MkdirTemp(p.tmp, "home-"); err != nil {
		return nil, err
	}
	if s.uploads, err = os.MkdirTemp(p.tmp, "uploads-"); err != nil {
		return nil, err
	}
	s.server, err = harness.StartServer(ctx, harness.ServerConfig{
		Bin: p.bin, Port: s.port, ControlPort: s.controlPort, Home: s.home, Name: "owner-" + label, Log: logSink(),
		Args: []string{"--upload-root", s.uploads},
	})
	if err != nil {
		return nil, err
	}
	trackServer(s.server)
	s.browser, err = harness.Launch(ctx, harness.BrowserConfig{ExecPath: p.chromium, Monkbrowse: p.bin, Extension: p.ext, Output: logSink(), Name: "chromium-" + label})
	if err != nil {
		s.close()
		return nil, err
	}
	if err := connectBrowser(ctx, s.browser, s.port, label); err != nil {
		s.close()
		return nil, err
	}
	if s.popup, err = s.browser.OpenPopup(ctx); err != nil {
		s.close()
		return nil, err
	}
	cctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	if _, err := s.popup.WaitConnected(cctx, s.port); err != nil {
		s.close()
		return nil, fmt.Errorf("%w\nserver log:\n%s", err, harness.Tail(s.server.Log(), 30))
	}
	return s, nil
}

// connectBrowser points the extension at port with a label, through the
// extension's settings.
func connectBrowser(ctx context.Context, b *harness.Browser, port int, label string) error {
	return b.SetSettings(ctx, port, label)
}

func (s *suite) close() {
	if s.popup != nil {
		s.popup.Close()
	}
	if s.browser != nil {
		s.browser.Close()
	}
	if s.server != nil {
		_ = s.server.Close()
	}
}

var (
	sharedOnce  sync.Once
	sharedSuite *suite
	sharedErr   error
	sharedFx    *harness.Fixtures
)

// fixtures serves testdata (with the CSP page's strict policy) for the run.
func fixtures() *harness.Fixtures {
	if sharedFx == nil {
		sharedFx = harness.NewFixtures(os.DirFS("testdata"), "/csp.html")
	}
	return sharedFx
}

// shared returns the suite most tests use: one Chromium, one monkbrowse.
func shared(t testing.TB) *suite {
	t.Helper()
	p := need(t)
	sharedOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		sharedSuite, sharedErr = newSuite(ctx, t, p, fixtures(), "main")
		if sharedErr == nil {
			// The tests of browser_evaluate need the person's consent, given
			// on the options page like a person does (off by default:
			// TestEvaluateNeedsConsent).
			sharedErr = sharedSuite.browser.SetAllowJavaScript(ctx, true)
		}
	})
	if sharedErr != nil {
		t.Fatalf("setting up Chromium + extension + monkbrowse: %v", sharedErr)
	}
	return sharedSuite
}

func closeShared() {
	if sharedSuite != nil {
		sharedSuite.close()
	}
	if sharedFx != nil {
		sharedFx.Close()
	}
}

// openTab opens a fixture page (made unique) in a new window; the tab is
// closed when the test ends.
func (s *suite) openTab(ctx context.Context, t testing.TB, path string) *harness.Tab {
	t.Helper()
	tab, err := s.browser.NewTab(ctx, unique(s.fx.URL(path)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tab.Close)
	return tab
}

// share shares the tab by clicking its toggle in the real popup and returns
// its number.
func (s *suite) share(ctx context.Context, t testing.TB, tab *harness.Tab) int {
	t.Helper()
	id, err := s.popup.ChromeTabID(ctx, tab)
	if err != nil {
		t.Fatal(err)
	}
	slot, err := s.popup.Share(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	// As an AI would, learn the number from browser_list_tabs: it must list
	// the tab under the number the popup shows.
	url := js[string](ctx, t, tab, "location.href")
	deadline := time.Now().Add(5 * time.Second)
	for {
		list := s.ok(ctx, t, "browser_list_tabs", nil)
		_, lt, ok := tabByURL(parseTabs(list), url)
		if ok && lt.Slot == slot {
			return slot
		}
		if time.Now().After(deadline) {
			t.Fatalf("the popup shows %s shared as tab %d, but browser_list_tabs does not list it so:\n%s", url, slot, list)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// openShared opens a fixture page and shares it; it returns the tab and its
// number.
func (s *suite) openShared(ctx context.Context, t testing.TB, path string) (*harness.Tab, int) {
	t.Helper()
	tab := s.openTab(ctx, t, path)
	return tab, s.share(ctx, t, tab)
}

// call calls a tool; a transport error fails the test.
func (s *suite) call(ctx context.Context, t testing.TB, tool string, args map[string]any) harness.ToolResult {
	t.Helper()
	return callOn(ctx, t, s.server, tool, args)
}

func callOn(ctx context.Context, t testing.TB, srv *harness.Server, tool string, args map[string]any) harness.ToolResult {
	t.Helper()
	res, err := srv.Call(ctx, tool, args)
	if err != nil {
		t.Fatalf("%v\n%s log tail:\n%s", err, srv.Name, harness.Tail(srv.Log(), 30))
	}
	return res
}

// ok calls a tool that must succeed and returns its text.
func (s *suite) ok(ctx context.Context, t testing.TB, tool string, args map[string]any) string {
	t.Helper()
	return okOn(ctx, t, s.server, tool, args)
}

func okOn(ctx context.Context, t testing.TB, srv *harness.Server, tool string, args map[string]any) string {
	t.Helper()
	res := callOn(ctx, t, srv, tool, args)
	if res.IsError {
		t.Fatalf("%s %v failed: %s", tool, args, res.Text)
	}
	return res.Text
}

// fails calls a tool that must fail and returns its message.
func (s *suite) fails(ctx context.Context, t testing.TB, tool string, args map[string]any) string {
	t.Helper()
	res := s.call(ctx, t, tool, args)
	if !res.IsError {
		t.Fatalf("%s %v succeeded but should have failed: %s", tool, args, harness.Clip(res.Text, 1500))
	}
	return res.Text
}

// snapshot returns the tab's snapshot text. A page the app was just shown
// whole (a navigation's answer) is answered "unchanged" once; the tests want
// the text, so they ask again, as the answer says to.
func (s *suite) snapshot(ctx context.Context, t testing.TB, slot int) string {
	t.Helper()
	return snapshotOn(ctx, t, s.server, map[string]any{"tab": slot})
}

// snapshotOn is browser_snapshot on srv for a test that wants the page's
// text: asked again when the answer is that the page is unchanged since the
// app's last whole view of it (a test does not keep that view).
func snapshotOn(ctx context.Context, t testing.TB, srv *harness.Server, args map[string]any) string {
	t.Helper()
	out := okOn(ctx, t, srv, "browser_snapshot", args)
	if strings.Contains(out, "Unchanged since your last full snapshot") {
		out = okOn(ctx, t, srv, "browser_snapshot", args)
	}
	return out
}

// ref finds an element's ref in a snapshot or fails the test.
func ref(t testing.TB, snap, role, name string) string {
	t.Helper()
	r, err := harness.FindRef(snap, role, name)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// waitJS waits (up to 5 s) until a boolean expression holds in the tab.
func waitJS(ctx context.Context, t testing.TB, tab *harness.Tab, expr string) {
	t.Helper()
	c, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if _, err := harness.WaitEval[bool](c, tab, expr, func(v bool) bool { return v }); err != nil {
		t.Fatal(err)
	}
}

// js reads a value from the tab through CDP.
func js[T any](ctx context.Context, t testing.TB, tab *harness.Tab, expr string) T {
	t.Helper()
	v, err := harness.Eval[T](ctx, tab, expr)
	if err != nil {
		t.Fatalf("evaluating %s: %v", expr, err)
	}
	return v
}
