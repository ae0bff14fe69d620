// Package servers describes the three MCP servers the benchmark drives: how
// to start each, and how each benchmark step maps onto its own tools and
// arguments.
package servers

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/monkbrowse/monkbrowse/bench/internal/mcpdrive"
	"github.com/monkbrowse/monkbrowse/bench/internal/snapshot"
)

// Keys of the servers, in report order.
const (
	Monkbrowse     = "monkbrowse"
	Playwright     = "playwright"
	ChromeDevtools = "chrome-devtools"
	// MonkbrowseDebugger is monkbrowse with the person's debugger switch on
	// (the apps corpus only).
	MonkbrowseDebugger = "monkbrowse-debugger"
)

// Server is one benchmarked server: its launch command and its tool
// mapping.
type Server struct {
	Key   string
	Label string
	// Format is the text format of its snapshots.
	Format snapshot.Format
	// Launch is the command for one session.
	Launch mcpdrive.Config
	// Tools maps each benchmark step (and "evaluate", used to check effects)
	// to the server's tool name.
	Tools map[string]string

	navigate   func(url string) map[string]any
	element    func(ref, element string) map[string]any
	typeText   func(ref, element, text string) map[string]any
	evaluate   func(expr string) map[string]any
	prepare    func(ctx context.Context, s *mcpdrive.Server) (map[string]any, error)
	sessionArg map[string]any
}

// Steps are the benchmark's steps, in the order a task runs them.
var Steps = []string{"navigate", "snapshot", "click", "type", "screenshot"}

// Paths says where the programs are.
type Paths struct {
	Chromium   string // /usr/bin/chromium
	NPM        string // bench/npm (with node_modules installed)
	Monkbrowse string // the built monkbrowse binary
	OutDir     string // a directory for files the servers write
}

// NewPlaywright is @playwright/mcp: headless, the given Chromium, an
// in-memory profile, no sandbox (the benchmark runs as root), viewport
// 1280×720, files (snapshots it links to, screenshots) under OutDir.
func NewPlaywright(p Paths, version string) *Server {
	return &Server{
		Key: Playwright, Label: "Playwright MCP " + version, Format: snapshot.YAML,
		Launch: mcpdrive.Config{
			Name:    "playwright-mcp",
			Command: filepath.Join(p.NPM, "node_modules", ".bin", "playwright-mcp"),
			Args: []string{"--headless", "--executable-path", p.Chromium, "--isolated", "--no-sandbox",
				"--viewport-size", "1280x720", "--output-dir", filepath.Join(p.OutDir, "playwright-out")},
			Env: []string{"PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1"},
			Dir: p.OutDir,
		},
		Tools: map[string]string{"navigate": "browser_navigate", "snapshot": "browser_snapshot", "click": "browser_click",
			"type": "browser_type", "screenshot": "browser_take_screenshot", "evaluate": "browser_evaluate"},
		navigate: func(url string) map[string]any { return map[string]any{"url": url} },
		// 0.0.8x names the ref "target" (a ref from the snapshot or a selector).
		element: func(ref, el string) map[string]any { return map[string]any{"target": ref, "element": el} },
		typeText: func(ref, el, text string) map[string]any {
			return map[string]any{"target": ref, "element": el, "text": text}
		},
		evaluate: func(expr string) map[string]any { return map[string]any{"function": "() => (" + expr + ")"} },
	}
}

