package run

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	_ "image/jpeg" // decode screenshots
	_ "image/png"
	"io"
	"net"
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
	"github.com/monkbrowse/monkbrowse/bench/internal/snapshot"
	"github.com/monkbrowse/monkbrowse/e2e/harness"
)

// Config says what to run.
type Config struct {
	Root  string // repository root
	Paths servers.Paths
	// ExtDir and ExtID locate the built extension.
	ExtDir, ExtID string
	// Versions of the npm servers, for labels.
	PlaywrightVersion, DevtoolsVersion string
	// Servers to run, by key; empty means all three.
	Servers []string
	// Pages to run, by key; empty means all.
	Pages []string
	// OldExtension: the extension may predate the options page's
	// JavaScript switch (bench/compare runs an older build).
	OldExtension bool
	// Reps timed repetitions of the task per page and server (≥ 1);
	// Warmup untimed ones before them.
	Reps, Warmup int
	// StartupRuns fresh launches per server to time start-up.
	StartupRuns int
	// OutDir receives responses/ (one rep's raw results) and the servers'
	// own files.
	OutDir string
	// Log receives progress lines.
	Log io.Writer
}

type session struct {
	srv     *servers.Server
	mcp     *mcpdrive.Server
	browser *harness.Browser // monkbrowse only: the browser it drives
	res     *ServerResult
	dead    error
}

// Run runs the benchmark and returns its results.
func Run(ctx context.Context, cfg Config) (*Results, error) {
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	logf := func(format string, a ...any) { fmt.Fprintf(cfg.Log, format+"\n", a...) }
	res := &Results{Started: time.Now(), Reps: cfg.Reps, Warmup: cfg.Warmup,
		Interactive: map[string]map[string][]snapshot.RoleName{}, LoadBefore: loadavg()}
	cpu0 := readCPU()

	pages := selectPages(cfg.Pages)
	files := map[string]string{
		"/start.html":       filepath.Join(cfg.Root, "bench/testdata/start.html"),
		"/frame-inner.html": filepath.Join(cfg.Root, "bench/testdata/frame-inner.html"),
	}
	for _, p := range pages {
		files[p.Path] = filepath.Join(cfg.Root, p.File)
	}
	fx, err := fixtures.Start(files)
	if err != nil {
		return nil, err
	}
	defer fx.Close()

	keys := cfg.Servers
	if len(keys) == 0 {
		keys = []string{servers.Monkbrowse, servers.Playwright, servers.ChromeDevtools}
	}

	// 1. Start-up time: fresh launches, initialize, close.
	for _, k := range keys {
		sr := ServerResult{Key: k}
		for i := 0; i < cfg.StartupRuns; i++ {
			srv, cleanup, err := newServer(cfg, k)
			if err != nil {
				return nil, err
			}
			s, err := mcpdrive.Start(ctx, srv.Launch)
			if err != nil {
				cleanup()
				return nil, err
			}
			sr.StartupMs = append(sr.StartupMs, ms(s.Startup))
			closeTree(s)
			cleanup()
		}
		logf("startup %s: %v ms", k, sr.StartupMs)
		res.Servers = append(res.Servers, sr)
	}

	// 2. One session per server, all alive for the run.
	var sessions []*session
	defer func() {
		for _, s := range sessions {
			s.close()
		}
	}()
	for i, k := range keys {
		s, err := startSession(ctx, cfg, k, fx, &res.Servers[i])
		if err != nil {
			return nil, fmt.Errorf("starting the %s session: %w", k, err)
		}
		sessions = append(sessions, s)
		logf("session %s ready (%s, idle RSS %.1f MiB)", k, s.res.Version, mib(s.res.IdleRSS))
	}

	// 3. The task, round robin: each rep runs every page on every server,
	// the server order rotating, so drift in the machine's load spreads
	// evenly over the servers.
	for rep := -cfg.Warmup; rep < cfg.Reps; rep++ {
		for _, p := range pages {
			for j := range sessions {
				s := sessions[(j+rep+cfg.Warmup)%len(sessions)]
				if s.dead != nil {
					continue
				}
				samples := runTask(ctx, cfg, s, p, fx, rep)
				if rep == -cfg.Warmup && s.res.ColdNavigateMs == 0 && len(samples) > 0 {
					s.res.ColdNavigateMs = samples[0].Ms
				}
				for _, sm := range samples {
					if !sm.OK {
						logf("rep %d %s %s %s: FAILED %s", rep, s.srv.Key, p.Key, sm.Step, sm.Error)
					}
				}
				if rep >= 0 {
					res.Samples = append(res.Samples, samples...)
				}
			}
		}
		if rep >= 0 && (rep+1)%5 == 0 {
			logf("rep %d/%d done", rep+1, cfg.Reps)
		}
	}

	// 4. Memory after the run.
	for _, s := range sessions {
		if s.dead != nil {
			continue
		}
		s.res.AfterRSS = procstat.RSS(s.mcp.Pid())
		if s.browser != nil {
			s.res.BrowserPSS = procstat.TreePSS(s.browser.Pid())
			s.res.BrowserUSS = procstat.TreeUSS(s.browser.Pid())
		} else {
			// The npm servers' browsers are children of the node process.
			s.res.BrowserPSS = procstat.TreePSS(s.mcp.Pid()) - procstat.PSS(s.mcp.Pid())
			s.res.BrowserUSS = procstat.TreeUSS(s.mcp.Pid()) - procstat.USS(s.mcp.Pid())
		}
	}
	for _, p := range pages {
		res.Pages = append(res.Pages, PageResult{Key: p.Key, Title: p.Title, File: p.File, About: p.About})
	}
	if len(sessions) > 0 {
		// Count the elements through any live session's evaluation tool.
		for i, p := range pages {
			res.Pages[i].Elements = countElements(ctx, sessions, fx.URL(p.Path))
		}
	}
	for i := range pages {
		for _, s := range sessions {
			if m := res.Interactive[pages[i].Key]; m == nil {
				res.Interactive[pages[i].Key] = map[string][]snapshot.RoleName{}
			}
			b, err := os.ReadFile(responsePath(cfg, s.srv.Key, pages[i].Key, "snapshot"))
			if err == nil {
				res.Interactive[pages[i].Key][s.srv.Key] = snapshot.Interactive(string(b), s.srv.Format)
			}
		}
	}
	res.LoadAfter = loadavg()
	res.Busy = busyShare(cpu0, readCPU())
	res.Duration = time.Since(res.Started).Seconds()
	return res, nil
}

