package e2e

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/monkbrowse/monkbrowse/e2e/harness"
)

// Environment:
//
//	MONKBROWSE_E2E=1          missing prerequisites fail the tests instead of skipping them
//	MONKBROWSE_CHROMIUM=path  the browser (default /usr/bin/chromium)
//	MONKBROWSE_E2E_VERBOSE=1  mirror monkbrowse's and Chromium's logs to stderr
//	MONKBROWSE_E2E_RACE=1     build the monkbrowse binary with -race
//	MONKBROWSE_E2E_BIN=path   run this monkbrowse binary instead of building one (scripts/test: the release's)
//	MONKBROWSE_E2E_TIMEOUT    overall watchdog, a Go duration (default 12m)
var (
	strict  = os.Getenv("MONKBROWSE_E2E") == "1"
	verbose = os.Getenv("MONKBROWSE_E2E_VERBOSE") == "1"
)

// testTimeout bounds every single test (its context).
const testTimeout = 2 * time.Minute

func TestMain(m *testing.M) {
	flag.Parse()
	limit := 12 * time.Minute
	if v := os.Getenv("MONKBROWSE_E2E_TIMEOUT"); v != "" {
		if d, err := time.ParseDuration(v); err == nil {
			limit = d
		}
	}
	wd := harness.StartWatchdog(limit, dumpServerLogs)
	code := m.Run()
	closeShared()
	if p := prereq; p != nil && p.tmp != "" {
		os.RemoveAll(p.tmp)
	}
	wd.Stop()
	os.Exit(code)
}

// prerequisites: Chromium, the built extension and the monkbrowse binary.
type prerequisites struct {
	root, chromium, bin, tmp string
	ext                      harness.Extension
	err                      error
}

var (
	prereqOnce sync.Once
	prereq     *prerequisites
	binOnce    sync.Once
	binErr     error
)

// needBrowser returns the prerequisites for a browser-only test (Chromium
// and the built extension) or skips the test (fails it under
// MONKBROWSE_E2E=1) with the reason.
func needBrowser(t testing.TB) *prerequisites {
	t.Helper()
	prereqOnce.Do(func() {
		p := &prerequisites{}
		prereq = p
		var err error
		if p.root, err = harness.RepoRoot(); err != nil {
			p.err = err
			return
		}
		if p.chromium, err = harness.ChromiumPath(); err != nil {
			p.err = err
			return
		}
		if p.tmp, err = os.MkdirTemp("", "monkbrowse-e2e-"); err != nil {
			p.err = err
			return
		}
		// A release given (scripts/test): its extension zip, as a person
		// installs it unpacked.
		if dir, ver := os.Getenv("MONKBROWSE_RELEASE_DIR"), os.Getenv("MONKBROWSE_RELEASE_VERSION"); dir != "" && ver != "" {
			p.ext, p.err = harness.ReleasedExtension(p.root, filepath.Join(dir, "monkbrowse-extension-"+ver+".zip"), p.tmp)
			return
		}
		if p.ext, err = harness.FindExtension(p.root); err != nil {
			p.err = err
			return
		}
		// Run on a copy, so a rebuild during the run changes nothing.
		if p.ext, err = harness.CopyExtension(p.ext, p.tmp); err != nil {
			p.err = err
			return
		}
	})
	missing(t, prereq.err)
	return prereq
}

// need is needBrowser plus the monkbrowse binary: MONKBROWSE_E2E_BIN, or
// built once per run.
func need(t testing.TB) *prerequisites {
	t.Helper()
	p := needBrowser(t)
	binOnce.Do(func() {
		if bin := os.Getenv("MONKBROWSE_E2E_BIN"); bin != "" {
			binErr = useBinary(p, bin)
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		var err error
		if p.bin, err = harness.BuildServer(ctx, p.root, p.tmp, os.Getenv("MONKBROWSE_E2E_RACE") == "1"); err != nil {
			binErr = fmt.Errorf("the monkbrowse server does not build yet: %w", err)
		}
	})
	missing(t, binErr)
	return p
}

// useBinary makes bin the run's monkbrowse binary, after checking that it
// starts (--version).
func useBinary(p *prerequisites, bin string) error {
	if os.Getenv("MONKBROWSE_E2E_RACE") == "1" {
		return fmt.Errorf("MONKBROWSE_E2E_BIN=%s and MONKBROWSE_E2E_RACE=1 are both set: the suite either runs a given binary or builds one with -race; unset one", bin)
	}
	abs, err := filepath.Abs(bin)
	if err != nil {
		return err
	}
	out, err := exec.Command(abs, "--version").CombinedOutput()
	if err != nil {
		return fmt.Errorf("MONKBROWSE_E2E_BIN=%s does not run (%v): %s; unset it to build the server instead", bin, err, strings.TrimSpace(string(out)))
	}
	p.bin = abs
	return nil
}

func missing(t testing.TB, err error) {
	t.Helper()
	if err == nil {
		return
	}
	if strict {
		t.Fatalf("end-to-end prerequisite missing (MONKBROWSE_E2E=1 makes this a failure): %v", err)
	}
	t.Skipf("skipping the real-browser test: %v (set MONKBROWSE_E2E=1 to fail instead)", err)
}

// testContext is the test's context: it ends at the test's own deadline and
// when the test ends.
func testContext(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

func logSink() io.Writer {
	if verbose {
		return os.Stderr
	}
	return nil
}

// servers lists every monkbrowse process started, for the watchdog's dump.
var (
	serversMu sync.Mutex
	servers   []*harness.Server
)

func trackServer(s *harness.Server) {
	serversMu.Lock()
	servers = append(servers, s)
	serversMu.Unlock()
}

func dumpServerLogs(w io.Writer) {
	serversMu.Lock()
	defer serversMu.Unlock()
	for _, s := range servers {
		fmt.Fprintf(w, "\n--- last stderr lines of %s ---\n%s\n", s.Name, harness.Tail(s.Log(), 60))
	}
}

var nonce atomic.Int64

// unique makes a fixture URL unique (so its chrome tab can be found by URL).
func unique(u string) string {
	n := nonce.Add(1)
	parsed, err := url.Parse(u)
	if err != nil {
		return u
	}
	q := parsed.Query()
	q.Set("n", strconv.FormatInt(n, 10))
	parsed.RawQuery = q.Encode()
	return parsed.String()
}

// mkdir makes a fresh directory under the run's temporary directory.
func mkdir(t testing.TB, p *prerequisites, name string) string {
	t.Helper()
	d, err := os.MkdirTemp(p.tmp, strings.ReplaceAll(name, "/", "_")+"-")
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Clean(d)
}
