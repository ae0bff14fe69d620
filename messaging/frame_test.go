package messaging

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func boolPtr(b bool) *bool { return &b }

// TestFrameRoundTrip pins the canonical encoding of every frame shape in
// DESIGN.md §4: decoding it and encoding it again gives the same bytes.
func TestFrameRoundTrip(t *testing.T) {
	for _, s := range []string{
		`{"k":"req","id":"7","type":"browser_click","payload":{"ref":"e3","element":"Sign in"}}`,
		`{"k":"req","id":"8","type":"list_tabs"}`,
		`{"k":"req","id":"9","type":"t","payload":null}`,
		`{"k":"res","id":"7","ok":true,"result":{"tabId":12}}`,
		`{"k":"res","id":"7","ok":true}`,
		`{"k":"res","id":"7","ok":true,"result":null}`,
		`{"k":"res","id":"7","ok":false,"error":"ref e12 is not on the page any more"}`,
		`{"k":"res","id":"7","ok":false,"error":"tab 3 is not shared","code":"not_shared"}`,
		`{"k":"ntf","type":"tabs_changed","payload":{"tabs":[]}}`,
		`{"k":"png"}`,
		`{"k":"pog"}`,
		`{"k":"res","id":"1","ok":false,"error":"quote \" backslash \\ newline \n tab \t bell \u0007 <html> & é"}`,
		`{"k":"ntf","type":"t","payload":"line\u2028sep\u2029 <&> 😀"}`,
		`{"k":"res","id":"2","ok":false,"error":"sep\u2028\u2029 <a href=\"x\">&amp;</a> 𝄞"}`,
		`{"k":"req","id":"1","type":"browser_evaluate","payload":{"expression":"a<b && c>d","unicode":"\u00e9"}}`,
	} {
		f, err := DecodeFrame([]byte(s))
		if err != nil {
			t.Errorf("DecodeFrame(%s): %v", s, err)
			continue
		}
		got, err := f.Encode()
		if err != nil {
			t.Errorf("Encode(%s): %v", s, err)
			continue
		}
		if string(got) != s {
			t.Errorf("round trip changed the frame\n got %s\nwant %s", got, s)
		}
	}
}

func TestEncodeCompactsAndOrders(t *testing.T) {
	f := Frame{K: KindResponse, ID: "3", OK: boolPtr(true), Result: json.RawMessage("{ \"a\" : [1, 2] }\n")}
	got, err := f.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"k":"res","id":"3","ok":true,"result":{"a":[1,2]}}`; string(got) != want {
		t.Errorf("got %s, want %s", got, want)
	}
	// Decoding whitespace-laden input and encoding gives the compact form.
	f, err = DecodeFrame([]byte(" { \"payload\" : { \"x\" : 1 } , \"type\":\"t\", \"id\":\"2\", \"k\":\"req\", \"extra\": [1] } "))
	if err != nil {
		t.Fatal(err)
	}
	got, _ = f.Encode()
	if want := `{"k":"req","id":"2","type":"t","payload":{"x":1}}`; string(got) != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

func TestAppendStringEncodingRule(t *testing.T) {
	for in, want := range map[string]string{
		"plain":          `"plain"`,
		"a\"b\\c":        `"a\"b\\c"`,
		"\b\f\n\r\t":     `"\b\f\n\r\t"`,
		"\x00\x1f\x7f":   "\"\\u0000\\u001f\x7f\"",
		"<&>":            `"<&>"`,
		"é\u2028😀\u2029": `"é\u2028😀\u2029"`,
		"bad\xffutf8":    `"bad\ufffdutf8"`,
		"":               `""`,
		"tail\x01":       `"tail\u0001"`,
		"\xe2\x82":       `"\ufffd\ufffd"`,
		"mixed é \n ok":  `"mixed é \n ok"`,
	} {
		if got := string(appendString(nil, in)); got != want {
			t.Errorf("appendString(%q) = %s, want %s", in, got, want)
		}
		// The rule is encoding/json's without HTML escaping, byte for byte.
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(in); err != nil {
			t.Fatal(err)
		}
		if goJSON := strings.TrimSuffix(buf.String(), "\n"); goJSON != want {
			t.Errorf("encoding/json writes %q as %s, the rule says %s", in, goJSON, want)
		}
	}
}

func TestDecodeFrameRejects(t *testing.T) {
	for _, s := range []string{
		``,
		`not json`,
		`{"k":"req","id":"1","type":"t"} trailing`,
		`[]`,
		`null`,
		`"req"`,
		`{}`,
		`{"k":"huh"}`,
		`{"k":5}`,
		`{"k":"req","type":"t"}`,
		`{"k":"req","id":"1"}`,
		`{"k":"req","id":7,"type":"t"}`,
		`{"k":"res","ok":true}`,
		`{"k":"res","id":"1"}`,
		`{"k":"res","id":"1","ok":"yes"}`,
		`{"k":"ntf","payload":{}}`,
		`{"k":"req","id":"1","type":"t","payload":{"a":}}`,
	} {
		if _, err := DecodeFrame([]byte(s)); !errors.Is(err, ErrMalformedFrame) {
			t.Errorf("DecodeFrame(%q) error = %v, want ErrMalformedFrame", s, err)
		}
	}
}

func TestEncodeRejects(t *testing.T) {
	for _, f := range []Frame{
		{},
		{K: "nope"},
		{K: KindRequest, Type: "t"},
		{K: KindResponse, ID: "1"},
		{K: KindRequest, ID: "1", Type: "t", Payload: json.RawMessage("{bad")},
		{K: KindResponse, ID: "1", OK: boolPtr(true), Result: json.RawMessage("1 2")},
	} {
		if _, err := f.Encode(); !errors.Is(err, ErrMalformedFrame) {
			t.Errorf("Encode(%+v) error = %v, want ErrMalformedFrame", f, err)
		}
	}
}

func TestFrameJSONMethods(t *testing.T) {
	in := `{"k":"ntf","type":"tabs_changed","payload":{"tabs":[]}}`
	var f Frame
	if err := json.Unmarshal([]byte(in), &f); err != nil {
		t.Fatal(err)
	}
	out, err := json.Marshal(struct{ F Frame }{f})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"F":` + in + `}`; string(out) != want {
		t.Errorf("got %s, want %s", out, want)
	}
}