func selectPages(keys []string) []Page {
	if len(keys) == 0 {
		return Pages
	}
	var out []Page
	for _, p := range Pages {
		for _, k := range keys {
			if p.Key == k {
				out = append(out, p)
			}
		}
	}
	return out
}

// newServer builds the server description for one launch; cleanup removes
// what it made (monkbrowse's private HOME).
func newServer(cfg Config, key string) (*servers.Server, func(), error) {
	switch key {
	case servers.Playwright:
		return servers.NewPlaywright(cfg.Paths, cfg.PlaywrightVersion), func() {}, nil
	case servers.ChromeDevtools:
		return servers.NewChromeDevtools(cfg.Paths, cfg.DevtoolsVersion), func() {}, nil
	case servers.Monkbrowse:
		ports, err := freePorts(2)
		if err != nil {
			return nil, nil, err
		}
		port, cport := ports[0], ports[1]
		home, err := os.MkdirTemp("", "monkbrowse-bench-home-")
		if err != nil {
			return nil, nil, err
		}
		return servers.NewMonkbrowse(cfg.Paths, port, cport, home), func() { _ = os.RemoveAll(home) }, nil
	}
	return nil, nil, fmt.Errorf("unknown server %q (want %s, %s or %s)", key, servers.Monkbrowse, servers.Playwright, servers.ChromeDevtools)
}

