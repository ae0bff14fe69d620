package e2e

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/monkbrowse/monkbrowse/e2e/harness"
)

// TestFillForm fills text, password, checkbox, radio, select and text area
// in one call and reads every value back through CDP; a bad field stops the
// call, names the field and leaves the fields before it filled.
func TestFillForm(t *testing.T) {
	s := shared(t)
	ctx := testContext(t, testTimeout)
	tab, slot := s.openShared(ctx, t, "/form.html")
	snap := s.snapshot(ctx, t, slot)
	email := ref(t, snap, "textbox", "Email")
	pw, _ := harness.FindName(snap, "Password")
	remember := ref(t, snap, "checkbox", "Remember me")
	pro := ref(t, snap, "radio", "Pro")
	country := ref(t, snap, "combobox", "Country")
	bio := ref(t, snap, "textbox", "Bio")
	js[bool](ctx, t, tab, "(document.getElementById('email').value = 'old@example.com', true)")

	out := s.ok(ctx, t, "browser_fill_form", map[string]any{"tab": slot, "fields": []map[string]any{
		{"element": "Email", "ref": email, "value": "grace@example.com"},
		{"element": "Password", "ref": pw.Ref, "value": "hunter2"},
		{"element": "Remember me", "ref": remember, "value": "true"},
		{"element": "Pro", "ref": pro, "value": "true"},
		{"element": "Country", "ref": country, "value": "Japan"},
		{"element": "Bio", "ref": bio, "value": "Line one\nLine two"},
	}})
	if !strings.Contains(out, "Filled 6 field(s)") {
		t.Errorf("result line: %s", harness.Clip(out, 400))
	}
	for expr, want := range map[string]string{
		"document.getElementById('email').value":               "grace@example.com",
		"document.getElementById('email-mirror').value":        "grace@example.com",
		"document.getElementById('password').value":            "hunter2",
		"String(document.getElementById('remember').checked)":  "true",
		"String(document.getElementById('plan-pro').checked)":  "true",
		"String(document.getElementById('plan-free').checked)": "false",
		"document.getElementById('country').value":             "jp",
		"document.getElementById('bio').value":                 "Line one\nLine two",
	} {
		if got := js[string](ctx, t, tab, expr); got != want {
			t.Errorf("%s = %q, want %q", expr, got, want)
		}
	}
	// One diff after all the fields: the snapshot part shows the new states.
	if l, ok := harness.Find(out, "checkbox", "Remember me"); !ok || !l.Has("checked") {
		t.Errorf("the changes after browser_fill_form do not show the checked checkbox:\n%s", harness.Clip(out, 3000))
	}

	// Unchecking, and a failing second field: the first is filled, the rest is not.
	msg := s.fails(ctx, t, "browser_fill_form", map[string]any{"tab": slot, "fields": []map[string]any{
		{"element": "Remember me", "ref": remember, "value": "false"},
		{"element": "Country", "ref": country, "value": "Atlantis"},
		{"element": "Email", "ref": email, "value": "never@example.com"},
	}})
	for _, want := range []string{"field 2 of 3", `"Country"`, "Atlantis", "the 1 field(s) before it were filled"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q lacks %q", msg, want)
		}
	}
	if js[bool](ctx, t, tab, "document.getElementById('remember').checked") {
		t.Error("the checkbox before the failing field was not unchecked")
	}
	if v := js[string](ctx, t, tab, "document.getElementById('email').value"); v != "grace@example.com" {
		t.Errorf("a field after the failing one was filled: %q", v)
	}
	msg = s.fails(ctx, t, "browser_fill_form", map[string]any{"tab": slot, "fields": []map[string]any{{"element": "Pro", "ref": pro, "value": "maybe"}}})
	if !strings.Contains(msg, "true or false") {
		t.Errorf("a checkbox value that is not a boolean: %s", msg)
	}
}

