package layering

import (
	"go/ast"
	"go/token"
	"go/types"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"
)

// displayCalls may take a remote error's message: they word it for the AI
// (or a log), they decide nothing. Keys are "package.Func" or a bare name
// (a function of that name in any package).
var displayCalls = map[string]bool{
	"errors.New": true, "fmt.Errorf": true, "fmt.Sprintf": true, "fmt.Sprint": true,
	"protocol.ErrorResult": true, "speakSlots": true,
	// Cut and quoted as an unproven program's words (issue 40).
	"protocol.QuoteUnverified": true, "protocol.Cut": true,
}

// matchCalls compare or search a string: passed an error's wording, they
// decide on it.
var matchCalls = map[string]bool{
	"strings.Contains": true, "strings.ContainsAny": true, "strings.ContainsRune": true, "strings.ContainsFunc": true,
	"strings.HasPrefix": true, "strings.HasSuffix": true, "strings.EqualFold": true, "strings.Index": true,
	"strings.IndexAny": true, "strings.LastIndex": true, "strings.Count": true, "strings.Cut": true,
	"strings.CutPrefix": true, "strings.CutSuffix": true, "strings.Compare": true,
	"bytes.Contains": true, "bytes.HasPrefix": true, "bytes.HasSuffix": true, "bytes.Equal": true,
	"regexp.MatchString": true, "regexp.Match": true, "slices.Contains": true, "slices.Index": true,
}

// wordingExempt are decisions on a wording that is not a monkbrowse
// process's, each with why: the module, then the flagged expression as
// go/types prints it (a file may move within its module).
var wordingExempt = map[string]string{
	`bench strings.Contains(err.Error(), "transport")`: "the benchmark drives third-party MCP servers through mcp-go; a dead stdio transport is mcp-go's own error, with no code, and only ends the benchmark's run",
}

// wordingLoadMode is what the check needs: the files and their types.
const wordingLoadMode = packages.NeedName | packages.NeedFiles | packages.NeedSyntax | packages.NeedTypes | packages.NeedTypesInfo

// TestNoDecisionReadsRemoteWording: every decision one process takes on
// another's refusal reads messaging.RemoteError.Code, never its wording (the
// sentence for the AI, free to change). In the Go modules above messaging,
// type-checked:
//   - a RemoteError's Message (a field of a value of that type, however
//     reached, and any local variable holding it) may only be shown: passed
//     to a display call (displayCalls), concatenated, stored. Comparing it
//     (==, !=, switch) or passing it to any other function fails here;
//   - any error's Error() (a remote refusal arrives as a wrapped error too),
//     and any local variable holding it, may not be matched: compared with
//     a constant, switched on, or passed to a string matcher (matchCalls, a
//     regexp's Match/Find methods). Comparing two wordings with each other
//     (a log line not repeated) decides nothing about either.
func TestNoDecisionReadsRemoteWording(t *testing.T) {
	root := repoRoot(t)
	for _, m := range workModules(t, root) {
		if m == "messaging" {
			continue // the type's own methods
		}
		pkgs := loadForWording(t, filepath.Join(root, m), "./...")
		for _, pkg := range pkgs {
			for _, d := range wordingDecisions(pkg) {
				rel, _ := filepath.Rel(root, d.pos)
				if _, ok := wordingExempt[m+" "+d.expr]; ok {
					continue
				}
				t.Errorf("%s: %s: a decision reads an error's wording (a RemoteError's Message, or err.Error()); decide on its Code (protocol error codes, errors.Is/As) instead", rel, d.expr)
			}
		}
	}
}

