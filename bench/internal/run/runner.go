package run

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/monkbrowse/monkbrowse/bench/internal/fixtures"
	"github.com/monkbrowse/monkbrowse/bench/internal/mcpdrive"
	"github.com/monkbrowse/monkbrowse/bench/internal/procstat"
	"github.com/monkbrowse/monkbrowse/bench/internal/servers"
	"github.com/monkbrowse/monkbrowse/bench/internal/snapshot"
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
	// ShotReps repetitions of the formats round (0: none).
	ShotReps int
	// OutDir receives responses/ (one rep's raw results) and the servers'
	// own files.
	OutDir string
	// Log receives progress lines.
	Log io.Writer
	// Apps: the sessions are for the apps corpus (RunApps), whose
	// servers are launched with their coordinate tools (AppLaunch).
	Apps bool
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

	// 4. Screenshots in every format each server offers.
	if cfg.ShotReps > 0 {
		res.Shots = runShots(ctx, sessions, pages, fx, cfg.ShotReps, logf)
		logf("formats round done (%d screenshots)", len(res.Shots))
	}

	// 5. Memory after the run.
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
			if err == nil && snapshot.Unchanged(string(b)) {
				// The page the AI holds is the navigation's answer.
				b, err = os.ReadFile(responsePath(cfg, s.srv.Key, pages[i].Key, "navigate"))
			}
			if err == nil {
				res.Interactive[pages[i].Key][s.srv.Key] = snapshot.Interactive(string(b), s.srv.Format)
				if s.srv.Key == servers.Monkbrowse && snapshot.Budgeted(string(b)) {
					if res.Budgeted == nil {
						res.Budgeted = map[string]bool{}
					}
					res.Budgeted[pages[i].Key] = true
				}
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

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func mib(b int64) float64 { return float64(b) / (1 << 20) }

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
