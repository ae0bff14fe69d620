package layering

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// TestContractsMatchCode: every Go declaration docs/CONTRACTS.md shows in
// its ```go blocks is in the code, as written: a function or method with
// the same parameter and result types, a struct with the same exported
// fields, an interface with the same methods, a constant or variable of that
// name (and type or value where both spell one). The blocks are Go: each
// names its package in a line `// package <path>` (the path under the
// repository root, e.g. messaging/wsconn), which holds until the next such
// line. CONTRACTS cannot drift from the code again without this failing.
func TestContractsMatchCode(t *testing.T) {
	root := repoRoot(t)
	doc, err := os.ReadFile(filepath.Join(root, "docs", "CONTRACTS.md"))
	if err != nil {
		t.Fatal(err)
	}
	problems, checked := checkContracts(root, string(doc))
	for _, p := range problems {
		t.Error(p)
	}
	// The blocks must have been read: a doc without them checks nothing.
	if checked < 40 {
		t.Errorf("only %d declarations of CONTRACTS.md were checked; the go blocks were not read", checked)
	}
}

// TestContractsCheckCatches: the check sees the drifts CONTRACTS had (a
// struct's fields, a function's results) and the others it promises to.
func TestContractsCheckCatches(t *testing.T) {
	root := repoRoot(t)
	for _, c := range []struct{ name, block, want string }{
		{"results", "// package tools\nfunc MarkSent(ctx context.Context)\n", "MarkSent"},
		{"fields", "// package protocol\ntype CallTool struct { Name string; Args json.RawMessage }\n", "CallTool"},
		{"field type", "// package messaging/wsconn\ntype Options struct { ReadLimit int }\n", "Options"},
		{"missing method", "// package messaging\nfunc (p *Peer) Reopen() error\n", "Peer.Reopen"},
		{"parameters", "// package messaging\nfunc (p *Peer) Handle(typ string, h NotifyHandler)\n", "Peer.Handle"},
		{"receiver", "// package messaging\nfunc (p Peer) Close() error\n", "Peer.Close"},
		{"interface", "// package messaging\ntype PeerSocket interface { Send(ctx context.Context, frame []byte) error; Close() error }\n", "PeerSocket"},
		{"constant", "// package messaging\nconst CancelType = \"stop\"\n", "CancelType"},
		{"missing", "// package tools\nvar ErrGone error\n", "ErrGone"},
		{"no package", "func MarkSent(ctx context.Context) error\n", "package"},
		{"not Go", "// package tools\nfunc MarkSent(ctx context.Context) error {\n", "parse"},
	} {
		problems, _ := checkContracts(root, "```go\n"+c.block+"```\n")
		if len(problems) == 0 || !strings.Contains(strings.Join(problems, "\n"), c.want) {
			t.Errorf("%s: the check did not see the drift in\n%s\nproblems: %q", c.name, c.block, problems)
		}
	}
	// And what is right passes.
	ok := "```go\n// package tools\nfunc MarkSent(ctx context.Context) error\n// package messaging\nfunc (p *Peer) Close() error\nconst CancelType = \"cancel\"\n```\n"
	if problems, n := checkContracts(root, ok); len(problems) != 0 || n != 3 {
		t.Errorf("a true block: %d checked, problems %q", n, problems)
	}
}

var (
	goBlock     = regexp.MustCompile("(?s)```go\n(.*?)```")
	packageLine = regexp.MustCompile(`(?m)^//\s*package\s+([a-z0-9_/]+)`)
)

// checkContracts compares the go blocks of doc with the packages they name
// under root: the problems found, and how many declarations it checked.
func checkContracts(root, doc string) (problems []string, checked int) {
	pkgs := map[string]*codePkg{}
	for bi, m := range goBlock.FindAllStringSubmatch(doc, -1) {
		block := m[1]
		idx := packageLine.FindAllStringSubmatchIndex(block, -1)
		if len(idx) == 0 || strings.TrimSpace(block[:idx[0][0]]) != "" {
			problems = append(problems, fmt.Sprintf("go block %d of CONTRACTS.md does not start with a `// package <path>` line naming the package it documents", bi+1))
			if len(idx) == 0 {
				continue
			}
		}
		for i, at := range idx {
			end := len(block)
			if i+1 < len(idx) {
				end = idx[i+1][0]
			}
			path := block[at[2]:at[3]]
			pkg := pkgs[path]
			if pkg == nil {
				var err error
				if pkg, err = loadCodePkg(filepath.Join(root, filepath.FromSlash(path))); err != nil {
					problems = append(problems, fmt.Sprintf("package %s named in CONTRACTS.md: %v", path, err))
					continue
				}
				pkgs[path] = pkg
			}
			// The line stays in, as a comment: positions keep their meaning.
			src := "package x\n" + block[at[0]:end]
			f, err := parser.ParseFile(token.NewFileSet(), "CONTRACTS.md", src, 0)
			if err != nil {
				problems = append(problems, fmt.Sprintf("the go block for package %s does not parse as Go declarations: %v", path, err))
				continue
			}
			for _, p := range pkg.compare(f) {
				problems = append(problems, fmt.Sprintf("CONTRACTS.md, package %s: %s", path, p))
			}
			checked += countDecls(f)
		}
	}
	return problems, checked
}

