package run

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/monkbrowse/monkbrowse/bench/internal/fixtures"
	"github.com/monkbrowse/monkbrowse/bench/internal/mcpdrive"
	"github.com/monkbrowse/monkbrowse/bench/internal/servers"
	"github.com/monkbrowse/monkbrowse/bench/internal/snapshot"
)

// The flow benchmark (issue 42): the six-step sign-up of
// e2e/testdata/rec-form.html (full name, email, password, plan, terms,
// submit) done after the navigation by six single tool calls, each on a
// ref from the page the AI was shown, and by monkbrowse's browser_run in
// one call with targets by role and name. The navigation is counted too
// (the AI must reach the page either way). Done = the form's own submit
// record, read with the evaluation tool (not counted).

// FlowSample is one server and mode doing the flow once.
type FlowSample struct {
	Server    string  `json:"server"`
	Mode      string  `json:"mode"` // "single" or "run"
	Rep       int     `json:"rep"`
	Calls     int     `json:"calls"`
	TextBytes int     `json:"textBytes"`
	Ms        float64 `json:"ms"`
	OK        bool    `json:"ok"`
	Error     string  `json:"error,omitempty"`
}

type flowField struct {
	role, name, kind, value string
}

func flowFields(rep int) []flowField {
	n := strconv.Itoa(rep)
	return []flowField{
		{"textbox", "Full name", "type", "Grace Hopper " + n},
		{"textbox", "Email", "type", "grace" + n + "@example.com"},
		{"textbox", "Password", "type", "c0b0l-" + n},
		{"combobox", "Plan", "select", "Team"},
		{"checkbox", "I accept the terms", "click", ""},
		{"button", "Create account", "click", ""},
	}
}

func flowCheck(rep int) string {
	n := strconv.Itoa(rep)
	return fmt.Sprintf(`!!window.submitted && window.submitted.name === %q && window.submitted.email === %q && window.submitted.plan === "team" && window.submitted.terms === true`,
		"Grace Hopper "+n, "grace"+n+"@example.com")
}

// RunFlow runs the flow reps times per server and mode.
func RunFlow(ctx context.Context, cfg Config) ([]FlowSample, error) {
	fx, err := fixtures.Start(map[string]string{
		"/start.html": filepath.Join(cfg.Root, "bench/testdata/start.html"),
		"/flow.html":  filepath.Join(cfg.Root, "e2e/testdata/rec-form.html"),
	})
	if err != nil {
		return nil, err
	}
	defer fx.Close()
	keys := cfg.Servers
	if len(keys) == 0 {
		keys = []string{servers.Monkbrowse, servers.Playwright}
	}
	var out []FlowSample
	for _, k := range keys {
		sr := ServerResult{Key: k}
		s, err := startSession(ctx, cfg, k, fx, &sr)
		if err != nil {
			return nil, fmt.Errorf("starting the %s session: %w", k, err)
		}
		modes := []string{"single"}
		if k == servers.Monkbrowse || k == servers.MonkbrowseDebugger {
			modes = append(modes, "run")
		}
		for _, mode := range modes {
			for rep := -cfg.Warmup; rep < cfg.Reps; rep++ {
				sm := flowOnce(ctx, s, fx, mode, rep+cfg.Warmup)
				if rep >= 0 {
					sm.Rep = rep
					out = append(out, sm)
				}
				fmt.Fprintf(cfg.Log, "flow %s %s rep %d: %d calls, %d B, %.0f ms ok=%v %s\n", k, mode, rep, sm.Calls, sm.TextBytes, sm.Ms, sm.OK, clip(sm.Error, 300))
				if s.dead != nil {
					break
				}
			}
		}
		s.close()
	}
	return out, nil
}

