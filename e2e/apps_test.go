package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/accessibility"
	"github.com/chromedp/chromedp"

	"github.com/monkbrowse/monkbrowse/e2e/harness"
)

// The apps corpus (issue 41): the apps people work in — grids with in-cell
// editors, rich-text editors, canvas whiteboards, a terminal, boards, a
// calendar, a virtual list, a canvas chart, web-component design systems —
// built from the real npm packages pinned in libpages/package.json. The tasks
// are data (libpages/apps.json), shared with scripts/bench, which runs them
// through every server. Each is driven through monkbrowse's MCP tools as an AI
// would, with the debugger off (a snapshot, then an action by ref or by
// viewport coordinates), and judged only by the app's own model
// (window.__state, set from the grid's data API, the editor's state, the
// canvas library's shapes, the terminal's buffer…) read through CDP.

// appTasks lists every task of apps.json. A task monkbrowse does not complete
// yet carries knownFailure (why): it is skipped as "known failure, issue 41:
// …" so CI stays green, and run anyway with MONKBROWSE_E2E_KNOWN=1 to see
// whether a fix made it pass. Clear the field when it does.
var appTasks = []struct {
	name, knownFailure string
}{
	{name: "aggrid-type-amount"},
	{name: "aggrid-type-status"},
	{name: "tabulator-edit-qty"},
	{name: "prosemirror-bold-last-word"},
	{name: "prosemirror-item-after-second"},
	{name: "lexical-list-keys"},
	{name: "codemirror6-comment-first-line"},
	{name: "quill-bold-toolbar"},
	{name: "konva-draw-rectangle"},
	{name: "konva-move-shape"},
	{name: "freehand-stroke"},
	{name: "xterm-echo"},
	{name: "pangea-move-card"},
	{name: "fullcalendar-move-event"},
	{name: "virtual-list-choose"},
	{name: "chartjs-fallback-button"},
	{name: "chartjs-legend-click"},
	{name: "shoelace-select"},
	{name: "shoelace-switch"},
	{name: "material-tabs"},
	{name: "material-select"},
	{name: "material-switch"},
}

// appTarget is an element as the AI picks it from a snapshot: the first line
// with this role (any, when empty) whose name contains Name.
type appTarget struct {
	Role string `json:"role"`
	Name string `json:"name"`
}

func (a appTarget) String() string { return fmt.Sprintf("%s %q", a.Role, a.Name) }

// appStep is one action of a task (exactly one of its action fields is set).
type appStep struct {
	Click       *appTarget `json:"click"`
	Type        *appTarget `json:"type"`
	Text        string     `json:"text"`
	Submit      bool       `json:"submit"`
	Keys        []string   `json:"keys"`
	Drag        *appTarget `json:"drag"`
	To          *appTarget `json:"to"`
	ClickAt     string     `json:"clickAt"`
	DragAt      string     `json:"dragAt"`
	ScrollUntil *appTarget `json:"scrollUntil"`
	Reload      bool       `json:"reload"`
}

type appTaskSpec struct {
	Name  string    `json:"name"`
	Page  string    `json:"page"`
	Libs  []string  `json:"libs"`
	Class string    `json:"class"`
	Steps []appStep `json:"steps"`
	Done  string    `json:"done"`
	Read  []appRead `json:"read"`
}

// appRead is what the AI must then read of the new state: an element (new
// since the task started), inside Within's subtree when set.
type appRead struct {
	appTarget
	Within *appTarget `json:"within"`
}