// TestClickDragXY clicks and drags on a canvas at viewport coordinates; the
// page records where its listeners saw the pointer.
func TestClickDragXY(t *testing.T) {
	s := shared(t)
	ctx := testContext(t, testTimeout)
	tab, slot := s.openShared(ctx, t, "/canvas.html")
	// The canvas sits at (100, 80) of the viewport.
	s.ok(ctx, t, "browser_click_xy", map[string]any{"tab": slot, "x": 150, "y": 130})
	if got := js[string](ctx, t, tab, "JSON.stringify(window.clicks)"); got != `[{"x":50,"y":50,"trusted":false,"button":0}]` {
		t.Errorf("canvas clicks = %s, want one at (50, 50)", got)
	}
	s.ok(ctx, t, "browser_click_xy", map[string]any{"tab": slot, "x": 160, "y": 140, "button": "right"})
	if got := js[string](ctx, t, tab, "JSON.stringify(window.clicks[1])"); got != `{"context":true}` {
		t.Errorf("a right click gave %s, want a contextmenu event", got)
	}
	s.ok(ctx, t, "browser_drag_xy", map[string]any{"tab": slot, "startX": 120, "startY": 100, "endX": 300, "endY": 250})
	// The clicks before were strokes without moves too; the drag is the last one.
	if got := js[string](ctx, t, tab, "JSON.stringify(window.strokes.map(s => [s.from, s.to]).at(-1))"); got != `[[20,20],[200,170]]` {
		t.Errorf("last stroke = %s, want one from (20,20) to (200,170)", got)
	}
	if n := js[int](ctx, t, tab, "window.strokes.at(-1).moves"); n < 5 {
		t.Errorf("the drag moved the pointer %d times with the button down, want several", n)
	}
	msg := s.fails(ctx, t, "browser_click_xy", map[string]any{"tab": slot, "x": 5000, "y": 10})
	if !strings.Contains(msg, "outside the visible area") {
		t.Errorf("a click outside the viewport: %s", msg)
	}
}

func decodePNG(t testing.TB, res harness.ToolResult) image.Image {
	t.Helper()
	if res.IsError || len(res.Images) != 1 {
		t.Fatalf("want one image, got %d (%s)", len(res.Images), res.Text)
	}
	img, err := png.Decode(bytes.NewReader(res.Images[0].Data))
	if err != nil {
		t.Fatalf("not a PNG: %v", err)
	}
	return img
}

// TestScreenshotElementAndFullPage: ref gives the element's box exactly;
// fullPage without the debugger stitches the whole page (its bottom is
// there) and refuses a page taller than 10 screens.
func TestScreenshotElementAndFullPage(t *testing.T) {
	s := shared(t)
	ctx := testContext(t, testTimeout)
	tab, slot := s.openShared(ctx, t, "/canvas.html")
	snap := s.snapshot(ctx, t, slot)
	btn := ref(t, snap, "button", "Trusted only")
	dpr := js[float64](ctx, t, tab, "devicePixelRatio")
	img := decodePNG(t, s.call(ctx, t, "browser_screenshot", map[string]any{"tab": slot, "ref": btn, "element": "Trusted only button", "format": "png", "fullSize": true}))
	if b := img.Bounds(); b.Dx() != int(200*dpr) || b.Dy() != int(60*dpr) {
		t.Errorf("the element screenshot is %dx%d, want the button's 200x60 (dpr %g)", b.Dx(), b.Dy(), dpr)
	}

	// The page is 2,000 CSS pixels tall: a red-to-blue strip from y=500 to 2000 at x<10.
	height := js[int](ctx, t, tab, "document.documentElement.scrollHeight")
	vh := js[int](ctx, t, tab, "innerHeight")
	if height <= vh {
		t.Fatalf("the fixture is not taller than the viewport (%d <= %d)", height, vh)
	}
	res := s.call(ctx, t, "browser_screenshot", map[string]any{"tab": slot, "fullPage": true, "format": "png", "fullSize": true})
	img = decodePNG(t, res)
	if b := img.Bounds(); b.Dy() != int(float64(height)*dpr) {
		t.Errorf("the full-page screenshot is %d pixels tall, want the page's %d", b.Dy(), height)
	}
	r, _, bl, _ := img.At(int(5*dpr), int(1990*dpr)).RGBA()
	if bl>>8 < 200 || r>>8 > 60 {
		t.Errorf("the bottom of the stitched page is rgb(%d,…,%d), want the strip's blue end", r>>8, bl>>8)
	}
	r, _, bl, _ = img.At(int(5*dpr), int(510*dpr)).RGBA()
	if r>>8 < 200 || bl>>8 > 60 {
		t.Errorf("the strip's top in the stitched page is rgb(%d,…,%d), want red", r>>8, bl>>8)
	}
	if !strings.Contains(res.Text, "Stitched from") {
		t.Errorf("caption: %s", res.Text)
	}
	if y := js[float64](ctx, t, tab, "scrollY"); y != 0 {
		t.Errorf("the page was left scrolled to %g", y)
	}
	js[bool](ctx, t, tab, "(document.getElementById('tall').style.height = (innerHeight * 12) + 'px', true)")
	msg := s.fails(ctx, t, "browser_screenshot", map[string]any{"tab": slot, "fullPage": true})
	if !strings.Contains(msg, "at most 10") || !strings.Contains(msg, "debugger mode") {
		t.Errorf("a page of 12+ screens: %s", msg)
	}
}