func countDecls(f *ast.File) int {
	n := 0
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			n++
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					n++
				case *ast.ValueSpec:
					n += len(s.Names)
				}
			}
		}
	}
	return n
}

// codePkg is a package's top-level declarations, from its non-test files.
type codePkg struct {
	funcs  map[string]*ast.FuncDecl // "Name" or "Recv.Name"
	types  map[string]*ast.TypeSpec
	values map[string]valueOf
}

type valueOf struct {
	spec *ast.ValueSpec
	i    int
}

func loadCodePkg(dir string) (*codePkg, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, 0)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no Go files in %s", dir)
	}
	c := &codePkg{funcs: map[string]*ast.FuncDecl{}, types: map[string]*ast.TypeSpec{}, values: map[string]valueOf{}}
	{
		for _, f := range files {
			for _, d := range f.Decls {
				switch d := d.(type) {
				case *ast.FuncDecl:
					c.funcs[funcKey(d)] = d
				case *ast.GenDecl:
					for _, s := range d.Specs {
						switch s := s.(type) {
						case *ast.TypeSpec:
							c.types[s.Name.Name] = s
						case *ast.ValueSpec:
							for i, n := range s.Names {
								c.values[n.Name] = valueOf{s, i}
							}
						}
					}
				}
			}
		}
	}
	return c, nil
}

func funcKey(d *ast.FuncDecl) string {
	if d.Recv == nil || len(d.Recv.List) == 0 {
		return d.Name.Name
	}
	return recvName(d.Recv.List[0].Type) + "." + d.Name.Name
}

func recvName(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.StarExpr:
		return recvName(x.X)
	case *ast.IndexExpr:
		return recvName(x.X)
	case *ast.IndexListExpr:
		return recvName(x.X)
	case *ast.Ident:
		return x.Name
	}
	return "?"
}

// compare lists how the declarations of doc differ from the code.
func (c *codePkg) compare(doc *ast.File) []string {
	var out []string
	for _, d := range doc.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			key := funcKey(d)
			code, ok := c.funcs[key]
			if !ok {
				out = append(out, fmt.Sprintf("func %s is not in the code", key))
				continue
			}
			if d.Recv != nil {
				_, docPtr := d.Recv.List[0].Type.(*ast.StarExpr)
				_, codePtr := code.Recv.List[0].Type.(*ast.StarExpr)
				if docPtr != codePtr {
					out = append(out, fmt.Sprintf("func %s: the receiver is %s in the code", key, typeString(code.Recv.List[0].Type)))
				}
			}
			if a, b := typeString(d.Type), typeString(code.Type); a != b {
				out = append(out, fmt.Sprintf("func %s: documented %s, the code has %s", key, a, b))
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					out = append(out, c.compareType(s)...)
				case *ast.ValueSpec:
					out = append(out, c.compareValue(s)...)
				}
			}
		}
	}
	return out
}

func (c *codePkg) compareType(doc *ast.TypeSpec) []string {
	name := doc.Name.Name
	code, ok := c.types[name]
	if !ok {
		return []string{fmt.Sprintf("type %s is not in the code", name)}
	}
	if (doc.Assign != 0) != (code.Assign != 0) {
		return []string{fmt.Sprintf("type %s: an alias in one, a defined type in the other", name)}
	}
	switch dt := doc.Type.(type) {
	case *ast.StructType:
		ct, ok := code.Type.(*ast.StructType)
		if !ok {
			return []string{fmt.Sprintf("type %s is not a struct in the code", name)}
		}
		return diffMembers("type "+name+" field", members(dt.Fields, false), members(ct.Fields, false))
	case *ast.InterfaceType:
		ct, ok := code.Type.(*ast.InterfaceType)
		if !ok {
			return []string{fmt.Sprintf("type %s is not an interface in the code", name)}
		}
		return diffMembers("type "+name+" method", members(dt.Methods, true), members(ct.Methods, true))
	}
	if a, b := typeString(doc.Type), typeString(code.Type); a != b {
		return []string{fmt.Sprintf("type %s: documented %s, the code has %s", name, a, b)}
	}
	return nil
}

