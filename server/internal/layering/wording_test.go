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

// displayCalls may take a remote error's message: they word it for the AI
// (or a log), they decide nothing.
var displayCalls = map[string]bool{
	"errors.New": true, "fmt.Errorf": true, "fmt.Sprintf": true, "fmt.Sprint": true,
	"ErrorResult": true, "protocol.ErrorResult": true, "speakSlots": true,
}

// TestNoDecisionReadsRemoteWording: every decision one process takes on
// another's refusal reads messaging.RemoteError.Code, never its Message (the
// sentence for the AI, free to change). In the Go modules above messaging,
// a RemoteError's Message may only be shown: passed to a display call
// (displayCalls), concatenated, stored. Comparing it (==, !=, switch) or
// passing it to any other function (a regexp, strings.Contains, a matcher
// like the former isTabGone) fails here.
func TestNoDecisionReadsRemoteWording(t *testing.T) {
	root := repoRoot(t)
	for _, m := range workModules(t, root) {
		if m == "messaging" {
			continue // the type's own methods
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
			for _, p := range wordingDecisions(t, path) {
				t.Errorf("%s:%s: a decision reads a RemoteError's Message; decide on its Code (protocol error codes) instead", rel, p)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// TestWordingCheckCatches keeps the check honest: it flags each way of
// deciding on the wording and none of the ways of showing it.
func TestWordingCheckCatches(t *testing.T) {
	src := `package x

import (
	"errors"
	"regexp"
	"strings"

	"github.com/monkbrowse/monkbrowse/messaging"
)

var gone = regexp.MustCompile("gone")

func f(err error) error {
	var re *messaging.RemoteError
	if errors.As(err, &re) && re.Message == "leaving" { // 1
		return nil
	}
	if errors.As(err, &re) && strings.Contains(re.Message, "gone") { // 2
		return nil
	}
	if gone.MatchString(re.Message) { // 3
		return nil
	}
	if isGone(re.Message, 3) { // 4
		return nil
	}
	switch re.Message { // 5
	}
	if re.Code == "tab_gone" {
		return errors.New(re.Message)
	}
	return errors.New("owner: " + re.Message)
}

func isGone(string, int) bool { return false }
`
	path := filepath.Join(t.TempDir(), "x.go")
	if err := writeFile(path, src); err != nil {
		t.Fatal(err)
	}
	if got := wordingDecisions(t, path); len(got) != 5 {
		t.Fatalf("flagged %v, want the 5 decisions", got)
	}
}

// wordingDecisions returns the positions where path's code decides on a
// RemoteError's Message.
func wordingDecisions(t *testing.T, path string) []string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	// Names declared as RemoteError values in this file (var re
	// *messaging.RemoteError, re := &messaging.RemoteError{…}).
	remote := map[string]bool{}
	isRemoteType := func(e ast.Expr) bool {
		if s, ok := e.(*ast.StarExpr); ok {
			e = s.X
		}
		if u, ok := e.(*ast.UnaryExpr); ok && u.Op == token.AND {
			e = u.X
		}
		if c, ok := e.(*ast.CompositeLit); ok {
			e = c.Type
		}
		switch x := e.(type) {
		case *ast.SelectorExpr:
			return x.Sel.Name == "RemoteError"
		case *ast.Ident:
			return x.Name == "RemoteError"
		}
		return false
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.ValueSpec:
			if x.Type != nil && isRemoteType(x.Type) {
				for _, id := range x.Names {
					remote[id.Name] = true
				}
			}
		case *ast.AssignStmt:
			for i, r := range x.Rhs {
				if i < len(x.Lhs) && isRemoteType(r) {
					if id, ok := x.Lhs[i].(*ast.Ident); ok {
						remote[id.Name] = true
					}
				}
			}
		}
		return true
	})
	isMessage := func(e ast.Expr) bool {
		s, ok := e.(*ast.SelectorExpr)
		if !ok || s.Sel.Name != "Message" {
			return false
		}
		id, ok := s.X.(*ast.Ident)
		return ok && remote[id.Name]
	}
	callName := func(c *ast.CallExpr) string {
		switch fn := c.Fun.(type) {
		case *ast.Ident:
			return fn.Name
		case *ast.SelectorExpr:
			if x, ok := fn.X.(*ast.Ident); ok {
				return x.Name + "." + fn.Sel.Name
			}
			return fn.Sel.Name
		}
		return ""
	}
	var found []string
	pos := func(n ast.Node) string {
		p := fset.Position(n.Pos())
		return strconv.Itoa(p.Line) + ":" + strconv.Itoa(p.Column)
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.BinaryExpr:
			if (x.Op == token.EQL || x.Op == token.NEQ) && (isMessage(x.X) || isMessage(x.Y)) {
				found = append(found, pos(x))
			}
		case *ast.SwitchStmt:
			if x.Tag != nil && isMessage(x.Tag) {
				found = append(found, pos(x))
			}
		case *ast.CallExpr:
			if displayCalls[callName(x)] {
				return true
			}
			for _, a := range x.Args {
				if isMessage(a) {
					found = append(found, pos(x))
				}
			}
		}
		return true
	})
	return found
}
