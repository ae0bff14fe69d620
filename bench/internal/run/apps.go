package run

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/monkbrowse/monkbrowse/bench/internal/fixtures"
	"github.com/monkbrowse/monkbrowse/bench/internal/servers"
	"github.com/monkbrowse/monkbrowse/bench/internal/snapshot"
)

// The apps corpus (issue 41): the tasks of e2e/libpages/apps.json, which
// e2e/apps_test.go runs through monkbrowse, run here through every server
// with each server's own tools. A task is done when its condition on the
// app's own state (window.__state) holds, read with the server's
// evaluation tool (not counted). Text per task is every byte of text the
// task's calls returned, from the navigation to the last action.

// AppTarget is an element as an AI picks it from a snapshot: the first with
// this role (any, when empty) whose name (or inline text) contains Name.
type AppTarget struct {
	Role string `json:"role"`
	Name string `json:"name"`
}

func (a AppTarget) String() string { return fmt.Sprintf("%s %q", a.Role, a.Name) }

// AppStep is one action of a task (see apps.json's "about").
type AppStep struct {
	Click       *AppTarget `json:"click"`
	Type        *AppTarget `json:"type"`
	Text        string     `json:"text"`
	Submit      bool       `json:"submit"`
	Keys        []string   `json:"keys"`
	Drag        *AppTarget `json:"drag"`
	To          *AppTarget `json:"to"`
	ClickAt     string     `json:"clickAt"`
	DragAt      string     `json:"dragAt"`
	ScrollUntil *AppTarget `json:"scrollUntil"`
	Reload      bool       `json:"reload"`
}

// AppTask is one task of the corpus.
type AppTask struct {
	Name  string    `json:"name"`
	Page  string    `json:"page"`
	Libs  []string  `json:"libs"`
	Class string    `json:"class"`
	Steps []AppStep `json:"steps"`
	Done  string    `json:"done"`
	Read  []AppRead `json:"read"`
}

// AppRead is what the AI must then read of the new state: an element (new
// since the task started), inside Within's subtree when set.
type AppRead struct {
	AppTarget
	Within *AppTarget `json:"within"`
}

// AppSample is one server's attempt at one task.
type AppSample struct {
	Server    string  `json:"server"`
	Task      string  `json:"task"`
	OK        bool    `json:"ok"`
	Error     string  `json:"error,omitempty"`
	Calls     int     `json:"calls"`
	TextBytes int     `json:"textBytes"`
	Ms        float64 `json:"ms"`
}

// AppResults is what RunApps measured.
type AppResults struct {
	Started  time.Time      `json:"started"`
	Duration float64        `json:"durationSeconds"`
	Tasks    []AppTask      `json:"tasks"`
	Servers  []ServerResult `json:"servers"`
	Samples  []AppSample    `json:"samples"`
}

