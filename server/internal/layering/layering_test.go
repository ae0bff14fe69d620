// Package layering holds a test of the repository's shape: the Go modules
// depend on each other in one direction only (DESIGN §3):
//
//	messaging ← protocol ← tools, forwarder ← server; e2e and bench on top;
//	devtool (build and release tooling) apart, importing none of them.
//
// It reads every module of go.work, its go.mod requirements and the imports
// of every Go file (tests included), so a new import that points the wrong
// way fails here rather than in review. Beside it: no cross-process decision
// reads an error's wording (wording_test.go); the vocabulary the owner and
// its forwarders share is declared once, in protocol, and inside server only
// the daemon is a client of the control port (vocabulary_test.go); the Go
// declarations docs/CONTRACTS.md shows are the code's (contracts_test.go).
package layering

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

const modulePrefix = "github.com/monkbrowse/monkbrowse/"

// allowed lists, for each module, the repository modules it may use. tools
// and forwarder are siblings: neither uses the other. e2e drives the built
// binary and the extension from outside; bench may reuse e2e's harness.
var allowed = map[string][]string{
	"messaging": {},
	"protocol":  {"messaging"},
	"tools":     {"messaging", "protocol"},
	"forwarder": {"messaging", "protocol"},
	"server":    {"messaging", "protocol", "tools", "forwarder"},
	"e2e":       {"messaging", "protocol", "tools", "forwarder", "server"},
	"bench":     {"messaging", "protocol", "tools", "forwarder", "server", "e2e"},
	// devtool (build, dependencies, releases) drives the go and npm
	// commands; it imports none of the modules it builds.
	"devtool": {},
}

func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.work")); err != nil {
		// A skip here would let the layering go unchecked whenever the
		// tree is laid out differently: the check needs the repository.
		t.Fatalf("no go.work at %s (%v): this test checks the repository's module layering and must run inside it", root, err)
	}
	return root
}

// workModules returns the directories listed in go.work's use block.
func workModules(t *testing.T, root string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "go.work"))
	if err != nil {
		t.Fatal(err)
	}
	var mods []string
	for _, m := range regexp.MustCompile(`(?m)^\s*\./([a-z0-9]+)\s*$`).FindAllStringSubmatch(string(b), -1) {
		mods = append(mods, m[1])
	}
	if len(mods) == 0 {
		t.Fatal("no modules in go.work")
	}
	return mods
}

// repoModule returns the repository module an import path or module path
// belongs to, or "".
func repoModule(path string) string {
	rest, ok := strings.CutPrefix(path, modulePrefix)
	if !ok {
		return ""
	}
	mod, _, _ := strings.Cut(rest, "/")
	return mod
}

func TestModuleDependencyDirection(t *testing.T) {
	root := repoRoot(t)
	mods := workModules(t, root)
	for _, m := range mods {
		if _, ok := allowed[m]; !ok {
			t.Errorf("module %s (go.work) has no place in the dependency picture: add it to allowed in this test and to DESIGN §3", m)
		}
	}
	requireRE := regexp.MustCompile(`(?m)^\s*(?:require\s+)?(` + regexp.QuoteMeta(modulePrefix) + `[a-z0-9]+)\s+v`)
	for _, m := range mods {
		ok := map[string]bool{m: true}
		for _, a := range allowed[m] {
			ok[a] = true
		}
		gomod, err := os.ReadFile(filepath.Join(root, m, "go.mod"))
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range requireRE.FindAllStringSubmatch(string(gomod), -1) {
			if dep := repoModule(r[1]); !ok[dep] {
				t.Errorf("%s/go.mod requires %s: %s may only use %v", m, dep, m, allowed[m])
			}
		}
		bad := map[string][]string{} // offending import → files
		err = filepath.WalkDir(filepath.Join(root, m), func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && (d.Name() == "node_modules" || d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			if d.IsDir() || !strings.HasSuffix(path, ".go") {
				return nil
			}
			f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root, path)
			for _, imp := range f.Imports {
				p, _ := strconv.Unquote(imp.Path.Value)
				if dep := repoModule(p); dep != "" && !ok[dep] {
					bad[p] = append(bad[p], rel)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		var imps []string
		for p := range bad {
			imps = append(imps, p)
		}
		sort.Strings(imps)
		for _, p := range imps {
			t.Errorf("%s imports %s (in %s): %s may only use %v", m, p, strings.Join(bad[p], ", "), m, allowed[m])
		}
	}
}

// TestMessagingCoreIsStandardLibraryOnly: the messaging package itself uses
// only the standard library; the gorilla/websocket adapter sits in
// messaging/wsconn (DESIGN §3).
func TestMessagingCoreIsStandardLibraryOnly(t *testing.T) {
	root := repoRoot(t)
	files, err := filepath.Glob(filepath.Join(root, "messaging", "*.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no messaging sources (%v)", err)
	}
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if first, _, _ := strings.Cut(p, "/"); strings.Contains(first, ".") {
				t.Errorf("messaging/%s imports %s: the messaging core uses the standard library only", filepath.Base(path), p)
			}
		}
	}
}

func writeFile(path, s string) error { return os.WriteFile(path, []byte(s), 0o644) }
