package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/monkbrowse/monkbrowse/e2e/harness"
)

// profile is one Chromium (one Chrome profile) in a multi-profile test.
type profile struct {
	b     *harness.Browser
	popup *harness.Popup
	tab   *harness.Tab
	slot  int
}

func launchProfile(ctx context.Context, t *testing.T, p *prerequisites, name string, port int, label string) *profile {
	t.Helper()
	b, err := harness.Launch(ctx, harness.BrowserConfig{ExecPath: p.chromium, Monkbrowse: p.bin, Extension: p.ext, Output: logSink(), Name: name})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	if err := b.SetSettings(ctx, port, label); err != nil {
		t.Fatal(err)
	}
	pop, err := b.OpenPopup(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return &profile{b: b, popup: pop}
}

func (pr *profile) waitConnected(ctx context.Context, t *testing.T, port int) harness.ExtStatus {
	t.Helper()
	c, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	st, err := pr.popup.WaitConnected(c, port)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func (pr *profile) shareFixture(ctx context.Context, t *testing.T, fx *harness.Fixtures, path string) {
	t.Helper()
	tab, err := pr.b.NewTab(ctx, unique(fx.URL(path)))
	if err != nil {
		t.Fatal(err)
	}
	pr.tab = tab
	id, err := pr.popup.ChromeTabID(ctx, tab)
	if err != nil {
		t.Fatal(err)
	}
	if pr.slot, err = pr.popup.Share(ctx, id); err != nil {
		t.Fatal(err)
	}
}

func (pr *profile) identity(ctx context.Context, t *testing.T) harness.ExtIdentity {
	t.Helper()
	id, err := pr.popup.Identity(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// TestProfiles: two Chromium profiles connect to one monkbrowse; colliding
// labels get distinct slugs; tools address each profile by slug, slug
// prefix (case-insensitively) and profileId; after monkbrowse restarts, each
// profile gets its own slug back even when they reconnect in the other
// order; a profile beyond --max-profiles is rejected with a reason.
func TestProfiles(t *testing.T) {
	p := need(t)
	ctx := testContext(t, 4*time.Minute)
	fx := fixtures()
	port, _ := harness.FreePort()
	cport, _ := harness.FreePort()
	home := mkdir(t, p, "home-profiles")
	start := func(name string) *harness.Server {
		srv, err := harness.StartServer(ctx, harness.ServerConfig{Bin: p.bin, Port: port, ControlPort: cport, Home: home, Name: name, MaxProfiles: 2, Log: logSink()})
		if err != nil {
			t.Fatal(err)
		}
		trackServer(srv)
		t.Cleanup(func() { _ = srv.Close() })
		return srv
	}
	srv := start("owner-profiles")

	// Both profiles are labelled "work": the second gets "work-2".
	one := launchProfile(ctx, t, p, "chromium-work", port, "work")
	one.waitConnected(ctx, t, port)
	two := launchProfile(ctx, t, p, "chromium-work2", port, "Work")
	two.waitConnected(ctx, t, port)
	id1, id2 := one.identity(ctx, t), two.identity(ctx, t)
	if id1.AssignedSlug != "work" || id2.AssignedSlug != "work-2" {
		t.Fatalf("slugs for two profiles labelled work/Work: %q and %q, want work and work-2", id1.AssignedSlug, id2.AssignedSlug)
	}
	if id1.ProfileID == "" || id1.ProfileID == id2.ProfileID {
		t.Fatalf("profile ids %q and %q must be set and differ", id1.ProfileID, id2.ProfileID)
	}
	one.shareFixture(ctx, t, fx, "/links.html")
	two.shareFixture(ctx, t, fx, "/links2.html")

	list := okOn(ctx, t, srv, "browser_list_tabs", nil)
	profiles := parseTabs(list)
	for _, slug := range []string{"work", "work-2"} {
		if pr, ok := profiles[slug]; !ok || !pr.Connected || len(pr.Tabs) != 1 {
			t.Fatalf("browser_list_tabs should show profile %q connected with one shared tab:\n%s", slug, list)
		}
	}

	read := func(srv *harness.Server, profileArg string, slot int) string {
		t.Helper()
		return okOn(ctx, t, srv, "browser_get_text", map[string]any{"profile": profileArg, "tab": slot})
	}
	check := func(srv *harness.Server, profileArg string, pr *profile, want string) {
		t.Helper()
		if out := read(srv, profileArg, pr.slot); !strings.Contains(out, want) {
			t.Errorf("profile %q tab %d reads %q, want %q", profileArg, pr.slot, harness.Clip(out, 300), want)
		}
	}
	check(srv, "work", one, "You are on page one")
	check(srv, "work-2", two, "You are on page two")
	check(srv, "WORK-2", two, "You are on page two")
	check(srv, "work-", two, "You are on page two")
	check(srv, id1.ProfileID, one, "You are on page one")
	// Acting on one profile leaves the other alone.
	okOn(ctx, t, srv, "browser_navigate", map[string]any{"profile": "work-2", "tab": two.slot, "url": fx.URL("/links3.html")})
	waitJS(ctx, t, two.tab, "location.pathname === '/links3.html'")
	if loc := js[string](ctx, t, one.tab, "location.pathname"); loc != "/links.html" {
		t.Errorf("navigating profile work-2 moved profile work's tab to %s", loc)
	}
	// An ambiguous prefix is refused and names the candidates.
	res := callOn(ctx, t, srv, "browser_get_text", map[string]any{"profile": "wo", "tab": 1})
	if !res.IsError || !strings.Contains(res.Text, "work-2") {
		t.Errorf("an ambiguous profile prefix should fail and list the profiles: %+v", res)
	}

	// A third profile is over --max-profiles=2: rejected with a reason.
	three := launchProfile(ctx, t, p, "chromium-third", port, "third")
	deadline := time.Now().Add(20 * time.Second)
	for {
		st, err := three.popup.Status(ctx)
		if err == nil && st.State == "rejected" {
			if st.Reason == "" {
				t.Error("the rejected profile shows no reason")
			}
			t.Logf("third profile: %s", st.Reason)
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a profile beyond --max-profiles=2 was not rejected: %+v (err %v)", st, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	three.b.Close()

	// Restart monkbrowse. Profile two reconnects first (profile one is
	// pointed at a dead port meanwhile, as a person editing the options
	// would), yet each gets its own slug back.
	if err := srv.Close(); err != nil {
		t.Logf("closing the first server: %v", err)
	}
	dead, _ := harness.FreePort()
	if err := one.b.SetSettings(ctx, dead, "work"); err != nil {
		t.Fatal(err)
	}
	srv = start("owner-profiles-restarted")
	two.waitConnected(ctx, t, port)
	if err := one.b.SetSettings(ctx, port, "work"); err != nil {
		t.Fatal(err)
	}
	one.waitConnected(ctx, t, port)
	if s1, s2 := one.identity(ctx, t).AssignedSlug, two.identity(ctx, t).AssignedSlug; s1 != "work" || s2 != "work-2" {
		t.Errorf("after the restart the slugs are %q and %q, want work and work-2 back", s1, s2)
	}
	check(srv, "work", one, "You are on page one")
	check(srv, "work-2", two, "You are on page three")
}
