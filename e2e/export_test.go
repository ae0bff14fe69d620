package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// playwrightConfig runs the exported test in Debian's Chromium, headless,
// with no browser download.
const playwrightConfig = `import { defineConfig } from "@playwright/test";
export default defineConfig({
  testDir: ".",
  outputDir: "test-results",
  timeout: 30000,
  workers: 1,
  reporter: "line",
  expect: { timeout: 5000 },
  use: { headless: true, actionTimeout: 5000, launchOptions: { executablePath: process.env.MONKBROWSE_CHROMIUM || "/usr/bin/chromium", args: ["--no-sandbox"] } },
});
`

// TestExportRunsInPlaywright: the fixture flow's recording, exported through
// browser_recordings, runs green with @playwright/test (pinned in
// libpages/package.json) against the fixture in Debian's Chromium, the
// secret read from the environment; the same test against the page whose
// button is named otherwise fails, so a wrong export cannot pass.
func TestExportRunsInPlaywright(t *testing.T) {
	s := shared(t)
	ctx := testContext(t, 3*testTimeout)
	lib := filepath.Join(s.p.root, "e2e", "libpages")
	if _, err := os.Stat(filepath.Join(lib, "node_modules", "@playwright", "test")); err != nil {
		missing(t, err)
	}
	_, slot := s.openShared(ctx, t, "/rec-form.html")
	rec := signupRecording(s.fx.Origin())
	rec["name"] = "Create account (export)"
	steps := rec["steps"].([]any)
	rec["steps"] = append([]any{map[string]any{"action": "navigate", "value": s.fx.URL("/rec-form.html") + "{{query}}"}}, steps...)
	rec["params"] = append(rec["params"].([]any), map[string]any{"name": "query", "example": ""})
	seedRecordings(ctx, t, s, rec)

	out := s.ok(ctx, t, "browser_recordings", map[string]any{"tab": slot, "name": "Create account (export)", "format": "playwright"})
	start := strings.Index(out, "```ts\n")
	end := strings.LastIndex(out, "```")
	if start < 0 || end <= start {
		t.Fatalf("no TypeScript block in:\n%s", out)
	}
	src := out[start+len("```ts\n") : end]
	if strings.Contains(src, recSecret) {
		t.Fatalf("the export carries the secret:\n%s", src)
	}

	// The test files live under libpages so that @playwright/test resolves.
	dir, err := os.MkdirTemp(lib, ".pwexport-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("playwright.config.ts", playwrightConfig)
	run := func(query string) (string, error) {
		// The query parameter is a variable at the top of the export: set
		// it as a developer would edit it.
		body := strings.Replace(src, `const query = "";`, `const query = "`+query+`";`, 1)
		if body == src && query != "" {
			t.Fatalf("the export has no `const query` to edit:\n%s", src)
		}
		write("flow.spec.ts", body)
		c, cancel := context.WithTimeout(ctx, 2*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(c, "npx", "--no-install", "playwright", "test", "--config", filepath.Join(dir, "playwright.config.ts"))
		cmd.Dir = lib
		cmd.Env = append(os.Environ(), "PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1", "PASSWORD=s3cret!", "CI=1")
		b, err := cmd.CombinedOutput()
		return string(b), err
	}
	if log, err := run(""); err != nil {
		t.Fatalf("the exported test failed against the fixture: %v\n%s\nexport:\n%s", err, log, src)
	}
	if log, err := run("?v=gone"); err == nil {
		t.Fatalf("the exported test passed against a page without its button:\n%s", log)
	} else if !strings.Contains(log, "Create account") {
		t.Errorf("the failure does not name the missing button:\n%s", log)
	}
}
