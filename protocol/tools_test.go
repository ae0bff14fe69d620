package protocol

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
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
		if len(tool.Description) < 40 || tool.Title == "" {
			t.Errorf("%s: needs a title and a description written for a model", tool.Name)
		}
		if tool.ReadOnly && tool.ChangesPage {
			t.Errorf("%s: a read-only tool cannot change the page", tool.Name)
		}
	}
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
				if !strings.Contains(string(prop), `"description"`) {
					t.Errorf("property %s has no description", name)
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