// NewChromeDevtools is chrome-devtools-mcp: headless, the given Chromium, a
// temporary profile, no sandbox, viewport 1280×720, no usage statistics or
// CrUX look-ups (no network beyond 127.0.0.1 in the benchmark).
func NewChromeDevtools(p Paths, version string) *Server {
	return &Server{
		Key: ChromeDevtools, Label: "chrome-devtools-mcp " + version, Format: snapshot.UID,
		Launch: mcpdrive.Config{
			Name:    "chrome-devtools-mcp",
			Command: filepath.Join(p.NPM, "node_modules", ".bin", "chrome-devtools-mcp"),
			Args: []string{"--headless", "--executablePath", p.Chromium, "--isolated", "--chromeArg=--no-sandbox",
				"--viewport", "1280x720", "--no-usage-statistics", "--no-performance-crux"},
			Env: []string{"CHROME_DEVTOOLS_MCP_NO_USAGE_STATISTICS=1", "PUPPETEER_SKIP_DOWNLOAD=1"},
			Dir: p.OutDir,
		},
		Tools: map[string]string{"navigate": "navigate_page", "snapshot": "take_snapshot", "click": "click",
			"type": "fill", "screenshot": "take_screenshot", "evaluate": "evaluate_script", "pages": "list_pages"},
		navigate: func(url string) map[string]any { return map[string]any{"type": "url", "url": url} },
		element:  func(ref, _ string) map[string]any { return map[string]any{"uid": ref} },
		typeText: func(ref, _, text string) map[string]any { return map[string]any{"uid": ref, "value": text} },
		evaluate: func(expr string) map[string]any { return map[string]any{"function": "() => (" + expr + ")"} },
		// Page-scoped tools require pageId by default (--pageIdRouting):
		// read it from list_pages once, as an AI does.
		prepare: func(ctx context.Context, s *mcpdrive.Server) (map[string]any, error) {
			r, err := s.Call(ctx, "list_pages", map[string]any{})
			if err != nil {
				return nil, err
			}
			m := selectedPage.FindStringSubmatch(r.Text)
			if m == nil {
				return nil, fmt.Errorf("list_pages shows no selected page: %s", r.Text)
			}
			id, _ := strconv.Atoi(m[1])
			return map[string]any{"pageId": id}, nil
		},
	}
}

var selectedPage = regexp.MustCompile(`(?m)^(\d+): .*\[selected\]`)

// NewMonkbrowse is the monkbrowse binary on the given ports with a private
// HOME (its control token lives there). The browser and extension are
// started separately by the benchmark.
func NewMonkbrowse(p Paths, port, controlPort int, home string) *Server {
	return &Server{
		Key: Monkbrowse, Label: "monkbrowse", Format: snapshot.YAML,
		Launch: mcpdrive.Config{
			Name:    "monkbrowse",
			Command: p.Monkbrowse,
			Args:    []string{"--port", strconv.Itoa(port), "--control-port", strconv.Itoa(controlPort), "--log-level", "warn"},
			Env:     []string{"HOME=" + home},
			Dir:     p.OutDir,
		},
		Tools: map[string]string{"navigate": "browser_navigate", "snapshot": "browser_snapshot", "click": "browser_click",
			"type": "browser_type", "screenshot": "browser_screenshot", "evaluate": "browser_evaluate", "find": "browser_find"},
		navigate: func(url string) map[string]any { return map[string]any{"url": url} },
		element:  func(ref, el string) map[string]any { return map[string]any{"ref": ref, "element": el} },
		typeText: func(ref, el, text string) map[string]any {
			return map[string]any{"ref": ref, "element": el, "text": text}
		},
		evaluate: func(expr string) map[string]any { return map[string]any{"expression": expr} },
	}
}

// Prepare runs once per session before the first step (chrome-devtools-mcp:
// find the page id).
func (s *Server) Prepare(ctx context.Context, sess *mcpdrive.Server) error {
	if s.prepare == nil {
		return nil
	}
	args, err := s.prepare(ctx, sess)
	if err != nil {
		return err
	}
	s.sessionArg = args
	return nil
}

func (s *Server) with(m map[string]any) map[string]any {
	for k, v := range s.sessionArg {
		m[k] = v
	}
	return m
}

// NavigateArgs are the navigate tool's arguments.
func (s *Server) NavigateArgs(url string) map[string]any { return s.with(s.navigate(url)) }

// FindArgs are the arguments of a server's find tool (monkbrowse's
// browser_find), for an element its budgeted snapshot left out.
func (s *Server) FindArgs(role, name string) map[string]any {
	return s.with(map[string]any{"query": fmt.Sprintf("role:%s %q", role, name)})
}

// SnapshotArgs are the snapshot tool's arguments.
func (s *Server) SnapshotArgs() map[string]any { return s.with(map[string]any{}) }

