package protocol

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

func TestToolCatalog(t *testing.T) {
	design, err := os.ReadFile(filepath.Join("..", "docs", "DESIGN.md"))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, tool := range Tools {
		if seen[tool.Name] {
			t.Errorf("duplicate tool %s", tool.Name)
		}
		seen[tool.Name] = true
		if !bytes.Contains(design, []byte("`"+tool.Name+"`")) {
			t.Errorf("%s is not in docs/DESIGN.md's tool table (§5.6)", tool.Name)
		}
		if tool.ReadOnly && tool.Destructive {
			t.Errorf("%s: a read-only tool cannot be destructive", tool.Name)
		}
		// A sentence or two on when to use it (issue 30): the how-to
		// belongs in results and errors.
		if len(tool.Description) < 15 || len(tool.Description) > 260 || tool.Title == "" {
			t.Errorf("%s: needs a title and a one- or two-sentence description (%d bytes)", tool.Name, len(tool.Description))
		}
		if tool.Cap != "" && !knownCap(tool.Cap) {
			t.Errorf("%s: unknown capability group %q", tool.Name, tool.Cap)
		}
		if tool.ReadOnly && tool.ChangesPage {
			t.Errorf("%s: a read-only tool cannot change the page", tool.Name)
		}
	}
}

// TestDocsToolTablesMatchCatalog keeps the tool tables of README.md
// ("## Tools") and docs/DESIGN.md (§5.6) and README's count of tool handlers
// in step with the catalogue: every tool listed once, nothing else listed.
func TestDocsToolTablesMatchCatalog(t *testing.T) {
	for _, doc := range []struct{ path, heading string }{
		{filepath.Join("..", "README.md"), "## Tools"},
		{filepath.Join("..", "docs", "DESIGN.md"), "### 5.6 "},
	} {
		text, err := os.ReadFile(doc.path)
		if err != nil {
			t.Fatal(err)
		}
		listed := toolTable(string(text), doc.heading)
		if len(listed) == 0 {
			t.Fatalf("%s: no tool table under %q", doc.path, doc.heading)
		}
		count := map[string]int{}
		for _, name := range listed {
			count[name]++
		}
		for _, tool := range Tools {
			if count[tool.Name] != 1 {
				t.Errorf("%s: %s is listed %d times in the tool table (want once)", doc.path, tool.Name, count[tool.Name])
			}
			delete(count, tool.Name)
		}
		for name := range count {
			t.Errorf("%s: the tool table lists %s, which is not in protocol.Tools", doc.path, name)
		}
	}
	readme, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`the (\d+) tool handlers`).FindSubmatch(readme)
	if m == nil {
		t.Fatal(`README.md no longer says "the N tool handlers": update this test with it`)
	}
	if n, _ := strconv.Atoi(string(m[1])); n != len(Tools) {
		t.Errorf("README.md says the %d tool handlers; protocol.Tools has %d", n, len(Tools))
	}
}

// toolTable returns the tool names in backticks in the rows of the first
// Markdown table after the line starting with heading.
func toolTable(doc, heading string) []string {
	lines := strings.Split(doc, "\n")
	i := 0
	for i < len(lines) && !strings.HasPrefix(lines[i], heading) {
		i++
	}
	for i < len(lines) && !strings.HasPrefix(lines[i], "|") {
		i++
	}
	var names []string
	name := regexp.MustCompile("`(browser_[a-z_]+)`")
	for ; i < len(lines) && strings.HasPrefix(lines[i], "|"); i++ {
		for _, m := range name.FindAllStringSubmatch(lines[i], -1) {
			names = append(names, m[1])
		}
	}
	return names
}

// TestToolSchemas compares each tool's generated schema with its golden file
// and checks the properties DESIGN §5.6 relies on.
func TestToolSchemas(t *testing.T) {
	dir := filepath.Join("testdata", "schemas")
	if *update {
		os.MkdirAll(dir, 0o755)
	}
	for i := range Tools {
		tool := &Tools[i]
		t.Run(tool.Name, func(t *testing.T) {
			got := tool.InputSchema()
			path := filepath.Join(dir, tool.Name+".json")
			if *update {
				if err := os.WriteFile(path, append(append([]byte{}, got...), '\n'), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test -update)", err)
			}
			if !bytes.Equal(append(append([]byte{}, got...), '\n'), want) {
				t.Errorf("schema differs from %s (run go test -update if intended):\n%s", path, got)
			}
			var s struct {
				Type                 string                     `json:"type"`
				Properties           map[string]json.RawMessage `json:"properties"`
				AdditionalProperties *bool                      `json:"additionalProperties"`
				Ref                  string                     `json:"$ref"`
				Schema               string                     `json:"$schema"`
				Defs                 json.RawMessage            `json:"$defs"`
			}
			if err := json.Unmarshal(got, &s); err != nil {
				t.Fatal(err)
			}
			if s.Type != "object" || s.Ref != "" || s.Schema != "" || s.Defs != nil {
				t.Errorf("schema must be a flat object schema: %s", got)
			}
			if s.AdditionalProperties == nil || *s.AdditionalProperties {
				t.Errorf("schema must refuse unknown arguments")
			}
			for name, prop := range s.Properties {
				var p struct {
					Description string `json:"description"`
				}
				if json.Unmarshal(prop, &p) != nil || p.Description == "" {
					t.Errorf("property %s has no description", name)
				}
				// Shared pieces are repeated by every tool: a few words.
				if (name == "profile" || name == "tab" || name == "element" || name == "ref") && len(p.Description) > 80 {
					t.Errorf("property %s: %d bytes of description, repeated in every tool; keep it under 80", name, len(p.Description))
				}
			}
			if tool.Name != "browser_list_tabs" && tool.Name != "browser_new_tab" {
				if _, ok := s.Properties["profile"]; !ok {
					t.Errorf("tab-scoped tool without profile argument")
				}
			}
		})
	}
}

func TestCaps(t *testing.T) {
	for _, c := range Caps {
		n := 0
		for i := range Tools {
			if Tools[i].Cap == c.Name {
				n++
				if !strings.Contains(c.Adds, Tools[i].Name) {
					t.Errorf("--caps %s's help does not name %s", c.Name, Tools[i].Name)
				}
			}
		}
		if n == 0 {
			t.Errorf("capability %s has no tools", c.Name)
		}
	}
	set, err := ParseCaps([]string{"Coordinates", " network", "core"})
	if err != nil || !set[CapCoordinates] || !set[CapNetwork] || set[CapDebugger] {
		t.Fatalf("ParseCaps = %v, %v", set, err)
	}
	all, err := ParseCaps([]string{"all"})
	if err != nil || len(all) != len(Caps) {
		t.Fatalf("all = %v, %v", all, err)
	}
	if _, err := ParseCaps([]string{"vision"}); err == nil || !strings.Contains(err.Error(), "coordinates") {
		t.Errorf("unknown cap: %v", err)
	}
	click, _ := LookupTool("browser_click")
	xy, _ := LookupTool("browser_click_xy")
	if !(CapSet{}).Has(click) || (CapSet{}).Has(xy) || !set.Has(xy) {
		t.Errorf("Has: core always on, a group only when chosen")
	}
}
