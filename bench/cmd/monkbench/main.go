// Command monkbench runs monkbrowse's side-by-side benchmark and writes
// BENCHMARKS.md. scripts/bench is the way to run it:
//
//	monkbench run    [flags]   run the servers on the pages, write results.json
//	monkbench report [flags]   read results.json and the benchstat output, write BENCHMARKS.md
//	monkbench profile [flags]  profile one monkbrowse step in the page's renderer
//	monkbench flow   [flags]   a six-step form by single calls and by browser_run (issue 42), write flow.json and flow.md
//	monkbench apps   [flags]   run the apps corpus (e2e/libpages/apps.json) on every server, write apps.json and apps.md
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/monkbrowse/monkbrowse/bench/internal/report"
	"github.com/monkbrowse/monkbrowse/bench/internal/run"
	"github.com/monkbrowse/monkbrowse/bench/internal/servers"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	var err error
	switch os.Args[1] {
	case "run":
		err = cmdRun(os.Args[2:])
	case "report":
		err = cmdReport(os.Args[2:])
	case "profile":
		err = cmdProfile(os.Args[2:])
	case "apps":
		err = cmdApps(os.Args[2:])
	case "flow":
		err = cmdFlow(os.Args[2:])
	default:
		usage()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "monkbench:", err)
		os.Exit(1)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: monkbench run|report|profile|apps|flow [flags] (see scripts/bench)")
	os.Exit(2)
}

func repoRoot() string {
	wd, _ := os.Getwd()
	for d := wd; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.work")); err == nil {
			return d
		}
		if filepath.Dir(d) == d {
			return wd
		}
	}
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// runFlags are the flags run and profile share.
type runFlags struct {
	out, chromium, bin, ext, npm *string
}

func addRunFlags(fs *flag.FlagSet, root string) runFlags {
	return runFlags{
		out:      fs.String("out", filepath.Join(root, "bench-results"), "directory for results.json and raw responses"),
		chromium: fs.String("chromium", "/usr/bin/chromium", "the Chromium binary all three use"),
		bin:      fs.String("monkbrowse", filepath.Join(root, "bench-results", "bin", "monkbrowse"), "the monkbrowse binary"),
		ext:      fs.String("extension", filepath.Join(root, "bench-results", "extension"), "the built extension (scripts/bench copies extension/.output/chrome-mv3 here)"),
		npm:      fs.String("npm", filepath.Join(root, "bench", "npm"), "the npm package with the pinned servers"),
	}
}

func (f runFlags) config(root string) (run.Config, error) {
	if err := os.MkdirAll(*f.out, 0o755); err != nil {
		return run.Config{}, err
	}
	outAbs, _ := filepath.Abs(*f.out)
	extID, err := os.ReadFile(filepath.Join(root, "extension", "EXTENSION_ID"))
	if err != nil {
		return run.Config{}, fmt.Errorf("the extension id: %w", err)
	}
	return run.Config{
		Root: root,
		Paths: servers.Paths{
			Chromium: *f.chromium, NPM: *f.npm, Monkbrowse: *f.bin, OutDir: outAbs,
		},
		ExtDir: *f.ext, ExtID: strings.TrimSpace(string(extID)),
		PlaywrightVersion: npmVersion(*f.npm, "@playwright/mcp"),
		DevtoolsVersion:   npmVersion(*f.npm, "chrome-devtools-mcp"),
		OutDir:            outAbs, Log: os.Stderr,
	}, nil
}

func cmdProfile(args []string) error {
	root := repoRoot()
	fs := flag.NewFlagSet("profile", flag.ExitOnError)
	rf := addRunFlags(fs, root)
	page := fs.String("page", "large", "page: signin, large or app")
	step := fs.String("step", "snapshot", "step: navigate, snapshot, click, type or screenshot")
	n := fs.Int("n", 10, "runs")
	_ = fs.Parse(args)
	cfg, err := rf.config(root)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return run.Profile(ctx, cfg, *page, *step, *n, os.Stdout)
}

func cmdRun(args []string) error {
	root := repoRoot()
	fs := flag.NewFlagSet("run", flag.ExitOnError)
	rf := addRunFlags(fs, root)
	reps := fs.Int("reps", 20, "timed repetitions of the task per page and server")
	warmup := fs.Int("warmup", 2, "untimed repetitions first")
	startups := fs.Int("startup-runs", 5, "fresh launches per server to time start-up")
	shotReps := fs.Int("shot-reps", 5, "repetitions of the screenshot formats round (0: skip it)")
	srvList := fs.String("servers", "monkbrowse,playwright,chrome-devtools", "servers to run")
	pageList := fs.String("pages", "", "pages to run (default all)")
	oldExt := fs.Bool("old-extension", false, "the extension may be an older build without the options page's JavaScript switch (bench/compare)")
	_ = fs.Parse(args)
	cfg, err := rf.config(root)
	if err != nil {
		return err
	}
	cfg.Servers, cfg.Pages = splitList(*srvList), splitList(*pageList)
	cfg.Reps, cfg.Warmup, cfg.StartupRuns, cfg.ShotReps = *reps, *warmup, *startups, *shotReps
	cfg.OldExtension = *oldExt
	if cfg.Reps < 1 {
		return errors.New("-reps must be at least 1")
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	res, err := run.Run(ctx, cfg)
	if err != nil {
		return err
	}
	path := filepath.Join(cfg.OutDir, "results.json")
	if err := res.Save(path); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "monkbench: wrote %s (%.0f s)\n", path, res.Duration)
	return nil
}

