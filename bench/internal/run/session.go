package run

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/monkbrowse/monkbrowse/bench/internal/fixtures"
	"github.com/monkbrowse/monkbrowse/bench/internal/mcpdrive"
	"github.com/monkbrowse/monkbrowse/bench/internal/procstat"
	"github.com/monkbrowse/monkbrowse/bench/internal/servers"
	"github.com/monkbrowse/monkbrowse/e2e/harness"
)

type session struct {
	srv     *servers.Server
	mcp     *mcpdrive.Server
	browser *harness.Browser // monkbrowse only: the browser it drives
	res     *ServerResult
	dead    error
}

// newServer builds the server description for one launch; cleanup removes
// what it made (monkbrowse's private HOME).
func newServer(cfg Config, key string) (*servers.Server, func(), error) {
	switch key {
	case servers.Playwright:
		return servers.NewPlaywright(cfg.Paths, cfg.PlaywrightVersion), func() {}, nil
	case servers.ChromeDevtools:
		return servers.NewChromeDevtools(cfg.Paths, cfg.DevtoolsVersion), func() {}, nil
	case servers.Monkbrowse, servers.MonkbrowseDebugger:
		ports, err := freePorts(2)
		if err != nil {
			return nil, nil, err
		}
		port, cport := ports[0], ports[1]
		home, err := os.MkdirTemp("", "monkbrowse-bench-home-")
		if err != nil {
			return nil, nil, err
		}
		// The browser's pairing host hands over the harness's secret
		// (issue 24): the server's home holds the same one.
		if err := harness.SeedPairing(home); err != nil {
			_ = os.RemoveAll(home)
			return nil, nil, err
		}
		srv := servers.NewMonkbrowse(cfg.Paths, port, cport, home)
		if key == servers.MonkbrowseDebugger {
			srv.Key, srv.Label = key, "monkbrowse (debugger on)"
		}
		return srv, func() { _ = os.RemoveAll(home) }, nil
	}
	return nil, nil, fmt.Errorf("unknown server %q (want %s, %s or %s)", key, servers.Monkbrowse, servers.Playwright, servers.ChromeDevtools)
}

