package snapshot

import (
	"reflect"
	"testing"
)

const pwSnap = "### Page\n- Page URL: http://x/\n### Snapshot\n```yaml\n" +
	`- generic [active] [ref=f1e1]:
  - heading "Sign in" [level=1] [ref=f1e2]
  - textbox "Email" [ref=f1e5]
  - checkbox "Remember me" [ref=f1e9]
  - text: Remember me
  - combobox "Country" [ref=f1e17]:
    - option "Choose…" [selected]
  - button "Say \"hi\"" [ref=f1e26] [cursor=pointer]
  - link "Forgot password?" [ref=f1e37] [cursor=pointer]:
    - /url: /links.html
` + "```"

const cdpSnap = `## Latest page snapshot
uid=1_0 RootWebArea "Sign in fixture" url="http://127.0.0.1:39687/signin.html"
  uid=1_1 heading "Sign in" level="1"
    uid=1_3 "Email"
    uid=1_4 textbox "Email"
    uid=1_12 combobox "Country" expandable haspopup="menu" value="Choose…"
      uid=1_13 option "Choose…" selected
    uid=1_25 button "Sign in"
    uid=1_26 button "Delete account" disableable disabled
  uid=1_29 status atomic live="polite" relevant="additions text"
`

func TestFindYAML(t *testing.T) {
	for _, c := range []struct{ role, name, ref string }{
		{"textbox", "Email", "f1e5"},
		{"button", `Say "hi"`, "f1e26"},
		{"link", "Forgot password?", "f1e37"},
	} {
		got, err := Find(pwSnap, YAML, c.role, c.name)
		if err != nil || got != c.ref {
			t.Errorf("Find(%s %q) = %q, %v; want %q", c.role, c.name, got, err, c.ref)
		}
	}
	if _, err := Find(pwSnap, YAML, "option", "Choose…"); err == nil {
		t.Error("an element without a ref must be an error")
	}
	if _, err := Find(pwSnap, YAML, "button", "Nope"); err == nil {
		t.Error("a missing element must be an error")
	}
}

func TestFindUID(t *testing.T) {
	for _, c := range []struct{ role, name, ref string }{
		{"textbox", "Email", "1_4"},
		{"button", "Delete account", "1_26"},
		{"option", "Choose…", "1_13"},
	} {
		got, err := Find(cdpSnap, UID, c.role, c.name)
		if err != nil || got != c.ref {
			t.Errorf("Find(%s %q) = %q, %v; want %q", c.role, c.name, got, err, c.ref)
		}
	}
}

func TestInteractive(t *testing.T) {
	want := []RoleName{{"button", `Say "hi"`}, {"checkbox", "Remember me"}, {"combobox", "Country"},
		{"link", "Forgot password?"}, {"option", "Choose…"}, {"textbox", "Email"}}
	if got := Interactive(pwSnap, YAML); !reflect.DeepEqual(got, want) {
		t.Errorf("Interactive(YAML) = %v\nwant %v", got, want)
	}
	cwant := []RoleName{{"button", "Delete account"}, {"button", "Sign in"}, {"combobox", "Country"},
		{"option", "Choose…"}, {"textbox", "Email"}}
	if got := Interactive(cdpSnap, UID); !reflect.DeepEqual(got, cwant) {
		t.Errorf("Interactive(UID) = %v\nwant %v", got, cwant)
	}
	if m := Missing(want, cwant); len(m) != 3 {
		t.Errorf("Missing = %v", m)
	}
}

func TestUnchanged(t *testing.T) {
	if !Unchanged(`Unchanged since your last full snapshot of tab 1 of profile "bench": same URL, title, elements and refs. Call again for the full text.`) {
		t.Error("monkbrowse's unchanged answer not recognised")
	}
	if Unchanged(pwSnap) || Unchanged("- button \"Unchanged since your last full snapshot\" [ref=e1]") {
		t.Error("a snapshot with refs taken for an unchanged answer")
	}
}

func TestBudgeted(t *testing.T) {
	cut := "- Page Snapshot (part 1; …):\n- button \"A\" [ref=e1]\nLeft out: 9,000 of 9,100 lines (5,600 elements with refs). Next part: browser_snapshot with cursor=\"c1.2\" (same refs; valid for 10 minutes); or browser_find to search."
	if !Budgeted(cut) {
		t.Error("a cut snapshot not recognised")
	}
	if Budgeted(pwSnap) || Budgeted("- button \"Left out: \" [ref=e1]") {
		t.Error("a whole snapshot taken for a cut one")
	}
}
