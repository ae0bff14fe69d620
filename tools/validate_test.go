package tools

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/monkbrowse/monkbrowse/protocol"
)

func TestValidateArgs(t *testing.T) {
	cases := []struct {
		tool, args string
		want       []string // substrings of the error; none → valid
	}{
		{"browser_snapshot", ``, nil},
		{"browser_snapshot", `null`, nil},
		{"browser_snapshot", `{}`, nil},
		{"browser_snapshot", `{"tab":2,"profile":"work"}`, nil},
		{"browser_snapshot", `{"tab":null}`, nil},
		{"browser_snapshot", `{"tab":2.0}`, nil},
		{"browser_snapshot", `{"tab":"2"}`, []string{`field "tab" must be an integer ≥ 1, got a string "2"`}},
		{"browser_snapshot", `{"tab":1.5}`, []string{`field "tab" must be an integer`}},
		{"browser_snapshot", `{"tab":0}`, []string{`field "tab" must be at least 1, got 0`}},
		{"browser_snapshot", `{"tabs":1}`, []string{`unknown field "tabs"`, "profile, tab"}},
		{"browser_snapshot", `[1]`, []string{"must be a JSON object"}},
		{"browser_click", `{"element":"x"}`, []string{`missing required field "ref" (a string)`}},
		{"browser_click", `{"element":"x","ref":""}`, []string{`field "ref" must not be empty`}},
		{"browser_scroll", `{"direction":"sideways"}`, []string{`field "direction" must be one of "up", "down", "left", "right", got "sideways"`}},
		{"browser_scroll", `{"amount":0}`, []string{`field "amount" must be at least 1`}},
		{"browser_type", `{"element":"x","ref":"e1","text":"hi","submit":"yes"}`, []string{`field "submit" must be true or false, got a string "yes"`}},
		{"browser_select_option", `{"element":"x","ref":"e1","values":[]}`, []string{`field "values" must hold at least 1 item`}},
		{"browser_select_option", `{"element":"x","ref":"e1","values":"a"}`, []string{`field "values" must be a list of strings`}},
		{"browser_select_option", `{"element":"x","ref":"e1","values":[1]}`, []string{`field "values[0]" must be a string`}},
		{"browser_wait", `{"time":51}`, []string{`field "time" must be at most 50`}},
		{"browser_wait", `{"time":-1}`, []string{`field "time" must be at least 0`}},
		{"browser_list_tabs", `{"tab":1}`, []string{`unknown field "tab"`}},
		{"browser_fill_form", `{"fields":[{"element":"Email","ref":"e1","value":"a"}]}`, nil},
		{"browser_run", `{"recording":"Sign up","params":{"email":"a@b.c","first name":"Ada"}}`, nil},
		{"browser_run", `{"recording":"Sign up","params":{"email":1}}`, []string{`field "params.email" must be a string`}},
		{"browser_run", `{"steps":[{"action":"click","target":{"role":"button","name":"Go"}}]}`, nil},
		{"browser_run", `{"steps":[{"action":"fly"}]}`, []string{`field "steps[0].action" must be one of "click"`}},
		{"browser_run", `{"steps":[{"action":"click","target":{"label":"Go"}}]}`, []string{`field "steps[0].target" has unknown field "label"`}},
		{"browser_fill_form", `{"fields":[]}`, []string{`field "fields" must hold at least 1 item`}},
		{"browser_fill_form", `{"fields":[{"element":"Email","ref":"e1"}]}`, []string{`field "fields[0]" is missing its required field "value" (a string)`}},
		{"browser_fill_form", `{"fields":[{"element":"Email","ref":"e1","value":true}]}`, []string{`field "fields[0].value" must be a string, got a boolean true`}},
		{"browser_fill_form", `{"fields":[{"element":"Email","ref":"e1","value":"a","name":"x"}]}`, []string{`field "fields[0]" has unknown field "name" (its fields are element, ref, value)`}},
		{"browser_fill_form", `{"fields":["e1"]}`, []string{`field "fields[0]" must be an object with element, ref, value`}},
		{"browser_downloads", `{"wait":{"timeoutMs":50000}}`, []string{`field "wait.timeoutMs" must be at most 45000`}},
		{"browser_downloads", `{"wait":{}}`, nil},
		{"browser_click_xy", `{"x":-1,"y":2}`, []string{`field "x" must be at least 0`}},
		{"browser_drag", `{}`, []string{`"startElement"`, `"startRef"`, `"endElement"`, `"endRef"`}},
	}
	for _, c := range cases {
		_, err := validateArgs(c.tool, json.RawMessage(c.args))
		if len(c.want) == 0 {
			if err != nil {
				t.Errorf("%s %s: unexpected error %v", c.tool, c.args, err)
			}
			continue
		}
		if err == nil {
			t.Errorf("%s %s: no error, want %q", c.tool, c.args, c.want)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s %s: error %q lacks %q", c.tool, c.args, err, w)
			}
		}
		if !strings.Contains(err.Error(), "Invalid arguments for "+c.tool) {
			t.Errorf("%s: error %q does not name the tool", c.tool, err)
		}
	}
}

// Every tool's schema parses, and its property order is known.
func TestEverySchemaLoads(t *testing.T) {
	for _, tool := range protocol.Tools {
		s := toolSchema(tool.Name)
		if s == nil || len(s.order) != len(s.Properties) {
			t.Errorf("%s: schema order %v vs %d properties", tool.Name, s.order, len(s.Properties))
		}
	}
}