// LoadAppTasks reads the corpus from the repository.
func LoadAppTasks(root string) ([]AppTask, error) {
	b, err := os.ReadFile(filepath.Join(root, "e2e", "libpages", "apps.json"))
	if err != nil {
		return nil, err
	}
	var f struct {
		Tasks []AppTask `json:"tasks"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("e2e/libpages/apps.json: %w", err)
	}
	return f.Tasks, nil
}

// RunApps bundles the corpus's pages (e2e/libpages, its npm packages
// installed), serves them and runs every task once per server, one server
// after the other.
func RunApps(ctx context.Context, cfg Config) (*AppResults, error) {
	logf := func(format string, a ...any) { fmt.Fprintf(cfg.Log, format+"\n", a...) }
	tasks, err := LoadAppTasks(cfg.Root)
	if err != nil {
		return nil, err
	}
	res := &AppResults{Started: time.Now(), Tasks: tasks}
	lib := filepath.Join(cfg.Root, "e2e", "libpages")
	if _, err := os.Stat(filepath.Join(lib, "node_modules", "esbuild")); err != nil {
		return nil, fmt.Errorf("the corpus's npm packages are not installed (npm ci in e2e/libpages): %w", err)
	}
	out := filepath.Join(cfg.OutDir, "apps-pages")
	cmd := exec.CommandContext(ctx, "node", "build.mjs", out)
	cmd.Dir = lib
	if b, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("bundling the corpus: %v\n%s", err, b)
	}
	files := map[string]string{"/start.html": filepath.Join(cfg.Root, "bench/testdata/start.html")}
	ents, err := os.ReadDir(out)
	if err != nil {
		return nil, err
	}
	for _, e := range ents {
		files["/"+e.Name()] = filepath.Join(out, e.Name())
	}
	fx, err := fixtures.Start(files)
	if err != nil {
		return nil, err
	}
	defer fx.Close()
	keys := cfg.Servers
	if len(keys) == 0 {
		keys = []string{servers.Monkbrowse, servers.MonkbrowseDebugger, servers.Playwright, servers.ChromeDevtools}
	}
	cfg.Apps = true
	for _, k := range keys {
		sr := ServerResult{Key: k}
		s, err := startSession(ctx, cfg, k, fx, &sr)
		if err != nil {
			return nil, fmt.Errorf("starting the %s session: %w", k, err)
		}
		for _, t := range tasks {
			d := &appDriver{ctx: ctx, s: s}
			sm := d.run(fx, t)
			if !sm.OK && len(d.pages) > 0 {
				// The last page text the task saw, to tell why.
				path := filepath.Join(cfg.OutDir, "apps-failures", k+"-"+t.Name+".txt")
				_ = os.MkdirAll(filepath.Dir(path), 0o755)
				_ = os.WriteFile(path, []byte(d.pages[len(d.pages)-1]), 0o644)
			}
			res.Samples = append(res.Samples, sm)
			status := "done"
			if !sm.OK {
				status = "FAILED " + sm.Error
			}
			logf("apps %s %s: %d calls, %d B: %s", k, t.Name, sm.Calls, sm.TextBytes, clip(status, 300))
			if s.dead != nil {
				break
			}
		}
		s.close()
		res.Servers = append(res.Servers, sr)
	}
	res.Duration = time.Since(res.Started).Seconds()
	return res, nil
}

// appDriver runs one task on one server, counting the AI-facing calls.
type appDriver struct {
	ctx context.Context
	s   *session
	sm  *AppSample
	// url is the task's page, for a reload step.
	url string
	// pages are the answers that showed the page (whole or what changed),
	// oldest first: what the AI knows of it.
	pages []string
}

func (d *appDriver) call(tool string, args map[string]any) (string, error) {
	r, err := d.s.call(d.ctx, tool, args)
	d.sm.Calls++
	d.sm.TextBytes += len(r.Text)
	d.sm.Ms += ms(r.Elapsed)
	if err != nil {
		d.s.dead = err
		return "", err
	}
	if r.IsError {
		return r.Text, fmt.Errorf("%s failed: %s", tool, clip(r.Text, 400))
	}
	if len(snapshot.Parse(r.Text, d.s.srv.Format)) > 0 {
		d.pages = append(d.pages, r.Text)
	}
	return r.Text, nil
}

// lookup finds the target in a fresh snapshot as the AI does before
// acting. An answer that the page is unchanged sends the AI to what it was
// shown before (the newest answer with the target); when none has it, it
// asks again, as that answer says to.
func (d *appDriver) lookup(a AppTarget) (string, string, bool, error) {
	srv := d.s.srv
	text, err := d.call(srv.Tools["snapshot"], srv.SnapshotArgs())
	if err != nil {
		return "", "", false, err
	}
	if !snapshot.Unchanged(text) {
		ref, el, ok := appLookup(text, srv.Format, a)
		return ref, el, ok, nil
	}
	for i := len(d.pages) - 1; i >= 0; i-- {
		if ref, el, ok := appLookup(d.pages[i], srv.Format, a); ok {
			return ref, el, true, nil
		}
	}
	if text, err = d.call(srv.Tools["snapshot"], srv.SnapshotArgs()); err != nil {
		return "", "", false, err
	}
	ref, el, ok := appLookup(text, srv.Format, a)
	return ref, el, ok, nil
}

func appLookup(text string, f snapshot.Format, a AppTarget) (string, string, bool) {
	for _, e := range snapshot.Parse(text, f) {
		if e.Ref == "" || (a.Role != "" && e.Role != a.Role) {
			continue
		}
		inline := ""
		if i := strings.LastIndex(e.Line, "]:"); i >= 0 {
			inline = e.Line[i+2:]
		}
		if strings.Contains(e.Name, a.Name) || (e.Name == "" && a.Name != "" && strings.Contains(inline, a.Name)) {
			return e.Ref, fmt.Sprintf("%s %q", e.Role, a.Name), true
		}
	}
	return "", "", false
}

// find looks the target up in a fresh snapshot, and once more after a
// moment (a menu still opening), as an AI would.
func (d *appDriver) find(a AppTarget) (string, string, error) {
	for try := 0; try < 2; try++ {
		if try > 0 {
			time.Sleep(time.Second)
		}
		ref, el, ok, err := d.lookup(a)
		if err != nil {
			return "", "", err
		}
		if ok {
			return ref, el, nil
		}
	}
	return "", "", fmt.Errorf("no %s with a ref in the snapshot", a)
}

func (d *appDriver) act(a servers.AppAction) error {
	calls, err := d.s.srv.AppCalls(a)
	if err != nil {
		return err
	}
	for _, c := range calls {
		if _, err := d.call(c.Tool, c.Args); err != nil {
			return err
		}
	}
	return nil
}

// eval runs expr with the server's evaluation tool (not counted) and
// returns the text between the markers it puts around its value.
func (d *appDriver) eval(expr string) (string, error) {
	srv := d.s.srv
	r, err := d.s.call(d.ctx, srv.Tools["evaluate"], srv.EvaluateArgs(`'VAL<' + (`+expr+`) + '>VAL'`))
	if err != nil {
		return "", err
	}
	m := valRe.FindStringSubmatch(r.Text)
	if r.IsError || m == nil {
		return "", fmt.Errorf("evaluating in the page: %s", clip(r.Text, 300))
	}
	// Playwright MCP and chrome-devtools-mcp show the value as a JSON string.
	return strings.ReplaceAll(m[1], `\"`, `"`), nil
}

// valRe is the first marked value of an answer (Playwright MCP echoes the
// code, markers included, after the value).
var valRe = regexp.MustCompile(`(?s)VAL<(.*?)>VAL`)

func (d *appDriver) points(expr string, n int) ([]float64, error) {
	v, err := d.eval("(" + expr + ").join(',')")
	if err != nil {
		return nil, err
	}
	var out []float64
	for _, f := range strings.Split(v, ",") {
		x, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil {
			return nil, fmt.Errorf("the page's geometry %q: %w", v, err)
		}
		out = append(out, x)
	}
	if len(out) != n {
		return nil, fmt.Errorf("the page's geometry %q: want %d numbers", v, n)
	}
	return out, nil
}

// until polls a condition on the app's state for up to d.
func (d *appDriver) until(cond string, wait time.Duration) (bool, string) {
	expr := "(() => { const s = window.__state; try { return !!(" + cond + "); } catch (e) { return false; } })() + ' ' + JSON.stringify(window.__state)"
	deadline := time.Now().Add(wait)
	for {
		v, err := d.eval(expr)
		if err == nil && strings.HasPrefix(v, "true") {
			return true, ""
		}
		if time.Now().After(deadline) || d.s.dead != nil {
			if err != nil {
				return false, err.Error()
			}
			return false, strings.TrimPrefix(v, "false ")
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (d *appDriver) step(st AppStep) error {
	switch {
	case st.Click != nil:
		ref, el, err := d.find(*st.Click)
		if err != nil {
			return err
		}
		return d.act(servers.AppAction{Kind: "click", Ref: ref, Element: el})
	case st.Type != nil:
		ref, el, err := d.find(*st.Type)
		if err != nil {
			return err
		}
		return d.act(servers.AppAction{Kind: "type", Ref: ref, Element: el, Text: st.Text, Submit: st.Submit})
	case st.Keys != nil:
		for _, k := range st.Keys {
			if err := d.act(servers.AppAction{Kind: "press", Key: k}); err != nil {
				return err
			}
		}
		return nil
	case st.Drag != nil:
		ref, el, err := d.find(*st.Drag)
		if err != nil {
			return err
		}
		to, toEl, ok := "", "", false
		for i := len(d.pages) - 1; i >= 0 && !ok; i-- {
			to, toEl, ok = appLookup(d.pages[i], d.s.srv.Format, *st.To)
		}
		if !ok {
			return fmt.Errorf("no %s with a ref in the snapshot", st.To)
		}
		return d.act(servers.AppAction{Kind: "drag", Ref: ref, Element: el, ToRef: to, ToElement: toEl})
	case st.ClickAt != "":
		p, err := d.points(st.ClickAt, 2)
		if err != nil {
			return err
		}
		return d.act(servers.AppAction{Kind: "clickxy", Points: p})
	case st.DragAt != "":
		p, err := d.points(st.DragAt, 4)
		if err != nil {
			return err
		}
		return d.act(servers.AppAction{Kind: "dragxy", Points: p})
	case st.Reload:
		if _, err := d.call(d.s.srv.Tools["navigate"], d.s.srv.NavigateArgs(d.url)); err != nil {
			return err
		}
		if ok, why := d.until("!!s", 10*time.Second); !ok {
			return errors.New("the page did not start again: " + why)
		}
		return nil
	case st.ScrollUntil != nil:
		for n := 0; n <= 30; n++ {
			_, _, ok, err := d.lookup(*st.ScrollUntil)
			if err != nil {
				return err
			}
			if ok {
				return nil
			}
			if err := d.act(servers.AppAction{Kind: "scroll"}); err != nil {
				return err
			}
		}
		return fmt.Errorf("%s not in the snapshot after 30 scrolls", st.ScrollUntil)
	}
	return errors.New("a step without an action")
}

func (d *appDriver) run(fx *fixtures.Server, t AppTask) AppSample {
	s := d.s
	sm := AppSample{Server: s.srv.Key, Task: t.Name}
	d.sm = &sm
	url := fx.URL("/"+t.Page+".html") + "?task=" + t.Name
	d.url = url
	text, err := d.call(s.srv.Tools["navigate"], s.srv.NavigateArgs(url))
	if err != nil {
		sm.Error = err.Error()
		return sm
	}
	_ = text
	if ok, why := d.until("!!s", 10*time.Second); !ok {
		sm.Error = "the page did not start: " + why
		return sm
	}
	for i, st := range t.Steps {
		if err := d.step(st); err != nil {
			sm.Error = fmt.Sprintf("step %d: %v", i+1, err)
			return sm
		}
	}
	if ok, state := d.until(t.Done, 3*time.Second); !ok {
		sm.Error = "not done: the app's state is " + clip(state, 300)
		return sm
	}
	for _, rd := range t.Read {
		if err := d.read(rd); err != nil {
			sm.Error = "done, but " + err.Error()
			return sm
		}
	}
	sm.OK = true
	return sm
}

// Save writes r as JSON.
func (r *AppResults) Save(path string) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}

// LoadApps reads results written by (*AppResults).Save.
func LoadApps(path string) (*AppResults, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r AppResults
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// appShows reports whether a page text shows the element (inside Within's
// subtree when set; depth from the lines' indentation).
func appShows(text string, f snapshot.Format, rd AppRead) bool {
	if rd.Role == "" && rd.Within == nil && strings.Contains(text, rd.Name) {
		// Any role: text lines count too (chrome-devtools-mcp's have no role).
		return true
	}
	els := snapshot.Parse(text, f)
	indent := func(e snapshot.Element) int { return len(e.Line) - len(strings.TrimLeft(e.Line, " ")) }
	match := func(e snapshot.Element, a AppTarget) bool {
		inline := ""
		if i := strings.LastIndex(e.Line, "]:"); i >= 0 {
			inline = e.Line[i+2:]
		}
		return (a.Role == "" || e.Role == a.Role) &&
			(strings.Contains(e.Name, a.Name) || (e.Name == "" && strings.Contains(inline, a.Name)))
	}
	for i, e := range els {
		if rd.Within == nil {
			if match(e, rd.AppTarget) {
				return true
			}
			continue
		}
		if !match(e, *rd.Within) {
			continue
		}
		for _, c := range els[i+1:] {
			if indent(c) <= indent(e) {
				break
			}
			if match(c, rd.AppTarget) {
				return true
			}
		}
	}
	return false
}

// read: the AI reads the new state from what the server showed it (the
// action answers, then a snapshot; an answer that the page is unchanged
// sends it to the earlier answers, then to asking again).
func (d *appDriver) read(rd AppRead) error {
	srv := d.s.srv
	what := rd.AppTarget.String()
	if rd.Within != nil {
		what += " inside " + rd.Within.String()
	}
	text, err := d.call(srv.Tools["snapshot"], srv.SnapshotArgs())
	if err != nil {
		return err
	}
	if !snapshot.Unchanged(text) {
		if appShows(text, srv.Format, rd) {
			return nil
		}
		return fmt.Errorf("the snapshot does not show %s", what)
	}
	for i := len(d.pages) - 1; i >= 0; i-- {
		if appShows(d.pages[i], srv.Format, rd) {
			return nil
		}
	}
	again, err := d.call(srv.Tools["snapshot"], srv.SnapshotArgs())
	if err != nil {
		return err
	}
	if appShows(again, srv.Format, rd) {
		return fmt.Errorf("a snapshot answered unchanged while no answer so far showed %s (asking again did)", what)
	}
	return fmt.Errorf("no answer shows %s", what)
}