func startSession(ctx context.Context, cfg Config, key string, fx *fixtures.Server, sr *ServerResult) (*session, error) {
	srv, cleanup, err := newServer(cfg, key)
	if err != nil {
		return nil, err
	}
	_ = cleanup // the session's HOME lives as long as the process; it is a temp dir
	if cfg.Apps {
		srv.AppLaunch()
	}
	sr.Label = srv.Label
	sr.Command = append([]string{filepath.Base(srv.Launch.Command)}, srv.Launch.Args...)
	logw, err := os.Create(filepath.Join(cfg.OutDir, key+".stderr.log"))
	if err != nil {
		return nil, err
	}
	srv.Launch.Stderr = logw
	m, err := mcpdrive.Start(ctx, srv.Launch)
	if err != nil {
		return nil, err
	}
	s := &session{srv: srv, mcp: m, res: sr}
	sr.Version = m.Info.Name + " " + m.Info.Version
	if sr.Tools, err = m.ListTools(ctx); err != nil {
		s.close()
		return nil, err
	}
	if sr.ToolListBytes, err = m.ToolListBytes(ctx); err != nil {
		s.close()
		return nil, err
	}
	var want []string
	for _, st := range append(append([]string{}, servers.Steps...), "evaluate") {
		want = append(want, srv.Tools[st])
	}
	if err := m.Require(ctx, want...); err != nil {
		s.close()
		return nil, err
	}
	time.Sleep(time.Second)
	sr.IdleRSS = procstat.RSS(m.Pid())

	if key == servers.Monkbrowse || key == servers.MonkbrowseDebugger {
		// The person's browser: Chromium with the extension, pointed at this
		// server's port, one tab shared through the popup.
		port, _ := strconv.Atoi(srv.Launch.Args[1])
		bout, err := os.Create(filepath.Join(cfg.OutDir, "chromium-monkbrowse.log"))
		if err != nil {
			s.close()
			return nil, err
		}
		lctx, cancel := context.WithTimeout(ctx, 60*time.Second)
		defer cancel()
		b, err := harness.Launch(lctx, harness.BrowserConfig{
			ExecPath:   cfg.Paths.Chromium,
			Monkbrowse: cfg.Paths.Monkbrowse,
			Extension:  harness.Extension{Dir: cfg.ExtDir, ID: cfg.ExtID},
			Output:     bout,
			Name:       "chromium (bench)",
			Width:      1280, Height: 720,
		})
		if err != nil {
			s.close()
			return nil, err
		}
		s.browser = b
		if err := b.SetSettings(lctx, port, "bench"); err != nil {
			s.close()
			return nil, err
		}
		// The effect checks use browser_evaluate, which the person must
		// switch on for the profile (options page). Builds from before the
		// switch existed (bench/compare's old side) have none and allow it.
		if err := b.SetAllowJavaScript(lctx, true); err != nil {
			if !cfg.OldExtension {
				s.close()
				return nil, err
			}
			fmt.Fprintf(cfg.Log, "monkbrowse: no JavaScript switch in this extension build (%v); an older build allows it\n", err)
		}
		if key == servers.MonkbrowseDebugger {
			// The person's switch for trusted input through Chrome's debugger.
			if err := b.SetUseDebugger(lctx, true); err != nil {
				s.close()
				return nil, err
			}
		}
		// Use the tab the browser started with, so no blank tab is left
		// over to cost memory.
		start := fx.URL("/start.html?monkbrowse")
		tab := b.FirstTab()
		if err := tab.Navigate(lctx, start); err != nil {
			s.close()
			return nil, err
		}
		if err := tab.FitViewport(lctx, 1280, 720); err != nil {
			s.close()
			return nil, err
		}
		if err := shareTab(lctx, b, port, start); err != nil {
			s.close()
			return nil, fmt.Errorf("sharing the tab: %w\nserver stderr:\n%s", err, m.StderrTail())
		}
	}
	if err := srv.Prepare(ctx, m); err != nil {
		s.close()
		return nil, err
	}
	return s, nil
}

// shareTab shares the tab showing url through the extension's real popup
// page, as a person would, once the extension has connected to port. The
// popup's tab is closed again, so the shared tab is the only page left.
func shareTab(ctx context.Context, b *harness.Browser, port int, url string) error {
	popup, err := b.OpenPopup(ctx)
	if err != nil {
		return err
	}
	defer popup.Close()
	if _, err := popup.WaitConnected(ctx, port); err != nil {
		return err
	}
	id, err := popup.ChromeTabIDByURL(ctx, url)
	if err != nil {
		return err
	}
	_, err = popup.Share(ctx, id)
	return err
}

func (s *session) close() {
	if s.mcp != nil {
		closeTree(s.mcp)
	}
	if s.browser != nil {
		s.browser.Close()
	}
}

// closeTree closes the session and kills whatever of its process tree
// survives (Playwright starts its browser in a process group of its own).
func closeTree(s *mcpdrive.Server) {
	kids := procstat.Descendants(s.Pid())
	s.Close()
	for _, k := range kids {
		_ = syscall.Kill(k, syscall.SIGKILL)
	}
}

const callTimeout = 60 * time.Second

func (s *session) call(ctx context.Context, tool string, args map[string]any) (mcpdrive.Result, error) {
	c, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	return s.mcp.Call(c, tool, args)
}

// check evaluates expr (wrapped by effectExpr) with the server's own
// evaluation tool.
func (s *session) check(ctx context.Context, expr string) error {
	r, err := s.call(ctx, s.srv.Tools["evaluate"], s.srv.EvaluateArgs(effectExpr(expr)))
	if err != nil {
		return err
	}
	if r.IsError || !strings.Contains(r.Text, effectOK) {
		return fmt.Errorf("effect not seen in the page: %s", clip(r.Text, 300))
	}
	return nil
}

func responsePath(cfg Config, server, page, step string) string {
	return filepath.Join(cfg.OutDir, "responses", server, page, step+".txt")
}