func TestMarshalValueNoHTMLEscape(t *testing.T) {
	raw, err := marshalValue(map[string]string{"s": "<a href='x'>&</a>"})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"s":"<a href='x'>&</a>"}`; string(raw) != want {
		t.Errorf("got %s, want %s", raw, want)
	}
	if raw, _ := marshalValue(nil); raw != nil {
		t.Errorf("nil payload = %s, want absent", raw)
	}
	if raw, _ := marshalValue(json.RawMessage(nil)); raw != nil {
		t.Errorf("nil RawMessage = %s, want absent", raw)
	}
}

// FuzzDecodeFrame checks that decoding never panics and that a decoded frame
// re-encodes to a fixed point: encode(decode(encode(decode(x)))) equals
// encode(decode(x)), with the same fields.
func FuzzDecodeFrame(f *testing.F) {
	for _, s := range []string{
		`{"k":"req","id":"7","type":"browser_click","payload":{"ref":"e3"}}`,
		`{"k":"res","id":"7","ok":true,"result":{"a":[1,2,{"b":null}]}}`,
		`{"k":"res","id":"7","ok":false,"error":"no \"handler\"\n"}`,
		`{"k":"ntf","type":"tabs_changed","payload":{"tabs":[]}}`,
		`{"k":"png"}`, `{"k":"pog"}`, `{"K":"png"}`,
		`{"k":"req","id":"1","type":"t","payload":"\u00e9\ud800"}`,
		`{"k":"req","id":"1","type":"\u2028<>","payload":1e400}`,
		`[1]`, `null`, `{"k":"req"`, "\xff",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		f1, err := DecodeFrame(data)
		if err != nil {
			return
		}
		e1, err := f1.Encode()
		if err != nil {
			t.Fatalf("decoded frame does not encode: %v\ninput %q", err, data)
		}
		f2, err := DecodeFrame(e1)
		if err != nil {
			t.Fatalf("encoded frame does not decode: %v\nencoded %q", err, e1)
		}
		e2, err := f2.Encode()
		if err != nil {
			t.Fatalf("second encode: %v", err)
		}
		if !bytes.Equal(e1, e2) {
			t.Fatalf("encoding not stable:\n%q\n%q", e1, e2)
		}
		if f1.K != f2.K || f1.ID != f2.ID || f1.Type != f2.Type || f1.Error != f2.Error || f1.Code != f2.Code ||
			(f1.OK == nil) != (f2.OK == nil) || (f1.OK != nil && *f1.OK != *f2.OK) ||
			(len(f1.Payload) == 0) != (len(f2.Payload) == 0) || (len(f1.Result) == 0) != (len(f2.Result) == 0) {
			t.Fatalf("fields changed:\n%+v\n%+v", f1, f2)
		}
	})
}

// TestMalformedFrameErrorCutsTheKind (issue 40): an unknown kind of a
// megabyte is named in the error (which goes to the log) by 32 characters.
func TestMalformedFrameErrorCutsTheKind(t *testing.T) {
	_, err := DecodeFrame([]byte(`{"k":"` + strings.Repeat("z", 1<<20) + `"}`))
	if !errors.Is(err, ErrMalformedFrame) || len(err.Error()) > 200 {
		t.Fatalf("error of %d bytes: %.200v", len(err.Error()), err)
	}
}