// TestWordingCheckCatches keeps the check honest: it flags each line of
// testdata/wording marked "// decides" (a RemoteError's Message, err.Error(),
// either through a local variable) and none of the ways of showing them.
func TestWordingCheckCatches(t *testing.T) {
	pkgs := loadForWording(t, ".", "./testdata/wording")
	var got []int
	for _, pkg := range pkgs {
		for _, d := range wordingDecisions(pkg) {
			line, _ := strconv.Atoi(strings.Split(d.pos[strings.Index(d.pos, ".go:")+4:], ":")[0])
			got = append(got, line)
		}
	}
	var want []int
	for _, pkg := range pkgs {
		for _, f := range pkg.Syntax {
			for _, cg := range f.Comments {
				for _, c := range cg.List {
					if c.Text == "// decides" {
						want = append(want, pkg.Fset.Position(c.Pos()).Line)
					}
				}
			}
		}
	}
	slices.Sort(got)
	got = slices.Compact(got)
	slices.Sort(want)
	if len(want) < 12 || !slices.Equal(got, want) {
		t.Fatalf("flagged lines %v, want the %d marked lines %v", got, len(want), want)
	}
}

func loadForWording(t *testing.T, dir, pattern string) []*packages.Package {
	t.Helper()
	pkgs, err := packages.Load(&packages.Config{Mode: wordingLoadMode, Dir: dir}, pattern)
	if err != nil {
		t.Fatal(err)
	}
	if packages.PrintErrors(pkgs) > 0 {
		t.Fatalf("%s: packages do not type-check", dir)
	}
	return pkgs
}

// wording is how directly an expression carries an error's wording.
type wording int

const (
	noWording      wording = iota
	errorWording           // some error's Error()
	messageWording         // a RemoteError's Message
)

// decision is one place where code decides on an error's wording.
type decision struct {
	pos  string // file:line:col
	expr string // the comparison, switch tag or call
}

// wordingDecisions returns where pkg's code decides on an error's wording.
func wordingDecisions(pkg *packages.Package) []decision {
	info := pkg.TypesInfo
	held := map[types.Object]wording{} // local variables holding a wording
	var kind func(e ast.Expr) wording
	kind = func(e ast.Expr) wording {
		switch x := e.(type) {
		case *ast.ParenExpr:
			return kind(x.X)
		case *ast.Ident:
			return held[info.Uses[x]]
		case *ast.SelectorExpr:
			if s := info.Selections[x]; s != nil && s.Kind() == types.FieldVal && x.Sel.Name == "Message" && isRemoteError(s.Recv()) {
				return messageWording
			}
		case *ast.BinaryExpr:
			if x.Op == token.ADD {
				return max(kind(x.X), kind(x.Y))
			}
		case *ast.CallExpr:
			if sel, ok := x.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Error" && len(x.Args) == 0 {
				if s := info.Selections[sel]; s != nil && s.Kind() == types.MethodVal && isStringResult(s.Type()) {
					return errorWording
				}
			}
			// strings.ToLower(msg), strings.TrimSpace(msg)…: still the wording.
			if f := callee(info, x); f != nil && f.Pkg() != nil && f.Pkg().Path() == "strings" && isStringResult(f.Type()) {
				k := noWording
				for _, a := range x.Args {
					k = max(k, kind(a))
				}
				return k
			}
		}
		return noWording
	}
	local := func(id *ast.Ident) types.Object {
		obj := info.ObjectOf(id)
		if v, ok := obj.(*types.Var); ok && !v.IsField() && v.Parent() != nil && v.Parent() != pkg.Types.Scope() {
			return v
		}
		return nil
	}
	// Which local variables hold a wording: assignments, until nothing new.
	for changed := true; changed; {
		changed = false
		mark := func(lhs ast.Expr, rhs ast.Expr) {
			id, ok := lhs.(*ast.Ident)
			if !ok {
				return
			}
			obj := local(id)
			if obj == nil {
				return
			}
			if k := kind(rhs); k > held[obj] {
				held[obj] = k
				changed = true
			}
		}
		for _, f := range pkg.Syntax {
			ast.Inspect(f, func(n ast.Node) bool {
				switch x := n.(type) {
				case *ast.AssignStmt:
					if len(x.Lhs) == len(x.Rhs) {
						for i := range x.Lhs {
							mark(x.Lhs[i], x.Rhs[i])
						}
					}
				case *ast.ValueSpec:
					if len(x.Names) == len(x.Values) {
						for i := range x.Names {
							mark(x.Names[i], x.Values[i])
						}
					}
				}
				return true
			})
		}
	}
	constant := func(e ast.Expr) bool {
		tv, ok := info.Types[e]
		return ok && tv.Value != nil
	}
	var found []decision
	for _, f := range pkg.Syntax {
		if strings.HasSuffix(pkg.Fset.Position(f.Pos()).Filename, "_test.go") {
			continue
		}
		flag := func(e ast.Expr) {
			found = append(found, decision{pkg.Fset.Position(e.Pos()).String(), types.ExprString(e)})
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.BinaryExpr:
				if x.Op != token.EQL && x.Op != token.NEQ {
					return true
				}
				kx, ky := kind(x.X), kind(x.Y)
				if kx == messageWording || ky == messageWording ||
					(kx == errorWording && constant(x.Y)) || (ky == errorWording && constant(x.X)) {
					flag(x)
				}
			case *ast.SwitchStmt:
				if x.Tag != nil && kind(x.Tag) != noWording {
					flag(x.Tag)
				}
			case *ast.CallExpr:
				name := calleeName(info, x)
				if displayCalls[name] || displayCalls[bareName(name)] {
					return true
				}
				matcher := matchCalls[name] || isRegexpMatch(info, x)
				for _, a := range x.Args {
					if k := kind(a); k == messageWording || (k == errorWording && matcher) {
						flag(x)
						break
					}
				}
			}
			return true
		})
	}
	return found
}