var reqLine = regexp.MustCompile(`(?m)^#(\d+) `)

func lastRequestNumber(t testing.TB, out string) int {
	t.Helper()
	m := reqLine.FindAllStringSubmatch(out, -1)
	if len(m) == 0 {
		t.Fatalf("no numbered requests in:\n%s", out)
	}
	n, _ := strconv.Atoi(m[len(m)-1][1])
	return n
}

// TestNetworkRequests lists a shared tab's requests (document, fetches, a
// 404, a refused connection) with statuses and sizes, only newer ones with
// since, filtered ones with filter; a new page starts a new list; requests a
// tab made while it was not shared are never recorded.
func TestNetworkRequests(t *testing.T) {
	s := shared(t)
	ctx := testContext(t, testTimeout)
	// Opened unshared: its first requests happen before sharing.
	tab := s.openTab(ctx, t, "/network.html")
	waitJS(ctx, t, tab, "document.getElementById('loaded').textContent === '3'")
	slot := s.share(ctx, t, tab)
	out := s.ok(ctx, t, "browser_network_requests", map[string]any{"tab": slot})
	if strings.Contains(out, "/api/first") {
		t.Errorf("requests made before the tab was shared are listed:\n%s", out)
	}
	s.ok(ctx, t, "browser_reload", map[string]any{"tab": slot})
	waitJS(ctx, t, tab, "document.getElementById('loaded').textContent === '3'")
	out = s.ok(ctx, t, "browser_network_requests", map[string]any{"tab": slot})
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`#\d+ GET http://127\.0\.0\.1:\d+/network\.html\S* → 200 OK, main_frame, text/html`),
		regexp.MustCompile(`#\d+ GET http://127\.0\.0\.1:\d+/api/first → 200 OK, xmlhttprequest, application/json, 40 B`),
		regexp.MustCompile(`#\d+ GET http://127\.0\.0\.1:\d+/api/missing\?status=404 → 404 Not Found`),
		// Chrome refuses port 1 itself: a request failed before it was sent.
		regexp.MustCompile(`#\d+ GET http://127\.0\.0\.1:1/refused → failed: net::ERR_UNSAFE_PORT`),
	} {
		if !want.MatchString(out) {
			t.Errorf("the listing lacks %s:\n%s", want, out)
		}
	}
	last := lastRequestNumber(t, out)
	snap := s.snapshot(ctx, t, slot)
	s.ok(ctx, t, "browser_click", map[string]any{"tab": slot, "element": "Fetch more", "ref": ref(t, snap, "button", "Fetch more")})
	waitJS(ctx, t, tab, "document.getElementById('loaded').textContent === '4'")
	out = s.ok(ctx, t, "browser_network_requests", map[string]any{"tab": slot, "since": last})
	if !strings.Contains(out, "/api/more") || strings.Contains(out, "/api/first") {
		t.Errorf("since=%d should list only the newer request:\n%s", last, out)
	}
	out = s.ok(ctx, t, "browser_network_requests", map[string]any{"tab": slot, "filter": "MISSING"})
	if !strings.Contains(out, "/api/missing") || strings.Contains(out, "/api/first") || !strings.Contains(out, "1 request(s)") {
		t.Errorf("filter MISSING:\n%s", out)
	}
	// A new page, a new list.
	s.ok(ctx, t, "browser_navigate", map[string]any{"tab": slot, "url": s.fx.URL("/form.html")})
	out = s.ok(ctx, t, "browser_network_requests", map[string]any{"tab": slot})
	if strings.Contains(out, "/api/") || !strings.Contains(out, "/form.html") {
		t.Errorf("after navigating, the old page's requests are still listed or the new one's are not:\n%s", out)
	}
}

