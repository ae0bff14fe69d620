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
