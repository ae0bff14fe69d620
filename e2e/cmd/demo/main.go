// Command demo is the main-job demonstration behind scripts/demo: it builds
// monkbrowse and the extension when needed, opens a small task-list page in
// Debian's Chromium with the extension loaded, shares the tab through the
// extension's real popup, then runs a short MCP session against the real
// monkbrowse binary over stdio — list tabs, snapshot, type, click, snapshot,
// screenshot — and prints every call with its result.
//
// Usage (from the repository root):
//
//	scripts/demo [--headed] [--out DIR]
//
// MONKBROWSE_DEMO_HEADED=1 is the same as --headed (needs a display).
package main

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/monkbrowse/monkbrowse/e2e/harness"
)

//go:embed demo.html
var pages embed.FS

func main() {
	if err := run(); err != nil {
		fmt.Fprintf(os.Stderr, "\ndemo failed: %v\n", err)
		os.Exit(1)
	}
}

func run() error {
	headed := flag.Bool("headed", os.Getenv("MONKBROWSE_DEMO_HEADED") == "1", "show the browser window (needs a display)")
	outDir := flag.String("out", "", "where to write the screenshot and logs (default bin/demo in the repository)")
	flag.Parse()

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	wd := harness.StartWatchdog(6*time.Minute, nil)
	defer wd.Stop()

	root, err := harness.RepoRoot()
	if err != nil {
		return err
	}
	if *outDir == "" {
		*outDir = filepath.Join(root, "bin", "demo")
	}
	if err := os.MkdirAll(*outDir, 0o755); err != nil {
		return err
	}
	if *headed && os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" {
		return errors.New("--headed needs a display (DISPLAY or WAYLAND_DISPLAY); run without --headed for headless Chromium")
	}

	step("building monkbrowse (go build ./server/cmd/monkbrowse → bin/monkbrowse)")
	bin, err := harness.BuildServer(ctx, root, filepath.Join(root, "bin"), false)
	if err != nil {
		return err
	}
	ext, err := harness.FindExtension(root)
	if err != nil {
		step("building the extension (%v)", err)
		if err := buildExtension(ctx, root); err != nil {
			return err
		}
		if ext, err = harness.FindExtension(root); err != nil {
			return err
		}
	}
	chromium, err := harness.ChromiumPath()
	if err != nil {
		return err
	}

	sub, _ := fs.Sub(pages, ".")
	site := harness.NewFixtures(sub)
	defer site.Close()
	port, err := harness.FreePort()
	if err != nil {
		return err
	}
	controlPort, err := harness.FreePort()
	if err != nil {
		return err
	}
	home, err := os.MkdirTemp("", "monkbrowse-demo-home-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(home)
	logPath := filepath.Join(*outDir, "monkbrowse.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		return err
	}
	defer logFile.Close()

	mode := "headless"
	if *headed {
		mode = "headed"
	}
	step("starting monkbrowse over stdio (extension port 127.0.0.1:%d, control port %d)", port, controlPort)
	srv, err := harness.StartServer(ctx, harness.ServerConfig{Bin: bin, Port: port, ControlPort: controlPort, Home: home, Name: "monkbrowse", LogLevel: "info", Log: logFile})
	if err != nil {
		return err
	}
	defer srv.Close()

	step("starting %s (%s) with the extension %s", chromium, mode, ext.ID)
	browser, err := harness.Launch(ctx, harness.BrowserConfig{ExecPath: chromium, Monkbrowse: bin, Extension: ext, Headed: *headed, Name: "chromium"})
	if err != nil {
		return err
	}
	defer browser.Close()
	if err := browser.SetSettings(ctx, port, "demo"); err != nil {
		return err
	}
	pageURL := site.URL("/demo.html")
	tab, err := browser.NewTab(ctx, pageURL)
	if err != nil {
		return err
	}
	popup, err := browser.OpenPopup(ctx)
	if err != nil {
		return err
	}
	cctx, ccancel := context.WithTimeout(ctx, 30*time.Second)
	_, err = popup.WaitConnected(cctx, port)
	ccancel()
	if err != nil {
		return fmt.Errorf("%w\nmonkbrowse log: %s", err, logPath)
	}
	chromeID, err := popup.ChromeTabID(ctx, tab)
	if err != nil {
		return err
	}
	slot, err := popup.Share(ctx, chromeID)
	if err != nil {
		return err
	}
	// The popup was only needed to share the tab, as a person would.
	popup.Close()
	step("opened %s and switched its Share toggle on in the extension's popup: it is tab %d", pageURL, slot)

	fmt.Println()
	fmt.Println("MCP session (the AI app's side), through the real monkbrowse binary over stdio:")
	n := 0
	call := func(tool string, args map[string]any) (harness.ToolResult, error) {
		n++
		argText := "{}"
		if len(args) > 0 {
			b, _ := json.Marshal(args)
			argText = string(b)
		}
		fmt.Printf("\n── %d. %s %s\n", n, tool, argText)
		res, err := srv.Call(ctx, tool, args)
		if err != nil {
			return res, err
		}
		fmt.Println(indent(res.Text, "   "))
		for _, img := range res.Images {
			fmt.Printf("   [image %s, %d bytes]\n", img.MIMEType, len(img.Data))
		}
		if res.IsError {
			return res, fmt.Errorf("%s failed: %s", tool, res.Text)
		}
		return res, nil
	}

	if _, err := call("browser_list_tabs", nil); err != nil {
		return err
	}
	snap, err := call("browser_snapshot", map[string]any{"tab": slot})
	if err != nil {
		return err
	}
	field, err := harness.FindRef(snap.Text, "textbox", "New task")
	if err != nil {
		return err
	}
	button, err := harness.FindRef(snap.Text, "button", "Add task")
	if err != nil {
		return err
	}
	if _, err := call("browser_type", map[string]any{"element": "New task field", "ref": field, "text": "Buy oat milk", "tab": slot}); err != nil {
		return err
	}
	if _, err := call("browser_click", map[string]any{"element": "Add task button", "ref": button, "tab": slot}); err != nil {
		return err
	}
	if _, err := call("browser_snapshot", map[string]any{"tab": slot}); err != nil {
		return err
	}
	shot, err := call("browser_screenshot", map[string]any{"tab": slot})
	if err != nil {
		return err
	}
	shotPath := filepath.Join(*outDir, "screenshot.png")
	if len(shot.Images) == 0 {
		return errors.New("browser_screenshot returned no image")
	}
	if err := os.WriteFile(shotPath, shot.Images[0].Data, 0o644); err != nil {
		return err
	}

	// Independent check, straight from the page through CDP.
	items, err := harness.Eval[[]string](ctx, tab, "[...document.querySelectorAll('#tasks li')].map(li => li.textContent)")
	if err != nil {
		return err
	}
	fmt.Println()
	fmt.Printf("Checked in the page itself (DevTools Protocol, not monkbrowse): the task list reads %q.\n", items)
	if len(items) != 2 || items[1] != "Buy oat milk" {
		return fmt.Errorf("the page does not show the new task: %q", items)
	}
	fmt.Printf("Screenshot saved: %s\n", shotPath)
	fmt.Printf("monkbrowse's log: %s\n", logPath)
	return nil
}

func step(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "demo: "+format+"\n", args...)
}

func indent(s, pre string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = pre + l
	}
	return strings.Join(lines, "\n")
}

// buildExtension runs npm ci (when node_modules is missing) and npm run
// build in extension/.
func buildExtension(ctx context.Context, root string) error {
	dir := filepath.Join(root, "extension")
	runNpm := func(args ...string) error {
		cmd := exec.CommandContext(ctx, "npm", args...)
		cmd.Dir = dir
		var out strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("npm %s in extension/: %w\n%s", strings.Join(args, " "), err, harness.Tail(out.String(), 30))
		}
		return nil
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules")); err != nil {
		if err := runNpm("ci", "--no-audit", "--no-fund", "--loglevel=error"); err != nil {
			return err
		}
	}
	return runNpm("run", "build")
}