// npmVersion reads the installed version of a package under dir.
func npmVersion(dir, pkg string) string {
	b, err := os.ReadFile(filepath.Join(dir, "node_modules", pkg, "package.json"))
	if err != nil {
		return "?"
	}
	var p struct {
		Version string `json:"version"`
	}
	_ = json.Unmarshal(b, &p)
	return p.Version
}

func cmdReport(args []string) error {
	root := repoRoot()
	fs := flag.NewFlagSet("report", flag.ExitOnError)
	in := fs.String("results", filepath.Join(root, "bench-results", "results.json"), "results of monkbench run")
	bstat := fs.String("benchstat", filepath.Join(root, "bench-results", "benchstat.txt"), "benchstat output of the Go micro-benchmarks")
	machine := fs.String("machine", filepath.Join(root, "bench-results", "machine.txt"), "machine notes (key: value lines) written by scripts/bench")
	profiles := fs.String("profiles", filepath.Join(root, "bench-results"), "directory with profile-large-*.txt and serverbench-pprof.txt")
	notes := fs.String("notes", filepath.Join(root, "bench", "NOTES.md"), "hand-written analysis included in the report")
	out := fs.String("out", filepath.Join(root, "BENCHMARKS.md"), "the report to write")
	appsIn := fs.String("apps", filepath.Join(root, "bench-results", "apps.json"), "results of monkbench apps (left out when missing)")
	flowIn := fs.String("flow", filepath.Join(root, "bench-results", "flow.md"), "the table of monkbench flow (left out when missing)")
	_ = fs.Parse(args)
	res, err := run.Load(*in)
	if err != nil {
		return err
	}
	bs, _ := os.ReadFile(*bstat)
	mach, _ := os.ReadFile(*machine)
	nt, _ := os.ReadFile(*notes)
	var prof []report.Profile
	for _, f := range []string{"profile-large-snapshot.txt", "profile-large-click.txt", "serverbench-pprof.txt"} {
		if b, err := os.ReadFile(filepath.Join(*profiles, f)); err == nil {
			prof = append(prof, report.Profile{Name: f, Text: string(b)})
		}
	}
	md := report.Write(res, string(bs), report.ParseMachine(string(mach)), string(nt), prof...)
	// The apps corpus (monkbench apps), when it was run, before the per-step tables.
	if apps, err := run.LoadApps(*appsIn); err == nil {
		md = strings.Replace(md, "## Per step\n\n", report.AppsTable(apps)+"\n## Per step\n\n", 1)
	}
	// The six-step form by single calls and by browser_run (monkbench flow), when it was run.
	if flow, err := os.ReadFile(*flowIn); err == nil {
		md = strings.Replace(md, "## Per step\n\n", "## A six-step form: single calls vs browser_run (issue 42)\n\n"+
			"e2e/testdata/rec-form.html: full name, email, password, plan, terms, submit, after the navigation (counted). "+
			"Single calls act on refs from the page the AI was shown; browser_run names the targets by role and name. "+
			"Medians; done = the form's own submit record. `monkbench flow`.\n\n"+string(flow)+"\n## Per step\n\n", 1)
	}
	if err := os.WriteFile(*out, []byte(md), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "monkbench: wrote %s\n", *out)
	return nil
}

func cmdApps(args []string) error {
	root := repoRoot()
	fs := flag.NewFlagSet("apps", flag.ExitOnError)
	rf := addRunFlags(fs, root)
	srvList := fs.String("servers", "monkbrowse,monkbrowse-debugger,playwright,chrome-devtools", "servers to run (monkbrowse-debugger: monkbrowse with the debugger switch on)")
	_ = fs.Parse(args)
	cfg, err := rf.config(root)
	if err != nil {
		return err
	}
	cfg.Servers = splitList(*srvList)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	res, err := run.RunApps(ctx, cfg)
	if err != nil {
		return err
	}
	path := filepath.Join(cfg.OutDir, "apps.json")
	if err := res.Save(path); err != nil {
		return err
	}
	md := filepath.Join(cfg.OutDir, "apps.md")
	if err := os.WriteFile(md, []byte(report.AppsTable(res)), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "monkbench: wrote %s and %s (%.0f s)\n", path, md, res.Duration)
	return nil
}

func cmdFlow(args []string) error {
	root := repoRoot()
	fs := flag.NewFlagSet("flow", flag.ExitOnError)
	rf := addRunFlags(fs, root)
	srvList := fs.String("servers", "monkbrowse,playwright", "servers to run")
	reps := fs.Int("reps", 10, "timed repetitions per server and mode")
	warmup := fs.Int("warmup", 1, "untimed repetitions first")
	_ = fs.Parse(args)
	cfg, err := rf.config(root)
	if err != nil {
		return err
	}
	cfg.Servers = splitList(*srvList)
	cfg.Reps, cfg.Warmup = max(*reps, 1), max(*warmup, 0)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	samples, err := run.RunFlow(ctx, cfg)
	if err != nil {
		return err
	}
	if err := run.SaveFlow(cfg.OutDir, samples); err != nil {
		return err
	}
	fmt.Print(run.FlowTable(samples))
	return nil
}