func loadAppTasks(t *testing.T) map[string]appTaskSpec {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("libpages", "apps.json"))
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Tasks []appTaskSpec `json:"tasks"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatalf("libpages/apps.json: %v", err)
	}
	out := map[string]appTaskSpec{}
	for _, s := range f.Tasks {
		out[s.Name] = s
	}
	return out
}

// TestAppsCorpusListed keeps appTasks and apps.json in step, and the corpus
// at the size issue 41 asks for (≥ 14 tasks on ≥ 12 libraries). It needs no
// browser.
func TestAppsCorpusListed(t *testing.T) {
	specs := loadAppTasks(t)
	libs := map[string]bool{}
	seen := map[string]bool{}
	for _, a := range appTasks {
		s, ok := specs[a.name]
		if !ok {
			t.Errorf("appTasks lists %q, which apps.json does not define", a.name)
			continue
		}
		seen[a.name] = true
		if s.Done == "" || len(s.Steps) == 0 {
			t.Errorf("task %q has no steps or no done condition", a.name)
		}
		for _, l := range s.Libs {
			libs[l] = true
		}
		if _, err := os.Stat(filepath.Join("libpages", "src", s.Page+".js")); err != nil {
			if _, err := os.Stat(filepath.Join("libpages", "src", s.Page+".jsx")); err != nil {
				t.Errorf("task %q: no page libpages/src/%s.js(x)", a.name, s.Page)
			}
		}
	}
	for name := range specs {
		if !seen[name] {
			t.Errorf("apps.json defines %q, which appTasks does not list", name)
		}
	}
	// Libraries counted by package family (prosemirror-*, @fullcalendar/* are one each).
	fam := map[string]bool{}
	for l := range libs {
		if l == "react" || l == "lit" {
			continue
		}
		l = strings.SplitN(strings.TrimPrefix(l, "@"), "/", 2)[0]
		fam[strings.SplitN(l, "-", 2)[0]] = true
	}
	if len(specs) < 14 || len(fam) < 12 {
		t.Errorf("the corpus has %d tasks on %d libraries; issue 41 asks for at least 14 on 12", len(specs), len(fam))
	}
}

func TestApps(t *testing.T) {
	specs := loadAppTasks(t)
	runKnown := os.Getenv("MONKBROWSE_E2E_KNOWN") == "1"
	for _, a := range appTasks {
		spec, ok := specs[a.name]
		if !ok {
			t.Fatalf("appTasks lists %q, which apps.json does not define", a.name)
		}
		t.Run(a.name, func(t *testing.T) {
			if a.knownFailure != "" && !runKnown {
				t.Skip("known failure, issue 41: " + a.knownFailure)
			}
			runAppTask(t, shared(t), spec)
		})
	}
}

// runAppTask drives one task in a new window of s's browser and judges it by the app's state.
func runAppTask(t *testing.T, s *suite, spec appTaskSpec) *appRun {
	t.Helper()
	ctx := testContext(t, 60*time.Second)
	r := &appRun{libTab: openLib(ctx, t, s, spec.Page, false)}
	for i, st := range spec.Steps {
		r.step(ctx, t, i, st)
	}
	r.appDone(ctx, t, spec.Done)
	for _, rd := range spec.Read {
		r.read(ctx, t, rd)
	}
	return r
}

// appTasksDebugger: the tasks the corpus runs with the person's debugger
// switch on (real input through chrome.debugger, Chromium's tree in the
// snapshot), each with why it still fails where it does (skipped unless
// MONKBROWSE_E2E_KNOWN=1), and what an answer must say when part of the
// task could not be real input (note).
var appTasksDebugger = []struct {
	name, knownFailure, note string
}{
	// The real Ctrl+Home comes after the real click at a person's pace
	// (lib/worker/input-pace.ts): ProseMirror undoes a move of the caret to
	// the document start within 200 ms of the editor gaining focus.
	{name: "prosemirror-bold-last-word"},
	// No real click reaches a canvas's fallback content: a synthetic click, said so.
	{name: "chartjs-fallback-button", note: "fallback content inside a <canvas>"},
	{name: "material-select"},
	{name: "shoelace-select"},
	{name: "material-tabs"},
}

// TestAppsDebugger runs tasks of the corpus with the debugger mode on, in a
// browser of its own (the switch is the profile's).
func TestAppsDebugger(t *testing.T) {
	specs := loadAppTasks(t)
	runKnown := os.Getenv("MONKBROWSE_E2E_KNOWN") == "1"
	p := need(t)
	ctx := testContext(t, 60*time.Second)
	s, err := newSuite(ctx, t, p, fixtures(), "apps-debugger")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.close)
	if err := s.browser.SetUseDebugger(ctx, true); err != nil {
		t.Fatal(err)
	}
	for _, a := range appTasksDebugger {
		spec, ok := specs[a.name]
		if !ok {
			t.Fatalf("appTasksDebugger lists %q, which apps.json does not define", a.name)
		}
		t.Run(a.name, func(t *testing.T) {
			if a.knownFailure != "" && !runKnown {
				t.Skip("known failure with the debugger on, issue 41: " + a.knownFailure)
			}
			r := runAppTask(t, s, spec)
			if a.note != "" && !strings.Contains(strings.Join(r.answers, "\n"), a.note) {
				t.Errorf("no answer of the task says %q:\n%s", a.note, harness.Clip(strings.Join(r.answers, "\n---\n"), 3000))
			}
		})
	}
}

// appRun is one task's run: the tab, every answer that showed the page
// (whole or what changed), oldest first — what the AI knows of it — and
// every answer.
type appRun struct {
	*libTab
	pages, answers []string
}

// do calls a tool and keeps its answer when it shows the page.
func (r *appRun) do(ctx context.Context, t *testing.T, tool string, args map[string]any) string {
	t.Helper()
	out := r.libTab.do(ctx, t, tool, args)
	r.answers = append(r.answers, out)
	if len(harness.ParseSnapshot(out)) > 0 {
		r.pages = append(r.pages, out)
	}
	return out
}

// lookup takes a snapshot, as the AI does before acting, and finds the
// target. An answer that the page is unchanged sends the AI to what it was
// shown before; when none of that has the target but asking again (as the
// answer says to) finds it, the page had changed: a false "unchanged" fails
// the task (issue 41).
func (r *appRun) lookup(ctx context.Context, t *testing.T, a appTarget) (string, string, bool) {
	t.Helper()
	snap := r.do(ctx, t, "browser_snapshot", map[string]any{})
	if !strings.Contains(snap, "Unchanged since your last full snapshot") {
		ref, ok := appLookup(snap, a)
		return ref, snap, ok
	}
	for i := len(r.pages) - 1; i >= 0; i-- {
		if ref, ok := appLookup(r.pages[i], a); ok {
			return ref, r.pages[i], true
		}
	}
	again := r.do(ctx, t, "browser_snapshot", map[string]any{})
	if _, ok := appLookup(again, a); ok {
		t.Fatalf("the snapshot answered %q, but the page had changed: %s is new since every answer before it:\n%s", harness.Clip(snap, 120), a, harness.Clip(again, 3000))
	}
	return "", again, false
}

// find is lookup, once more after a moment (a menu still opening) as an AI
// would; it fails the task when the target has no ref.
func (r *appRun) find(ctx context.Context, t *testing.T, step int, a appTarget) string {
	t.Helper()
	if ref, _, ok := r.lookup(ctx, t, a); ok {
		return ref
	}
	r.do(ctx, t, "browser_wait", map[string]any{"time": 1})
	ref, snap, ok := r.lookup(ctx, t, a)
	if !ok {
		t.Fatalf("step %d: the snapshot has no %s with a ref (%s):\n%s", step+1, a, r.chromiumHas(ctx, t, a), harness.Clip(snap, 6000))
	}
	return ref
}

func appLookup(snap string, a appTarget) (string, bool) {
	for _, ln := range harness.ParseSnapshot(snap) {
		if ln.Ref == "" || (a.Role != "" && ln.Role != a.Role) {
			continue
		}
		if strings.Contains(ln.Name, a.Name) || (ln.Name == "" && a.Name != "" && strings.Contains(ln.Value, a.Name)) {
			return ln.Ref, true
		}
	}
	return "", false
}

// appKey writes a key the way monkbrowse's browser_press_key reads it
// (apps.json uses Playwright's names: Control+Home, Control+b).
func appKey(k string) string {
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

// appPoints evaluates a geometry expression (standing in for what the AI
// reads off a screenshot) to viewport points.
func (l *libTab) appPoints(ctx context.Context, t *testing.T, expr string, n int) []float64 {
	t.Helper()
	p := js[[]float64](ctx, t, l.tab, expr)
	if len(p) != n {
		t.Fatalf("%s gave %v, want %d numbers", expr, p, n)
	}
	return p
}

func (r *appRun) step(ctx context.Context, t *testing.T, i int, st appStep) {
	t.Helper()
	switch {
	case st.Click != nil:
		r.do(ctx, t, "browser_click", map[string]any{"ref": r.find(ctx, t, i, *st.Click), "element": st.Click.String()})
	case st.Type != nil:
		r.do(ctx, t, "browser_type", map[string]any{"ref": r.find(ctx, t, i, *st.Type), "element": st.Type.String(), "text": st.Text, "submit": st.Submit})
	case st.Keys != nil:
		for _, k := range st.Keys {
			r.do(ctx, t, "browser_press_key", map[string]any{"key": appKey(k)})
		}
	case st.Drag != nil:
		from := r.find(ctx, t, i, *st.Drag)
		to, ok := "", false
		for j := len(r.pages) - 1; j >= 0 && !ok; j-- {
			to, ok = appLookup(r.pages[j], *st.To)
		}
		if !ok {
			t.Fatalf("step %d: the snapshot has no %s with a ref:\n%s", i+1, st.To, harness.Clip(r.pages[len(r.pages)-1], 6000))
		}
		r.do(ctx, t, "browser_drag", map[string]any{"startElement": st.Drag.String(), "startRef": from, "endElement": st.To.String(), "endRef": to})
	case st.ClickAt != "":
		p := r.appPoints(ctx, t, st.ClickAt, 2)
		r.do(ctx, t, "browser_click_xy", map[string]any{"x": p[0], "y": p[1]})
	case st.DragAt != "":
		p := r.appPoints(ctx, t, st.DragAt, 4)
		r.do(ctx, t, "browser_drag_xy", map[string]any{"startX": p[0], "startY": p[1], "endX": p[2], "endY": p[3]})
	case st.Reload:
		r.do(ctx, t, "browser_reload", map[string]any{})
		waitJS(ctx, t, r.tab, "!!window.__state")
	case st.ScrollUntil != nil:
		for n := 0; ; n++ {
			if _, _, ok := r.lookup(ctx, t, *st.ScrollUntil); ok {
				return
			}
			if n == 30 {
				t.Fatalf("step %d: %s not in the snapshot after %d scrolls (the app shows %s)", i+1, st.ScrollUntil, n, r.state(ctx, t, "rendered"))
			}
			r.do(ctx, t, "browser_scroll", map[string]any{"direction": "down"})
		}
	default:
		t.Fatalf("step %d of the task has no action", i+1)
	}
}

// appDone waits briefly (the last answer should already reflect it) for the
// task's condition on the app's own state.
func (l *libTab) appDone(ctx context.Context, t *testing.T, cond string) {
	t.Helper()
	expr := "(() => { const s = window.__state; try { return !!(" + cond + "); } catch (e) { return false; } })()"
	deadline := time.Now().Add(3 * time.Second)
	for !js[bool](ctx, t, l.tab, expr) {
		if time.Now().After(deadline) {
			t.Fatalf("the app's state does not satisfy %s:\n%s", cond, harness.Clip(js[string](ctx, t, l.tab, "JSON.stringify(window.__state)"), 3000))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// chromiumHas says whether Chromium's own accessibility tree has the target,
// so a failure tells a gap of the snapshot from a task the page cannot do.
// (Chromium names no listitem from its content: there the count says it.)
func (l *libTab) chromiumHas(ctx context.Context, t *testing.T, a appTarget) string {
	t.Helper()
	c, cancel := l.tab.Context(ctx)
	defer cancel()
	_, _ = chromedp.Call(c, accessibility.Enable, struct{}{})
	res, err := chromedp.Call(c, accessibility.GetFullAXTree, accessibility.GetFullAXTreeParams{})
	if err != nil {
		return "Chromium's tree unread: " + err.Error()
	}
	var near []string
	for _, n := range res.Nodes {
		if n.Ignored || n.Role == nil {
			continue
		}
		role, name := axString(n.Role), normName(axString(n.Name))
		if (a.Role == "" || role == a.Role) && strings.Contains(name, a.Name) {
			return fmt.Sprintf("Chromium's own tree has it: %s %q", role, name)
		}
		if role == a.Role {
			near = append(near, fmt.Sprintf("%q", name))
		}
	}
	return fmt.Sprintf("nor has Chromium's own tree by that name; its %d %s nodes: %s", len(near), a.Role, strings.Join(near, ", "))
}

// appShows reports whether a page text shows the element (inside Within's
// subtree when set).
func appShows(text string, rd appRead) bool {
	if rd.Role == "" && rd.Within == nil && strings.Contains(text, rd.Name) {
		return true // any role: text lines count too
	}
	lines := harness.ParseSnapshot(text)
	match := func(ln harness.SnapshotLine, a appTarget) bool {
		return (a.Role == "" || ln.Role == a.Role) &&
			(strings.Contains(ln.Name, a.Name) || (ln.Name == "" && strings.Contains(ln.Value, a.Name)))
	}
	for i, ln := range lines {
		if rd.Within == nil {
			if match(ln, rd.appTarget) {
				return true
			}
			continue
		}
		if !match(ln, *rd.Within) {
			continue
		}
		for _, c := range lines[i+1:] {
			if c.Indent <= ln.Indent {
				break
			}
			if match(c, rd.appTarget) {
				return true
			}
		}
	}
	return false
}

// read: after the task, the AI reads the new state from what monkbrowse
// shows it — the action answers and a snapshot. A snapshot answering
// "unchanged" when nothing shown so far has the new state is a false
// "unchanged" (issue 41), and fails the task.
func (r *appRun) read(ctx context.Context, t *testing.T, rd appRead) {
	t.Helper()
	what := rd.appTarget.String()
	if rd.Within != nil {
		what += " inside " + rd.Within.String()
	}
	snap := r.do(ctx, t, "browser_snapshot", map[string]any{})
	if !strings.Contains(snap, "Unchanged since your last full snapshot") {
		if !appShows(snap, rd) {
			t.Fatalf("after the task the snapshot does not show %s:\n%s", what, harness.Clip(snap, 6000))
		}
		return
	}
	for i := len(r.pages) - 1; i >= 0; i-- {
		if appShows(r.pages[i], rd) {
			return
		}
	}
	again := r.do(ctx, t, "browser_snapshot", map[string]any{})
	if appShows(again, rd) {
		t.Fatalf("the snapshot answered %q, but no answer so far showed %s, which asking again shows:\n%s", harness.Clip(snap, 120), what, harness.Clip(again, 3000))
	}
	t.Fatalf("after the task no answer shows %s:\n%s", what, harness.Clip(again, 6000))
}