func (c *codePkg) compareValue(doc *ast.ValueSpec) []string {
	var out []string
	for i, n := range doc.Names {
		code, ok := c.values[n.Name]
		if !ok {
			out = append(out, fmt.Sprintf("%s is not in the code", n.Name))
			continue
		}
		if doc.Type != nil && code.spec.Type != nil {
			if a, b := typeString(doc.Type), typeString(code.spec.Type); a != b {
				out = append(out, fmt.Sprintf("%s: documented type %s, the code has %s", n.Name, a, b))
			}
		}
		// A value spelled in both (a const in an iota block spells none).
		if i < len(doc.Values) && len(doc.Values) == len(doc.Names) && code.i < len(code.spec.Values) && len(code.spec.Values) == len(code.spec.Names) {
			if a, b := exprString(doc.Values[i]), exprString(code.spec.Values[code.i]); a != b {
				out = append(out, fmt.Sprintf("%s: documented = %s, the code has = %s", n.Name, a, b))
			}
		}
	}
	return out
}

// members maps a struct's exported fields (or an interface's methods and
// embedded types) to their types.
func members(fl *ast.FieldList, methods bool) map[string]string {
	m := map[string]string{}
	if fl == nil {
		return m
	}
	for _, f := range fl.List {
		if len(f.Names) == 0 { // embedded
			m[typeString(f.Type)] = "embedded"
			continue
		}
		for _, n := range f.Names {
			if methods || n.IsExported() {
				m[n.Name] = typeString(f.Type)
			}
		}
	}
	return m
}

func diffMembers(what string, doc, code map[string]string) []string {
	var out []string
	for name, dt := range doc {
		ct, ok := code[name]
		switch {
		case !ok:
			out = append(out, fmt.Sprintf("%s %s is not in the code", what, name))
		case ct != dt:
			out = append(out, fmt.Sprintf("%s %s: documented %s, the code has %s", what, name, dt, ct))
		}
	}
	for name := range code {
		if _, ok := doc[name]; !ok {
			out = append(out, fmt.Sprintf("%s %s is in the code but not in CONTRACTS.md", what, name))
		}
	}
	sort.Strings(out)
	return out
}

// typeString spells a type without parameter names, `any` for an empty
// interface, so that two spellings of one type compare equal.
func typeString(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.Ident:
		return x.Name
	case *ast.SelectorExpr:
		return typeString(x.X) + "." + x.Sel.Name
	case *ast.StarExpr:
		return "*" + typeString(x.X)
	case *ast.ParenExpr:
		return typeString(x.X)
	case *ast.Ellipsis:
		return "..." + typeString(x.Elt)
	case *ast.ArrayType:
		if x.Len == nil {
			return "[]" + typeString(x.Elt)
		}
		return "[" + exprString(x.Len) + "]" + typeString(x.Elt)
	case *ast.MapType:
		return "map[" + typeString(x.Key) + "]" + typeString(x.Value)
	case *ast.ChanType:
		switch x.Dir {
		case ast.SEND:
			return "chan<- " + typeString(x.Value)
		case ast.RECV:
			return "<-chan " + typeString(x.Value)
		}
		return "chan " + typeString(x.Value)
	case *ast.FuncType:
		s := "func(" + strings.Join(fieldTypes(x.Params), ", ") + ")"
		switch r := fieldTypes(x.Results); len(r) {
		case 0:
		case 1:
			s += " " + r[0]
		default:
			s += " (" + strings.Join(r, ", ") + ")"
		}
		return s
	case *ast.InterfaceType:
		if x.Methods == nil || len(x.Methods.List) == 0 {
			return "any"
		}
		var ms []string
		for k, v := range members(x.Methods, true) {
			ms = append(ms, k+" "+v)
		}
		sort.Strings(ms)
		return "interface{" + strings.Join(ms, "; ") + "}"
	case *ast.StructType:
		var fs []string
		for _, f := range x.Fields.List {
			for range max(1, len(f.Names)) {
				fs = append(fs, typeString(f.Type))
			}
		}
		return "struct{" + strings.Join(fs, "; ") + "}"
	case *ast.IndexExpr:
		return typeString(x.X) + "[" + typeString(x.Index) + "]"
	case *ast.IndexListExpr:
		var as []string
		for _, a := range x.Indices {
			as = append(as, typeString(a))
		}
		return typeString(x.X) + "[" + strings.Join(as, ", ") + "]"
	}
	return exprString(e)
}

func fieldTypes(fl *ast.FieldList) []string {
	var out []string
	if fl == nil {
		return out
	}
	for _, f := range fl.List {
		for range max(1, len(f.Names)) {
			out = append(out, typeString(f.Type))
		}
	}
	return out
}

func exprString(e ast.Expr) string {
	var b bytes.Buffer
	printer.Fprint(&b, token.NewFileSet(), e)
	return b.String()
}
