package layering

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// sharedWords are values of the control-port and wire vocabulary that
// protocol declares once (control.go, token.go, errorcodes.go); any other
// module spells them through protocol's names.
var sharedWords = map[string]string{
	"9219":                  "protocol.DefaultControlPort",
	"9222":                  "protocol.DefaultExtensionPort",
	`"X-Monkbrowse"`:        "protocol.HeaderLeaving",
	`"X-Monkbrowse-Server"`: "protocol.HeaderServer",
	`"control-token"`:       "protocol.TokenFileName",
	`"tab_gone"`:            "protocol.CodeTabGone",
	`"not_shared"`:          "protocol.CodeNotShared",
	`"owner_leaving"`:       "protocol.CodeOwnerLeaving / protocol.MsgOwnerLeaving",
}

// TestSharedVocabularyDeclaredOnce: outside protocol, no Go source (tests
// excluded: they may pin the wire values) writes one of sharedWords as a
// literal or declares its own Caller interface (protocol.Caller is the one).
func TestSharedVocabularyDeclaredOnce(t *testing.T) {
	root := repoRoot(t)
	for _, m := range workModules(t, root) {
		if m == "protocol" {
			continue
		}
		err := filepath.WalkDir(filepath.Join(root, m), func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && (d.Name() == "node_modules" || d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return nil
			}
			rel, _ := filepath.Rel(root, path)
			for _, f := range literalWords(t, path) {
				t.Errorf("%s: %s", rel, f)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// TestVocabularyCheckCatches keeps the check honest.
func TestVocabularyCheckCatches(t *testing.T) {
	src := `package x

// 9219 in a comment is fine.
const port = 9219

var h = "X-Monkbrowse"
var ok = "X-Monkbrowse is spelled out in a sentence"

type Caller interface{ CallTool() }
type caller struct{}
`
	path := filepath.Join(t.TempDir(), "x.go")
	if err := writeFile(path, src); err != nil {
		t.Fatal(err)
	}
	if got := literalWords(t, path); len(got) != 3 {
		t.Fatalf("flagged %v, want the port, the header and the Caller", got)
	}
}

func literalWords(t *testing.T, path string) []string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var found []string
	ast.Inspect(f, func(n ast.Node) bool {
		if ts, ok := n.(*ast.TypeSpec); ok {
			if _, iface := ts.Type.(*ast.InterfaceType); iface && ts.Name.Name == "Caller" {
				found = append(found, strconv.Itoa(fset.Position(ts.Pos()).Line)+": a Caller interface is declared here: use protocol.Caller")
			}
			return true
		}
		lit, ok := n.(*ast.BasicLit)
		if !ok || (lit.Kind != token.INT && lit.Kind != token.STRING) {
			return true
		}
		v := lit.Value
		if lit.Kind == token.STRING {
			s, err := strconv.Unquote(v)
			if err != nil {
				return true
			}
			v = strconv.Quote(s)
		}
		if name, ok := sharedWords[v]; ok {
			p := fset.Position(lit.Pos())
			found = append(found, strconv.Itoa(p.Line)+": the literal "+lit.Value+" is declared in protocol: use "+name)
		}
		return true
	})
	return found
}

// TestOnlyTheDaemonIsAClient: inside server, only internal/daemon (whose
// forwarder role is a client of the control port) imports the forwarder
// module; the owner side takes what it shares with forwarders from protocol.
// Tests may dial with a real forwarder.
func TestOnlyTheDaemonIsAClient(t *testing.T) {
	root := repoRoot(t)
	err := filepath.WalkDir(filepath.Join(root, "server"), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if filepath.Dir(rel) == filepath.Join("server", "internal", "daemon") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			if p, _ := strconv.Unquote(imp.Path.Value); repoModule(p) == "forwarder" {
				t.Errorf("%s imports %s: only server/internal/daemon is a client of the control port; shared vocabulary belongs in protocol", rel, p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