func startSession(ctx context.Context, cfg Config, key string, fx *fixtures.Server, sr *ServerResult) (*session, error) {
	srv, cleanup, err := newServer(cfg, key)
	if err != nil {
		return nil, err
	}
	_ = cleanup // the session's HOME lives as long as the process; it is a temp dir
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

	if key == servers.Monkbrowse {
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
			ExecPath:  cfg.Paths.Chromium,
			Extension: harness.Extension{Dir: cfg.ExtDir, ID: cfg.ExtID},
			Output:    bout,
			Name:      "chromium (bench)",
			Width:     1280, Height: 720,
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

// runTask runs the five steps once: navigate, snapshot, click, type,
// screenshot. Checks run after each timed call and are not timed.
func runTask(ctx context.Context, cfg Config, s *session, p Page, fx *fixtures.Server, rep int) []Sample {
	srv := s.srv
	url := fx.URL(p.Path) + "?rep=" + strconv.Itoa(rep) + "&server=" + srv.Key
	mk := func(step string, r mcpdrive.Result, err error) Sample {
		sm := Sample{Server: srv.Key, Page: p.Key, Step: step, Rep: rep, Ms: ms(r.Elapsed), TextBytes: len(r.Text)}
		for i, im := range r.Images {
			sm.ImageBytes += im.Bytes
			if i == 0 {
				if c, _, derr := image.DecodeConfig(bytes.NewReader(im.Data)); derr == nil {
					sm.ImageW, sm.ImageH = c.Width, c.Height
				}
			}
		}
		switch {
		case err != nil:
			sm.Error = err.Error()
		case r.IsError:
			sm.Error = "tool error: " + clip(r.Text, 300)
		default:
			sm.OK = true
		}
		if rep == 0 {
			path := responsePath(cfg, srv.Key, p.Key, step)
			_ = os.MkdirAll(filepath.Dir(path), 0o755)
			_ = os.WriteFile(path, []byte(r.Text), 0o644)
			if len(r.Images) > 0 {
				_ = os.WriteFile(strings.TrimSuffix(path, ".txt")+".img", r.Images[0].Data, 0o644)
			}
		}
		return sm
	}
	verify := func(sm *Sample, expr string) {
		if !sm.OK {
			return
		}
		if err := s.check(ctx, expr); err != nil {
			sm.OK, sm.Error = false, err.Error()
			if errors.Is(err, context.DeadlineExceeded) || strings.Contains(err.Error(), "transport") {
				s.dead = err
			}
		}
	}
	skipped := func(step, why string) Sample {
		return Sample{Server: srv.Key, Page: p.Key, Step: step, Rep: rep, Skipped: true, Error: why}
	}
	var out []Sample

	r, err := s.call(ctx, srv.Tools["navigate"], srv.NavigateArgs(url))
	nav := mk("navigate", r, err)
	verify(&nav, fmt.Sprintf(`location.href === %q && document.title === %q && document.readyState !== 'loading'`, url, p.Title))
	out = append(out, nav)

	r, err = s.call(ctx, srv.Tools["snapshot"], srv.SnapshotArgs())
	snap := mk("snapshot", r, err)
	var clickRef, typeRef string
	if snap.OK {
		var e1, e2 error
		clickRef, e1 = snapshot.Find(r.Text, srv.Format, p.Click.Role, p.Click.Name)
		typeRef, e2 = snapshot.Find(r.Text, srv.Format, p.Type.Role, p.Type.Name)
		// A target the budgeted snapshot left out is looked up the way an
		// AI would, with the server's find tool; its time and bytes count
		// in the snapshot step.
		if find := srv.Tools["find"]; find != "" {
			for _, tg := range []struct {
				t   Target
				ref *string
				err *error
			}{{p.Click, &clickRef, &e1}, {p.Type, &typeRef, &e2}} {
				if *tg.err == nil {
					continue
				}
				fr, ferr := s.call(ctx, find, srv.FindArgs(tg.t.Role, tg.t.Name))
				if ferr != nil {
					continue
				}
				snap.Ms += ms(fr.Elapsed)
				snap.TextBytes += len(fr.Text)
				*tg.ref, *tg.err = snapshot.Find(fr.Text, srv.Format, tg.t.Role, tg.t.Name)
			}
		}
		if err := errors.Join(e1, e2); err != nil {
			snap.OK, snap.Error = false, clip(err.Error(), 500)
		}
	}
	out = append(out, snap)

	if clickRef == "" {
		out = append(out, skipped("click", "no ref for the button in the snapshot"))
	} else {
		r, err = s.call(ctx, srv.Tools["click"], srv.ClickArgs(clickRef, p.Click.Element))
		c := mk("click", r, err)
		verify(&c, p.ClickCheck)
		out = append(out, c)
	}
	if typeRef == "" {
		out = append(out, skipped("type", "no ref for the field in the snapshot"))
	} else {
		text := p.TypeText(rep)
		r, err = s.call(ctx, srv.Tools["type"], srv.TypeArgs(typeRef, p.Type.Element, text))
		t := mk("type", r, err)
		verify(&t, p.TypeCheck(text))
		out = append(out, t)
	}

	r, err = s.call(ctx, srv.Tools["screenshot"], srv.ScreenshotArgs())
	shot := mk("screenshot", r, err)
	if shot.OK && (len(r.Images) == 0 || shot.ImageW == 0) {
		shot.OK, shot.Error = false, "no decodable image in the result"
	}
	out = append(out, shot)
	return out
}

// countElements navigates one session to url and counts its DOM elements.
func countElements(ctx context.Context, sessions []*session, url string) int {
	for _, s := range sessions {
		if s.dead != nil {
			continue
		}
		if _, err := s.call(ctx, s.srv.Tools["navigate"], s.srv.NavigateArgs(url+"?count")); err != nil {
			continue
		}
		r, err := s.call(ctx, s.srv.Tools["evaluate"], s.srv.EvaluateArgs(`'ELEMENTS=' + document.getElementsByTagName('*').length + '='`))
		if err != nil {
			continue
		}
		if i := strings.Index(r.Text, "ELEMENTS="); i >= 0 {
			rest := r.Text[i+len("ELEMENTS="):]
			if j := strings.IndexByte(rest, '='); j > 0 {
				if n, err := strconv.Atoi(rest[:j]); err == nil {
					return n
				}
			}
		}
	}
	return 0
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func mib(b int64) float64 { return float64(b) / (1 << 20) }

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// freePorts returns n distinct free ports on 127.0.0.1. The listeners stay
// open until all are picked: picking one at a time can hand out the same
// port twice (seen: the extension port equal to the control port).
func freePorts(n int) ([]int, error) {
	var ports []int
	for i := 0; i < n; i++ {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		defer l.Close()
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

func loadavg() string {
	b, _ := os.ReadFile("/proc/loadavg")
	return strings.TrimSpace(string(b))
}

type cpuTimes struct{ idle, total uint64 }

func readCPU() cpuTimes {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return cpuTimes{}
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line)
	var t cpuTimes
	for i, v := range f[1:] {
		n, _ := strconv.ParseUint(v, 10, 64)
		t.total += n
		if i == 3 || i == 4 { // idle, iowait
			t.idle += n
		}
	}
	return t
}

func busyShare(a, b cpuTimes) float64 {
	if b.total <= a.total {
		return 0
	}
	return 1 - float64(b.idle-a.idle)/float64(b.total-a.total)
}