// isRemoteError says whether t is messaging.RemoteError or a pointer to it.
func isRemoteError(t types.Type) bool {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	n, ok := t.(*types.Named)
	return ok && n.Obj().Name() == "RemoteError" && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == modulePrefix+"messaging"
}

func isStringResult(t types.Type) bool {
	sig, ok := t.(*types.Signature)
	if !ok || sig.Results().Len() != 1 {
		return false
	}
	b, ok := sig.Results().At(0).Type().(*types.Basic)
	return ok && b.Kind() == types.String
}

// callee is the function or method a call calls, when it is one by name.
func callee(info *types.Info, c *ast.CallExpr) *types.Func {
	var id *ast.Ident
	switch fn := ast.Unparen(c.Fun).(type) {
	case *ast.Ident:
		id = fn
	case *ast.SelectorExpr:
		id = fn.Sel
	case *ast.IndexExpr: // a generic function instantiated
		if s, ok := fn.X.(*ast.SelectorExpr); ok {
			id = s.Sel
		} else if i, ok := fn.X.(*ast.Ident); ok {
			id = i
		}
	}
	if id == nil {
		return nil
	}
	f, _ := info.Uses[id].(*types.Func)
	return f
}

// calleeName is "package.Func" for a function, ".Method" for a method, ""
// for anything else.
func calleeName(info *types.Info, c *ast.CallExpr) string {
	f := callee(info, c)
	if f == nil {
		return ""
	}
	if sig, ok := f.Type().(*types.Signature); ok && sig.Recv() != nil {
		return "." + f.Name()
	}
	if f.Pkg() == nil {
		return f.Name()
	}
	return f.Pkg().Name() + "." + f.Name()
}

func bareName(name string) string { return name[strings.LastIndex(name, ".")+1:] }

// isRegexpMatch says whether c is a *regexp.Regexp's Match… or Find… method.
func isRegexpMatch(info *types.Info, c *ast.CallExpr) bool {
	f := callee(info, c)
	if f == nil || f.Pkg() == nil || f.Pkg().Path() != "regexp" {
		return false
	}
	return strings.HasPrefix(f.Name(), "Match") || strings.HasPrefix(f.Name(), "Find")
}