// TestDownloads: a download started by a click in a shared tab is listed with
// its path (the file is there, whole) once the wait says it finished; a
// download of a tab that is not shared is never listed.
func TestDownloads(t *testing.T) {
	s := shared(t)
	ctx := testContext(t, testTimeout)
	dir := mkdir(t, s.p, "downloads")
	if err := s.browser.AllowDownloads(ctx, dir); err != nil {
		t.Fatal(err)
	}
	// A download in a tab that is not shared.
	other := s.openTab(ctx, t, "/form.html")
	js[bool](ctx, t, other, "(location.href = '/dl/secret-unshared.bin', true)")
	waitFile(ctx, t, filepath.Join(dir, "secret-unshared.bin"))

	tab, slot := s.openShared(ctx, t, "/network.html")
	_ = tab
	snap := s.snapshot(ctx, t, slot)
	s.ok(ctx, t, "browser_click", map[string]any{"tab": slot, "element": "Download report", "ref": ref(t, snap, "link", "Download report")})
	out := s.ok(ctx, t, "browser_downloads", map[string]any{"wait": map[string]any{"urlContains": "report-e2e", "timeoutMs": 20000}})
	path := filepath.Join(dir, "report-e2e.csv")
	if !strings.Contains(out, "finished") || !strings.Contains(out, path) || !strings.Contains(out, "complete, 4.0 kB") {
		t.Errorf("browser_downloads after the click:\n%s", out)
	}
	if fi, err := os.Stat(path); err != nil || fi.Size() != harness.DownloadSize {
		t.Errorf("the downloaded file: %v (size %v)", err, fi)
	}
	if strings.Contains(out, "secret-unshared") {
		t.Errorf("a download of an unshared tab is listed:\n%s", out)
	}
	out = s.ok(ctx, t, "browser_downloads", nil)
	if strings.Contains(out, "secret-unshared") || !strings.Contains(out, "report-e2e.csv") {
		t.Errorf("browser_downloads without wait:\n%s", out)
	}
	start := time.Now()
	out = s.ok(ctx, t, "browser_downloads", map[string]any{"wait": map[string]any{"urlContains": "never-started", "timeoutMs": 1500}})
	if d := time.Since(start); d < 1400*time.Millisecond || !strings.Contains(out, "No download matching") {
		t.Errorf("a wait for a download that never starts returned after %s: %s", d, out)
	}
}

func waitFile(ctx context.Context, t testing.TB, path string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if fi, err := os.Stat(path); err == nil && fi.Size() == harness.DownloadSize {
			return
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			t.Fatalf("%s was not downloaded", path)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