// ClickArgs are the click tool's arguments.
func (s *Server) ClickArgs(ref, element string) map[string]any {
	return s.with(s.element(ref, element))
}

// TypeArgs are the type tool's arguments.
func (s *Server) TypeArgs(ref, element, text string) map[string]any {
	return s.with(s.typeText(ref, element, text))
}

// ScreenshotArgs are the screenshot tool's arguments: each server's default
// capture of the viewport (monkbrowse: JPEG within ~1,000 image tokens; the
// other two: PNG at full size).
func (s *Server) ScreenshotArgs() map[string]any { return s.with(map[string]any{}) }

// ShotFormat is one way a server's screenshot tool can be asked for the
// viewport: a label and the arguments.
type ShotFormat struct {
	Label string
	Args  map[string]any
}

// ShotFormats are the formats each server's screenshot tool offers, its
// default first (Playwright MCP 0.0.83: png or jpeg, no quality;
// chrome-devtools-mcp 1.11: png, jpeg or webp with a quality; monkbrowse:
// jpeg within ~1,000 image tokens by default, png and webp, fullSize for the
// page's own pixels).
func (s *Server) ShotFormats() []ShotFormat {
	var fs []ShotFormat
	switch s.Key {
	case Monkbrowse:
		fs = []ShotFormat{{"jpeg (default)", map[string]any{}}, {"png", map[string]any{"format": "png"}},
			{"webp", map[string]any{"format": "webp"}}, {"png, fullSize", map[string]any{"format": "png", "fullSize": true}}}
	case Playwright:
		fs = []ShotFormat{{"png (default)", map[string]any{}}, {"jpeg", map[string]any{"type": "jpeg"}}}
	case ChromeDevtools:
		fs = []ShotFormat{{"png (default)", map[string]any{}}, {"jpeg", map[string]any{"format": "jpeg"}},
			{"webp", map[string]any{"format": "webp"}}}
	}
	for i := range fs {
		fs[i].Args = s.with(fs[i].Args)
	}
	return fs
}

// EvaluateArgs runs a JavaScript expression in the page.
func (s *Server) EvaluateArgs(expr string) map[string]any { return s.with(s.evaluate(expr)) }

// AppAction is one action of the apps corpus (e2e/libpages/apps.json) in a
// server-neutral form: Kind is click, type, press, drag, clickxy, dragxy or
// scroll; refs come from the server's own snapshot.
type AppAction struct {
	Kind             string
	Ref, Element     string
	ToRef, ToElement string
	Text             string
	Submit           bool
	// Key in Playwright's names (Control+Home, Control+b).
	Key    string
	Points []float64
}

