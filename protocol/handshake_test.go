package protocol

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestCheckHello(t *testing.T) {
	const sv = "9.9.9"
	tests := []struct {
		name       string
		raw        string
		accept     bool
		legacy     bool
		reasonHas  []string
		wantSlug   string
		wantLabel  string
		wantTabLen int
	}{
		{name: "current version", raw: `{"protocol":1,"profileId":"abc","label":"Work","slug":"work","extVersion":"0.3.0","tabs":[{"tabId":5,"slot":1,"url":"u","title":"t","active":true,"windowId":1}]}`,
			accept: true, wantSlug: "work", wantLabel: "Work", wantTabLen: 1},
		{name: "unknown extra fields are tolerated", raw: `{"protocol":1,"profileId":"abc","label":"","extVersion":"0.3.1","tabs":[],"future":true}`,
			accept: true},
		{name: "missing tabs is an empty list", raw: `{"protocol":1,"profileId":"abc","label":"x","extVersion":"0.3.0"}`,
			accept: true, wantLabel: "x"},
		{name: "invalid persisted slug is dropped", raw: `{"protocol":1,"profileId":"abc","label":"x","slug":"Not A Slug!","extVersion":"0.3.0","tabs":[]}`,
			accept: true, wantSlug: "", wantLabel: "x"},
		{name: "higher version", raw: `{"protocol":2,"profileId":"abc","label":"","extVersion":"0.4.0","tabs":[]}`,
			reasonHas: []string{"protocol 2", "protocol 1", "update the monkbrowse server"}},
		{name: "lower version", raw: `{"protocol":0,"profileId":"abc","label":"","extVersion":"0.2.9","tabs":[]}`,
			reasonHas: []string{"protocol 0", "protocol 1", "update the monkbrowse extension"}},
		{name: "0.2 hello without protocol", raw: `{"profileId":"abc","label":"Home","port":9223}`,
			legacy: true, reasonHas: []string{"too old", "update the extension"}},
		{name: "protocol null counts as 0.2", raw: `{"protocol":null,"label":"Home"}`, legacy: true, reasonHas: []string{"update the extension"}},
		{name: "not JSON", raw: `{"protocol":1,`, reasonHas: []string{"malformed hello"}},
		{name: "JSON array", raw: `[1,2]`, reasonHas: []string{"malformed hello"}},
		{name: "JSON null", raw: `null`, reasonHas: []string{"malformed hello"}},
		{name: "protocol is a string", raw: `{"protocol":"1","profileId":"abc"}`, reasonHas: []string{"protocol must be an integer"}},
		{name: "protocol is fractional", raw: `{"protocol":1.5,"profileId":"abc"}`, reasonHas: []string{"protocol must be an integer"}},
		{name: "missing profileId", raw: `{"protocol":1,"label":"x","extVersion":"0.3.0","tabs":[]}`, reasonHas: []string{"profileId is missing"}},
		{name: "blank profileId", raw: `{"protocol":1,"profileId":"   ","label":"x","extVersion":"0.3.0","tabs":[]}`, reasonHas: []string{"profileId is missing"}},
		{name: "label wrong type", raw: `{"protocol":1,"profileId":"a","label":7,"extVersion":"0.3.0","tabs":[]}`, reasonHas: []string{`field "label"`, "string"}},
		{name: "tabs wrong type", raw: `{"protocol":1,"profileId":"a","label":"","extVersion":"0.3.0","tabs":{}}`, reasonHas: []string{`tabs`, "array"}},
		{name: "label too long", raw: `{"protocol":1,"profileId":"a","label":"` + strings.Repeat("x", MaxLabelLen+1) + `","extVersion":"0.3.0","tabs":[]}`, reasonHas: []string{"label is longer"}},
		{name: "profileId too long", raw: `{"protocol":1,"profileId":"` + strings.Repeat("x", MaxProfileIDLen+1) + `","label":"","extVersion":"0.3.0","tabs":[]}`, reasonHas: []string{"profileId is longer"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v := CheckHello([]byte(tc.raw), sv)
			if v.Accept != tc.accept || v.Legacy != tc.legacy {
				t.Fatalf("accept=%v legacy=%v, want accept=%v legacy=%v (ack %+v)", v.Accept, v.Legacy, tc.accept, tc.legacy, v.Ack)
			}
			if tc.accept {
				if v.Ack != nil {
					t.Errorf("accepted hello carries a rejection ack %+v", v.Ack)
				}
				if v.Hello.Slug != tc.wantSlug || v.Hello.Label != tc.wantLabel || len(v.Hello.Tabs) != tc.wantTabLen || v.Hello.Tabs == nil {
					t.Errorf("hello = %+v", v.Hello)
				}
				return
			}
			b, err := json.Marshal(v.Ack)
			if err != nil {
				t.Fatal(err)
			}
			var m map[string]any
			if err := json.Unmarshal(b, &m); err != nil {
				t.Fatal(err)
			}
			if m["ok"] != false || m["serverVersion"] != sv {
				t.Errorf("ack %s: want ok:false and serverVersion %q", b, sv)
			}
			reason, _ := m["reason"].(string)
			for _, s := range tc.reasonHas {
				if !strings.Contains(reason, s) {
					t.Errorf("reason %q does not contain %q", reason, s)
				}
			}
			if tc.legacy {
				assertLegacyAckShape(t, m)
			} else if m["protocol"] != float64(ProtocolVersion) {
				t.Errorf("ack %s: want protocol %d", b, ProtocolVersion)
			}
		})
	}
}

