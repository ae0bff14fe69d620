package servers

import (
	"reflect"
	"testing"
)

func TestArgs(t *testing.T) {
	p := Paths{Chromium: "/usr/bin/chromium", NPM: "/npm", Monkbrowse: "/bin/monkbrowse", OutDir: "/out"}
	pw := NewPlaywright(p, "0.0.83")
	if got := pw.ClickArgs("f1e5", "Sign in button"); !reflect.DeepEqual(got, map[string]any{"target": "f1e5", "element": "Sign in button"}) {
		t.Errorf("Playwright click args = %v", got)
	}
	cd := NewChromeDevtools(p, "1.11.0")
	cd.sessionArg = map[string]any{"pageId": 1}
	if got := cd.TypeArgs("1_4", "Email", "x"); !reflect.DeepEqual(got, map[string]any{"uid": "1_4", "value": "x", "pageId": 1}) {
		t.Errorf("chrome-devtools fill args = %v", got)
	}
	mb := NewMonkbrowse(p, 9000, 9001, "/home")
	if got := mb.EvaluateArgs("1+1"); !reflect.DeepEqual(got, map[string]any{"expression": "1+1"}) {
		t.Errorf("monkbrowse evaluate args = %v", got)
	}
	for _, s := range []*Server{pw, cd, mb} {
		for _, st := range append(append([]string{}, Steps...), "evaluate") {
			if s.Tools[st] == "" {
				t.Errorf("%s has no tool for %s", s.Key, st)
			}
		}
	}
}

func TestSelectedPage(t *testing.T) {
	m := selectedPage.FindStringSubmatch("## Pages\n1: about:blank\n2: Sign in (http://x/) [selected]\n")
	if m == nil || m[1] != "2" {
		t.Fatalf("selected page = %v", m)
	}
}

// Each server gets the apps corpus's actions in its own tools and argument
// names; a server without a tool for an action says so.
func TestAppCalls(t *testing.T) {
	p := Paths{}
	mb, pw, cd := NewMonkbrowse(p, 1, 2, "/h"), NewPlaywright(p, "x"), NewChromeDevtools(p, "y")
	cd.sessionArg = map[string]any{"pageId": 1}
	calls, err := mb.AppCalls(AppAction{Kind: "press", Key: "Control+Shift+ArrowLeft"})
	if err != nil || calls[0].Tool != "browser_press_key" || calls[0].Args["key"] != "Ctrl+Shift+ArrowLeft" {
		t.Errorf("monkbrowse press: %v %v", calls, err)
	}
	if calls, _ := mb.AppCalls(AppAction{Kind: "press", Key: "Control+b"}); calls[0].Args["key"] != "Ctrl+B" {
		t.Errorf("monkbrowse Control+b: %v", calls)
	}
	calls, err = pw.AppCalls(AppAction{Kind: "drag", Ref: "e1", Element: "a", ToRef: "e2", ToElement: "b"})
	if err != nil || calls[0].Tool != "browser_drag" || calls[0].Args["startTarget"] != "e1" || calls[0].Args["endTarget"] != "e2" {
		t.Errorf("Playwright drag: %v %v", calls, err)
	}
	calls, err = cd.AppCalls(AppAction{Kind: "type", Ref: "1_2", Text: "hi", Submit: true})
	if err != nil || len(calls) != 2 || calls[0].Tool != "fill" || calls[1].Tool != "press_key" || calls[1].Args["pageId"] != 1 {
		t.Errorf("chrome-devtools type+submit: %v %v", calls, err)
	}
	if _, err := cd.AppCalls(AppAction{Kind: "dragxy", Points: []float64{1, 2, 3, 4}}); err == nil {
		t.Error("chrome-devtools-mcp has no coordinate tool, yet dragxy mapped")
	}
	pw.AppLaunch()
	mb.AppLaunch()
	if a := pw.Launch.Args; a[len(a)-1] != "--caps=vision" {
		t.Errorf("Playwright's apps launch: %v", a)
	}
	if a := mb.Launch.Args; a[len(a)-1] != "coordinates" {
		t.Errorf("monkbrowse's apps launch: %v", a)
	}
}