// AppCalls maps an action onto the server's tools: one call or more (a
// server whose type tool cannot submit presses Enter after it), or an error
// when the server has no tool for it (chrome-devtools-mcp takes no viewport
// points). Playwright MCP's coordinate and wheel tools need --caps=vision
// (see AppLaunch).
func (s *Server) AppCalls(a AppAction) ([]Call, error) {
	one := func(tool string, args map[string]any) ([]Call, error) {
		return []Call{{Tool: tool, Args: s.with(args)}}, nil
	}
	switch s.Key {
	case Monkbrowse, MonkbrowseDebugger:
		switch a.Kind {
		case "click":
			return one("browser_click", map[string]any{"ref": a.Ref, "element": a.Element})
		case "type":
			return one("browser_type", map[string]any{"ref": a.Ref, "element": a.Element, "text": a.Text, "submit": a.Submit})
		case "press":
			return one("browser_press_key", map[string]any{"key": monkbrowseKey(a.Key)})
		case "drag":
			return one("browser_drag", map[string]any{"startRef": a.Ref, "startElement": a.Element, "endRef": a.ToRef, "endElement": a.ToElement})
		case "clickxy":
			return one("browser_click_xy", map[string]any{"x": a.Points[0], "y": a.Points[1]})
		case "dragxy":
			return one("browser_drag_xy", map[string]any{"startX": a.Points[0], "startY": a.Points[1], "endX": a.Points[2], "endY": a.Points[3]})
		case "scroll":
			return one("browser_scroll", map[string]any{"direction": "down"})
		}
	case Playwright:
		switch a.Kind {
		case "click":
			return one("browser_click", map[string]any{"target": a.Ref, "element": a.Element})
		case "type":
			return one("browser_type", map[string]any{"target": a.Ref, "element": a.Element, "text": a.Text, "submit": a.Submit})
		case "press":
			return one("browser_press_key", map[string]any{"key": a.Key})
		case "drag":
			return one("browser_drag", map[string]any{"startTarget": a.Ref, "startElement": a.Element, "endTarget": a.ToRef, "endElement": a.ToElement})
		case "clickxy":
			return one("browser_mouse_click_xy", map[string]any{"x": a.Points[0], "y": a.Points[1]})
		case "dragxy":
			return one("browser_mouse_drag_xy", map[string]any{"startX": a.Points[0], "startY": a.Points[1], "endX": a.Points[2], "endY": a.Points[3]})
		case "scroll":
			return one("browser_mouse_wheel", map[string]any{"deltaX": 0, "deltaY": 600})
		}
	case ChromeDevtools:
		switch a.Kind {
		case "click":
			return one("click", map[string]any{"uid": a.Ref})
		case "type":
			calls := []Call{{Tool: "fill", Args: s.with(map[string]any{"uid": a.Ref, "value": a.Text})}}
			if a.Submit {
				calls = append(calls, Call{Tool: "press_key", Args: s.with(map[string]any{"key": "Enter"})})
			}
			return calls, nil
		case "press":
			return one("press_key", map[string]any{"key": a.Key})
		case "drag":
			return one("drag", map[string]any{"from_uid": a.Ref, "to_uid": a.ToRef})
		case "scroll":
			// No scroll tool: the key a person would press.
			return one("press_key", map[string]any{"key": "PageDown"})
		case "clickxy", "dragxy":
			return nil, fmt.Errorf("%s has no tool that acts at a viewport point", s.Label)
		}
	}
	return nil, fmt.Errorf("%s: no mapping for the action %q", s.Label, a.Kind)
}

// Call is one tool call.
type Call struct {
	Tool string
	Args map[string]any
}

// AppLaunch adjusts the launch for the apps corpus: Playwright MCP gets its
// coordinate tools (--caps=vision) and monkbrowse its optional coordinates
// group (--caps coordinates), as a person driving canvas apps with either
// would configure it.
func (s *Server) AppLaunch() {
	switch s.Key {
	case Playwright:
		s.Launch.Args = append(s.Launch.Args, "--caps=vision")
	case Monkbrowse, MonkbrowseDebugger:
		s.Launch.Args = append(s.Launch.Args, "--caps", "coordinates")
	}
}

// monkbrowseKey writes a Playwright key name the way browser_press_key
// reads it (Control+b → Ctrl+B).
func monkbrowseKey(k string) string {
	parts := strings.Split(k, "+")
	for i, p := range parts {
		switch {
		case p == "Control":
			parts[i] = "Ctrl"
		case i == len(parts)-1 && len(parts) > 1 && len(p) == 1:
			parts[i] = strings.ToUpper(p)
		}
	}
	return strings.Join(parts, "+")
}

// With adds the server's fixed arguments (chrome-devtools-mcp's page) to m.
func (s *Server) With(m map[string]any) map[string]any { return s.with(m) }

// SelectCalls chooses the option labelled value in the select ref.
func (s *Server) SelectCalls(ref, element, value string) []Call {
	switch s.Key {
	case Playwright:
		return []Call{{Tool: "browser_select_option", Args: s.with(map[string]any{"target": ref, "element": element, "values": []string{value}})}}
	case ChromeDevtools:
		return []Call{{Tool: "fill", Args: s.with(map[string]any{"uid": ref, "value": value})}}
	}
	return []Call{{Tool: "browser_select_option", Args: s.with(map[string]any{"ref": ref, "element": element, "values": []string{value}})}}
}