// assertLegacyAckShape checks the 0.2 extension's ack schema:
// ok: boolean, assignedPort: number, serverVersion: string, reason?: string,
// and that no protocol field is present.
func assertLegacyAckShape(t *testing.T, m map[string]any) {
	t.Helper()
	if _, ok := m["ok"].(bool); !ok {
		t.Errorf("legacy ack: ok is not a boolean: %v", m)
	}
	if p, ok := m["assignedPort"].(float64); !ok || p != 0 {
		t.Errorf("legacy ack: assignedPort must be the number 0: %v", m)
	}
	if _, ok := m["serverVersion"].(string); !ok {
		t.Errorf("legacy ack: serverVersion is not a string: %v", m)
	}
	if r, present := m["reason"]; present {
		if _, ok := r.(string); !ok {
			t.Errorf("legacy ack: reason is not a string: %v", m)
		}
	}
	if _, present := m["protocol"]; present {
		t.Errorf("legacy ack must not carry protocol: %v", m)
	}
}

func TestSlugify(t *testing.T) {
	for in, want := range map[string]string{
		"Work":                    "work",
		"  Ada's Home Profile ":   "ada-s-home-profile",
		"chrome-3":                "chrome-3",
		"ÜBER__Büro":              "ber-b-ro",
		"!!!":                     "",
		"":                        "",
		strings.Repeat("ab-", 30): strings.TrimRight(strings.Repeat("ab-", 30)[:MaxSlugLen], "-"),
	} {
		if got := Slugify(in); got != want {
			t.Errorf("Slugify(%q) = %q, want %q", in, got, want)
		}
		if got := Slugify(in); Slugify(got) != got {
			t.Errorf("Slugify is not idempotent on %q", in)
		}
	}
}

func FuzzCheckHello(f *testing.F) {
	f.Add([]byte(`{"protocol":1,"profileId":"a","label":"b","extVersion":"0.3.0","tabs":[]}`))
	f.Add([]byte(`{"label":"old"}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		v := CheckHello(raw, "1.0.0")
		if v.Accept == (v.Ack != nil) {
			t.Fatalf("verdict must carry an ack exactly when it rejects: %+v", v)
		}
		if v.Accept && (v.Hello.ProfileID == "" || v.Hello.Protocol != ProtocolVersion) {
			t.Fatalf("accepted an invalid hello: %+v", v.Hello)
		}
	})
}