func flowOnce(ctx context.Context, s *session, fx *fixtures.Server, mode string, rep int) FlowSample {
	srv := s.srv
	sm := FlowSample{Server: srv.Key, Mode: mode, Rep: rep}
	call := func(tool string, args map[string]any) (mcpdrive.Result, error) {
		r, err := s.call(ctx, tool, args)
		sm.Calls++
		sm.TextBytes += len(r.Text)
		sm.Ms += ms(r.Elapsed)
		if err == nil && r.IsError {
			err = fmt.Errorf("%s failed: %s", tool, clip(r.Text, 300))
		}
		return r, err
	}
	fail := func(err error) FlowSample { sm.Error = err.Error(); return sm }
	url := fx.URL("/flow.html") + "?rep=" + strconv.Itoa(rep) + "&server=" + srv.Key + "&mode=" + mode
	nav, err := call(srv.Tools["navigate"], srv.NavigateArgs(url))
	if err != nil {
		return fail(err)
	}
	fields := flowFields(rep)
	if mode == "run" {
		var steps []any
		for _, f := range fields {
			st := map[string]any{"action": f.kind, "target": map[string]any{"role": f.role, "name": f.name}}
			if f.kind == "click" && f.role == "checkbox" {
				st["action"] = "check"
			}
			if f.value != "" {
				st["value"] = f.value
			}
			steps = append(steps, st)
		}
		if _, err := call("browser_run", srv.With(map[string]any{"steps": steps})); err != nil {
			return fail(err)
		}
	} else {
		// The refs of the page as the navigation's answer showed it; a
		// server whose navigation does not show it is asked for a snapshot.
		page := nav.Text
		if _, err := snapshot.Find(page, srv.Format, fields[0].role, fields[0].name); err != nil {
			r, err := call(srv.Tools["snapshot"], srv.SnapshotArgs())
			if err != nil {
				return fail(err)
			}
			page = r.Text
		}
		for _, f := range fields {
			ref, err := snapshot.Find(page, srv.Format, f.role, f.name)
			if err != nil {
				return fail(err)
			}
			el := f.name
			var c []servers.Call
			switch f.kind {
			case "select":
				c = srv.SelectCalls(ref, el, f.value)
			default:
				c, err = srv.AppCalls(servers.AppAction{Kind: f.kind, Ref: ref, Element: el, Text: f.value})
				if err != nil {
					return fail(err)
				}
			}
			for _, cc := range c {
				if _, err := call(cc.Tool, cc.Args); err != nil {
					return fail(err)
				}
			}
		}
	}
	if err := s.check(ctx, flowCheck(rep)); err != nil {
		return fail(err)
	}
	sm.OK = true
	return sm
}

// FlowTable summarises samples as a Markdown table (medians per server and mode).
func FlowTable(samples []FlowSample) string {
	type key struct{ server, mode string }
	groups := map[key][]FlowSample{}
	var order []key
	for _, s := range samples {
		k := key{s.Server, s.Mode}
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], s)
	}
	var b strings.Builder
	b.WriteString("| server | how | calls | text (bytes) | time (ms, median) | ok |\n|---|---|---:|---:|---:|---:|\n")
	for _, k := range order {
		g := groups[k]
		var msv, bytes, calls []float64
		ok := 0
		for _, s := range g {
			if s.OK {
				ok++
			}
			msv = append(msv, s.Ms)
			bytes = append(bytes, float64(s.TextBytes))
			calls = append(calls, float64(s.Calls))
		}
		how := "navigate + 6 single calls"
		if k.mode == "run" {
			how = "navigate + browser_run (6 steps)"
		}
		fmt.Fprintf(&b, "| %s | %s | %.0f | %.0f | %.0f | %d/%d |\n", k.server, how, median(calls), median(bytes), median(msv), ok, len(g))
	}
	return b.String()
}

// SaveFlow writes flow.json and flow.md into dir.
func SaveFlow(dir string, samples []FlowSample) error {
	b, err := json.MarshalIndent(map[string]any{"date": time.Now().UTC().Format(time.RFC3339), "samples": samples}, "", " ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "flow.json"), b, 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "flow.md"), []byte(FlowTable(samples)), 0o644)
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
