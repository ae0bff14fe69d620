package tools

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/monkbrowse/monkbrowse/protocol"
)

// bindInto decodes b into a new value of tool's argument struct.
func bindInto(t *testing.T, tool string, b []byte) any {
	t.Helper()
	pt, ok := protocol.LookupTool(tool)
	if !ok {
		t.Fatalf("no tool %s", tool)
	}
	v := reflect.New(reflect.TypeOf(pt.Args))
	if err := json.Unmarshal(b, v.Interface()); err != nil {
		t.Fatalf("%s %s: %v", tool, b, err)
	}
	return v.Elem().Interface()
}

// TestArgsBindAsTheValidatedObject: the handler's struct holds what the
// validated object says (nulls omitted, the last of a member written
// twice), as when the object was re-encoded; and arguments the object
// says the same as are bound as written, not re-encoded.
func TestArgsBindAsTheValidatedObject(t *testing.T) {
	for _, c := range []struct {
		tool, args string
		asWritten  bool
	}{
		{"browser_click", ` {"tab":2, "element":"Go <b>&</b>", "ref":"e3"} `, true},
		{"browser_type", `{"text":"a\u2028b\\\"{,}","submit":true,"element":"x","ref":"e1","profile":"w"}`, true},
		{"browser_run", `{"recording":"r","params":{"a":"1","b":"2"}}`, true},
		{"browser_snapshot", `{}`, true},
		{"browser_snapshot", `null`, false},
		{"browser_snapshot", ``, false},
		{"browser_click", `{"tab":null,"element":"Go","ref":"e3"}`, false},
		{"browser_snapshot", `{"tab":null}`, false},
		{"browser_click", `{"tab":2,"tab":3,"element":"Go","ref":"e3"}`, false},
		{"browser_click", `{"tab":2,"element":"Go","ref":"e3","tab":null}`, false},
		{"browser_run", `{"recording":"r","params":{"a":"1"},"params":{"b":"2"}}`, false},
		{"browser_site_tool_call", `{"name":"n","arguments":{"a":1},"arguments":{"b":[1,{"c":null}]}}`, false},
	} {
		obj, err := validateArgs(c.tool, json.RawMessage(c.args))
		if err != nil {
			t.Fatalf("%s %s: %v", c.tool, c.args, err)
		}
		old, _ := json.Marshal(obj)
		got, err := argsToBind(c.tool, json.RawMessage(c.args))
		if err != nil {
			t.Fatalf("%s %s: %v", c.tool, c.args, err)
		}
		if want, have := bindInto(t, c.tool, old), bindInto(t, c.tool, got); !reflect.DeepEqual(want, have) {
			t.Errorf("%s %s: bound %+v, want %+v", c.tool, c.args, have, want)
		}
		if written := bytes.Equal(got, bytes.TrimSpace([]byte(c.args))); written != c.asWritten {
			t.Errorf("%s %s: bound from %s (as written: %v, want %v)", c.tool, c.args, got, written, c.asWritten)
		}
	}
}

func TestTopLevelMembers(t *testing.T) {
	for obj, want := range map[string]int{
		`{}`:                              0,
		`{ }`:                             0,
		`{"a":1}`:                         1,
		`{"a":[1,2,{"b":3,"c":4}],"d":5}`: 2,
		`{"a,":"}","b":"\"","c":"\\"}`:    3,
		`{"a":1,"a":2}`:                   2,
	} {
		if got := topLevelMembers([]byte(obj)); got != want {
			t.Errorf("%s: %d members, want %d", obj, got, want)
		}
	}
}

// TestArgsErrorsUnchanged: a call whose arguments do not fit gets the
// validator's message through argsToBind.
func TestArgsErrorsUnchanged(t *testing.T) {
	for _, args := range []string{`[1]`, `{"tab":"x"}`, `{"bogus":1}`, `{`} {
		_, want := validateArgs("browser_snapshot", json.RawMessage(args))
		_, got := argsToBind("browser_snapshot", json.RawMessage(args))
		if want == nil || got == nil || got.Error() != want.Error() {
			t.Errorf("%s: %v, want %v", args, got, want)
		}
	}
}

// TestValuesReadAsDecoded: the validator reads a string or number field
// as json.Unmarshal would, without decoding when it needs not.
func TestValuesReadAsDecoded(t *testing.T) {
	for _, v := range []string{`"plain"`, `"caf\u00e9"`, `"café"`, "\"bad \xff byte\"", `"a\"b"`, `""`,
		`null`, `true`, `[1]`, `{"a":1}`, `"5"`, `5`, `-0`, `1.5e3`, `1e400`, `1e-400`, `12345678901234567890`} {
		var ws string
		werr := json.Unmarshal([]byte(v), &ws)
		wantOK := werr == nil && v[0] == '"'
		s, ok := stringValue([]byte(v))
		if ok != wantOK || (ok && string(s) != ws) {
			t.Errorf("string %s: %q %v, want %q %v", v, s, ok, ws, wantOK)
		}
		var wf float64
		ferr := json.Unmarshal([]byte(v), &wf)
		wantOK = ferr == nil && v[0] != '"'
		f, ok := numberValue([]byte(v))
		if ok != wantOK || (ok && f != wf) {
			t.Errorf("number %s: %v %v, want %v %v", v, f, ok, wf, wantOK)
		}
	}
}
