package run

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/profiler"
	"github.com/chromedp/chromedp"

	"github.com/monkbrowse/monkbrowse/bench/internal/fixtures"
	"github.com/monkbrowse/monkbrowse/bench/internal/servers"
	"github.com/monkbrowse/monkbrowse/bench/internal/snapshot"
	"github.com/monkbrowse/monkbrowse/e2e/harness"
)

// Profile runs one monkbrowse step n times on a page with the V8 sampling
// profiler of the page's renderer running (it sees the content script's
// isolated world as well as the page), and prints where the time went: the
// client's round trip against the renderer's busy time, and the functions
// with the most self time. The merged profiles are written as
// <out>/profile-<page>-<step>-<i>.cpuprofile (open them in DevTools).
func Profile(ctx context.Context, cfg Config, pageKey, step string, n int, w io.Writer) error {
	var page *Page
	for i := range Pages {
		if Pages[i].Key == pageKey {
			page = &Pages[i]
		}
	}
	if page == nil {
		return fmt.Errorf("unknown page %q", pageKey)
	}
	files := map[string]string{"/start.html": filepath.Join(cfg.Root, "bench/testdata/start.html"),
		page.Path: filepath.Join(cfg.Root, page.File)}
	fx, err := fixtures.Start(files)
	if err != nil {
		return err
	}
	defer fx.Close()
	var sr ServerResult
	s, err := startSession(ctx, cfg, servers.Monkbrowse, fx, &sr)
	if err != nil {
		return err
	}
	defer s.close()
	srv := s.srv

	type frameKey struct {
		fn, url string
		line    int64
	}
	self := map[frameKey]time.Duration{}
	byScript := map[string]time.Duration{}
	var rtt, busy []time.Duration

	for i := 0; i < n; i++ {
		url := fx.URL(page.Path) + fmt.Sprintf("?profile=%d", i)
		if _, err := s.call(ctx, srv.Tools["navigate"], srv.NavigateArgs(url)); err != nil {
			return err
		}
		var args map[string]any
		tool := srv.Tools[step]
		switch step {
		case "snapshot":
			args = srv.SnapshotArgs()
		case "navigate":
			args = srv.NavigateArgs(url + "&again")
		case "click", "type":
			r, err := s.call(ctx, srv.Tools["snapshot"], srv.SnapshotArgs())
			if err != nil {
				return err
			}
			if find := srv.Tools["find"]; find != "" {
				// The budgeted snapshot may leave the target out: find it.
				tg := page.Type
				if step == "click" {
					tg = page.Click
				}
				if _, err := snapshot.Find(r.Text, srv.Format, tg.Role, tg.Name); err != nil {
					if r, err = s.call(ctx, find, srv.FindArgs(tg.Role, tg.Name)); err != nil {
						return err
					}
				}
			}
			if step == "click" {
				ref, err := snapshot.Find(r.Text, srv.Format, page.Click.Role, page.Click.Name)
				if err != nil {
					return err
				}
				args = srv.ClickArgs(ref, page.Click.Element)
			} else {
				ref, err := snapshot.Find(r.Text, srv.Format, page.Type.Role, page.Type.Name)
				if err != nil {
					return err
				}
				args = srv.TypeArgs(ref, page.Type.Element, page.TypeText(i))
			}
		case "screenshot":
			args = srv.ScreenshotArgs()
		default:
			return fmt.Errorf("unknown step %q", step)
		}
		tab, err := s.browser.AttachPage(ctx, url)
		if err != nil {
			return err
		}
		start := func(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
			if _, err := cdp.Call(ctx, t, profiler.Enable, cdp.Empty{}); err != nil {
				return chromedp.Void{}, err
			}
			if _, err := cdp.Call(ctx, t, profiler.SetSamplingInterval, profiler.SetSamplingIntervalParams{Interval: 200}); err != nil {
				return chromedp.Void{}, err
			}
			_, err := cdp.Call(ctx, t, profiler.Start, cdp.Empty{})
			return chromedp.Void{}, err
		}
		stop := func(ctx context.Context, t *chromedp.Target) (*profiler.Profile, error) {
			r, err := cdp.Call(ctx, t, profiler.Stop, cdp.Empty{})
			if err != nil {
				return nil, err
			}
			return r.Profile, nil
		}
		if _, err := harness.Run(ctx, tab, start); err != nil {
			tab.Close()
			return err
		}
		r, err := s.call(ctx, tool, args)
		prof, perr := harness.Run(ctx, tab, stop)
		tab.Close()
		if err != nil {
			return err
		}
		if perr != nil {
			return perr
		}
		rtt = append(rtt, r.Elapsed)
		if b, err := json.Marshal(prof); err == nil {
			_ = os.WriteFile(filepath.Join(cfg.OutDir, fmt.Sprintf("profile-%s-%s-%d.cpuprofile", pageKey, step, i)), b, 0o644)
		}
		nodes := map[int64]*profiler.ProfileNode{}
		for _, nd := range prof.Nodes {
			nodes[nd.ID] = nd
		}
		var b time.Duration
		for j, id := range prof.Samples {
			if j >= len(prof.TimeDeltas) {
				break
			}
			// A sample's time is the delta to the next sample.
			var d time.Duration
			if j+1 < len(prof.TimeDeltas) {
				d = time.Duration(prof.TimeDeltas[j+1]) * time.Microsecond
			}
			nd := nodes[id]
			if nd == nil || nd.CallFrame == nil {
				continue
			}
			fn := nd.CallFrame.FunctionName
			if fn == "(idle)" {
				continue
			}
			b += d
			k := frameKey{fn: fn, url: shortURL(nd.CallFrame.URL), line: nd.CallFrame.LineNumber + 1}
			self[k] += d
			byScript[k.url] += d
		}
		busy = append(busy, b)
	}
	sortDur := func(ds []time.Duration) time.Duration {
		c := append([]time.Duration(nil), ds...)
		sort.Slice(c, func(i, j int) bool { return c[i] < c[j] })
		return c[len(c)/2]
	}
	fmt.Fprintf(w, "monkbrowse %s on %s, %d runs\n", step, pageKey, n)
	fmt.Fprintf(w, "client round trip, median: %v\nrenderer busy (V8 samples, not idle), median: %v\n\n", sortDur(rtt).Round(time.Millisecond/10), sortDur(busy).Round(time.Millisecond/10))
	fmt.Fprintln(w, "renderer time by script (all runs):")
	type kv struct {
		k string
		v time.Duration
	}
	var scripts []kv
	for k, v := range byScript {
		scripts = append(scripts, kv{k, v})
	}
	sort.Slice(scripts, func(i, j int) bool { return scripts[i].v > scripts[j].v })
	for _, s := range scripts {
		fmt.Fprintf(w, "  %8.1f ms  %s\n", float64(s.v.Microseconds())/1000/float64(n), orDash(s.k))
	}
	type fv struct {
		k frameKey
		v time.Duration
	}
	var fns []fv
	for k, v := range self {
		fns = append(fns, fv{k, v})
	}
	sort.Slice(fns, func(i, j int) bool { return fns[i].v > fns[j].v })
	fmt.Fprintln(w, "\ntop self time per run (function, script:line):")
	for i, f := range fns {
		if i == 30 {
			break
		}
		fmt.Fprintf(w, "  %8.1f ms  %s  %s:%d\n", float64(f.v.Microseconds())/1000/float64(n), orDash(f.k.fn), orDash(f.k.url), f.k.line)
	}
	return nil
}

func shortURL(u string) string {
	if i := strings.IndexByte(u, '?'); i >= 0 {
		u = u[:i]
	}
	if i := strings.Index(u, "://"); i >= 0 {
		rest := u[i+3:]
		if j := strings.IndexByte(rest, '/'); j >= 0 {
			return u[:i+3] + "…" + rest[j:]
		}
	}
	return u
}

func orDash(s string) string {
	if s == "" {
		return "(native)"
	}
	return s
}
