package protocol

import (
	"encoding/json"
	"strings"
	"testing"
)

const (
	testSecret = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	nonceE     = "1111111111111111111111111111111111111111111111111111111111111111"
	nonceS     = "2222222222222222222222222222222222222222222222222222222222222222"
)

func TestCheckHello(t *testing.T) {
	const sv = "9.9.9"
	n := `"nonce":"` + nonceE + `"`
	tests := []struct {
		name      string
		raw       string
		accept    bool
		legacy    bool
		reasonHas []string
	}{
		{name: "current version", raw: `{"protocol":3,"extVersion":"0.3.0",` + n + `}`, accept: true},
		{name: "unknown extra fields are tolerated", raw: `{"protocol":3,"extVersion":"0.3.1",` + n + `,"future":true}`, accept: true},
		{name: "missing nonce", raw: `{"protocol":3,"extVersion":"0.3.0"}`, reasonHas: []string{"malformed hello", "nonce must be 64 hex digits"}},
		{name: "short nonce", raw: `{"protocol":3,"extVersion":"0.3.0","nonce":"abcd"}`, reasonHas: []string{"nonce must be 64 hex digits"}},
		{name: "nonce not hex", raw: `{"protocol":3,"extVersion":"0.3.0","nonce":"` + strings.Repeat("zz", 32) + `"}`, reasonHas: []string{"nonce is not hex"}},
		{name: "higher version", raw: `{"protocol":4,"extVersion":"0.5.0",` + n + `}`,
			reasonHas: []string{"protocol 4", "protocol 3", "update the monkbrowse server"}},
		{name: "a protocol-1 extension (0.3) with its tabs", raw: `{"protocol":1,"profileId":"abc","label":"Work","extVersion":"0.3.0","tabs":[{"tabId":5,"slot":1,"url":"u","title":"t","active":true,"windowId":1}]}`,
			reasonHas: []string{"protocol 1", "protocol 3", "update the monkbrowse extension"}},
		{name: "0.2 hello without protocol", raw: `{"profileId":"abc","label":"Home","port":9223}`,
			legacy: true, reasonHas: []string{"too old", "update the extension"}},
		{name: "protocol null counts as 0.2", raw: `{"protocol":null,"label":"Home"}`, legacy: true, reasonHas: []string{"update the extension"}},
		{name: "not JSON", raw: `{"protocol":3,`, reasonHas: []string{"malformed hello"}},
		{name: "JSON array", raw: `[1,2]`, reasonHas: []string{"malformed hello"}},
		{name: "JSON null", raw: `null`, reasonHas: []string{"malformed hello"}},
		{name: "protocol is a string", raw: `{"protocol":"2","profileId":"abc"}`, reasonHas: []string{"protocol must be an integer"}},
		{name: "protocol is fractional", raw: `{"protocol":1.5,"profileId":"abc"}`, reasonHas: []string{"protocol must be an integer"}},
		{name: "nonce wrong type", raw: `{"protocol":3,"extVersion":"0.3.0","nonce":7}`, reasonHas: []string{`field "nonce"`, "string"}},
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
				if v.Hello.Nonce != nonceE {
					t.Errorf("hello = %+v", v.Hello)
				}
				return
			}
			checkRejection(t, v.Ack, sv, tc.legacy, tc.reasonHas)
		})
	}
}

func checkRejection(t *testing.T, ack any, sv string, legacy bool, reasonHas []string) {
	t.Helper()
	b, err := json.Marshal(ack)
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
	for _, s := range reasonHas {
		if !strings.Contains(reason, s) {
			t.Errorf("reason %q does not contain %q", reason, s)
		}
	}
	if legacy {
		assertLegacyAckShape(t, m)
	} else if m["protocol"] != float64(ProtocolVersion) {
		t.Errorf("ack %s: want protocol %d", b, ProtocolVersion)
	}
	for _, k := range []string{"proof", "nonce"} {
		if _, present := m[k]; present {
			t.Errorf("a rejection must not carry %s: %s", k, b)
		}
	}
}

func TestProofAckVerifies(t *testing.T) {
	ack := ProofAck("9.9.9", testSecret, nonceE, nonceS)
	if !ack.OK || ack.Auth != AuthScheme || ack.Nonce != nonceS || ack.Protocol != ProtocolVersion {
		t.Fatalf("ack = %+v", ack)
	}
	if !CheckProof(testSecret, ProofLabelServer, nonceE, nonceS, ack.Proof) {
		t.Fatal("the server's proof does not verify under its own label")
	}
	if CheckProof(testSecret, ProofLabelExtension, nonceE, nonceS, ack.Proof) {
		t.Fatal("the server's proof verifies as the extension's: it could be reflected")
	}
	if CheckProof("another secret", ProofLabelServer, nonceE, nonceS, ack.Proof) {
		t.Fatal("the server's proof verifies under another secret")
	}
}

// TestPortLabelsDiffer: a transcript of the control port can never be a
// valid proof on the extension port (or the reverse), even under one secret.
func TestPortLabelsDiffer(t *testing.T) {
	labels := []string{ProofLabelOwner, ProofLabelForwarder, ProofLabelServer, ProofLabelExtension}
	seen := map[string]string{}
	for _, l := range labels {
		p := Proof(testSecret, l, nonceE, nonceS)
		if prev, dup := seen[p]; dup {
			t.Fatalf("labels %q and %q give the same proof", prev, l)
		}
		seen[p] = l
		for _, other := range labels {
			if other != l && CheckProof(testSecret, other, nonceE, nonceS, p) {
				t.Errorf("a proof under %q verifies under %q", l, other)
			}
		}
	}
}

func TestCheckAuth(t *testing.T) {
	const sv = "9.9.9"
	proof := Proof(testSecret, ProofLabelExtension, nonceE, nonceS)
	pr := `"proof":"` + proof + `"`
	tests := []struct {
		name       string
		raw        string
		accept     bool
		unproven   bool
		reasonHas  []string
		wantSlug   string
		wantLabel  string
		wantTabLen int
	}{
		{name: "proven", raw: `{` + pr + `,"profileId":"abc","label":"Work","slug":"work","tabs":[{"tabId":5,"slot":1,"url":"u","title":"t","active":true,"windowId":1}]}`,
			accept: true, wantSlug: "work", wantLabel: "Work", wantTabLen: 1},
		{name: "unknown extra fields are tolerated", raw: `{` + pr + `,"profileId":"abc","label":"","tabs":[],"future":true}`, accept: true},
		{name: "missing tabs is an empty list", raw: `{` + pr + `,"profileId":"abc","label":"x"}`, accept: true, wantLabel: "x"},
		{name: "invalid persisted slug is dropped", raw: `{` + pr + `,"profileId":"abc","label":"x","slug":"Not A Slug!","tabs":[]}`, accept: true, wantLabel: "x"},
		{name: "no proof", raw: `{"profileId":"abc","label":"Work","tabs":[]}`, unproven: true, reasonHas: []string{"could not prove"}},
		{name: "the server's proof reflected", raw: `{"proof":"` + Proof(testSecret, ProofLabelServer, nonceE, nonceS) + `","profileId":"abc","label":"","tabs":[]}`, unproven: true, reasonHas: []string{"could not prove"}},
		{name: "a proof over other nonces (replayed)", raw: `{"proof":"` + Proof(testSecret, ProofLabelExtension, nonceS, nonceE) + `","profileId":"abc","label":"","tabs":[]}`, unproven: true},
		{name: "the control port's forwarder proof", raw: `{"proof":"` + Proof(testSecret, ProofLabelForwarder, nonceE, nonceS) + `","profileId":"abc","label":"","tabs":[]}`, unproven: true},
		{name: "malformed and unproven", raw: `{"profileId":7}`, unproven: true},
		{name: "not JSON", raw: `{`, unproven: true},
		{name: "proven but label wrong type", raw: `{` + pr + `,"profileId":"a","label":7,"tabs":[]}`, reasonHas: []string{`field "label"`, "string"}},
		{name: "proven but tabs wrong type", raw: `{` + pr + `,"profileId":"a","label":"","tabs":{}}`, reasonHas: []string{"tabs", "array"}},
		{name: "missing profileId", raw: `{` + pr + `,"label":"x","tabs":[]}`, reasonHas: []string{"profileId is missing"}},
		{name: "blank profileId", raw: `{` + pr + `,"profileId":"   ","label":"x","tabs":[]}`, reasonHas: []string{"profileId is missing"}},
		{name: "label too long", raw: `{` + pr + `,"profileId":"a","label":"` + strings.Repeat("x", MaxLabelLen+1) + `","tabs":[]}`, reasonHas: []string{"label is longer"}},
		{name: "profileId too long", raw: `{` + pr + `,"profileId":"` + strings.Repeat("x", MaxProfileIDLen+1) + `","label":"","tabs":[]}`, reasonHas: []string{"profileId is longer"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v := CheckAuth([]byte(tc.raw), sv, testSecret, nonceE, nonceS)
			if v.Accept != tc.accept || v.Unproven != tc.unproven {
				t.Fatalf("accept=%v unproven=%v, want %v %v (ack %+v)", v.Accept, v.Unproven, tc.accept, tc.unproven, v.Ack)
			}
			if tc.accept {
				if v.Auth.Slug != tc.wantSlug || v.Auth.Label != tc.wantLabel || len(v.Auth.Tabs) != tc.wantTabLen || v.Auth.Tabs == nil {
					t.Errorf("auth = %+v", v.Auth)
				}
				return
			}
			checkRejection(t, v.Ack, sv, false, tc.reasonHas)
		})
	}
	// No secret on the server: nothing proves.
	if v := CheckAuth([]byte(`{"proof":"`+Proof("", ProofLabelExtension, nonceE, nonceS)+`","profileId":"a"}`), sv, "", nonceE, nonceS); v.Accept || !v.Unproven {
		t.Errorf("a server without a secret accepted an auth: %+v", v)
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
	f.Add([]byte(`{"protocol":3,"extVersion":"0.3.0","nonce":"` + nonceE + `"}`))
	f.Add([]byte(`{"label":"old"}`))
	f.Add([]byte(`[]`))
	f.Add([]byte(`{"protocol":3,"extVersion":"0.3.0","nonce":"` + nonceE + `","codeId":"` + strings.Repeat("0a", 16) + `"}`))
	f.Add([]byte(`{"protocol":3,"extVersion":"0.3.0","nonce":"` + nonceE + `","codeId":"../../x"}`))
	f.Add([]byte(`{"protocol":1,"extVersion":"0.3.0","nonce":"` + nonceE + `"}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		v := CheckHello(raw, "1.0.0")
		if v.Accept == (v.Ack != nil) {
			t.Fatalf("verdict must carry an ack exactly when it rejects: %+v", v)
		}
		if v.Accept && v.Hello.CodeID != "" && !ValidPairCodeID(v.Hello.CodeID) {
			t.Fatalf("accepted a malformed code id: %+v", v.Hello)
		}
		if v.Accept && (v.Hello.Protocol != ProtocolVersion || len(v.Hello.Nonce) != 2*NonceSize) {
			t.Fatalf("accepted an invalid hello: %+v", v.Hello)
		}
	})
}

func FuzzCheckAuth(f *testing.F) {
	proof := Proof(testSecret, ProofLabelExtension, nonceE, nonceS)
	f.Add([]byte(`{"proof":"` + proof + `","profileId":"a","label":"b","tabs":[]}`))
	f.Add([]byte(`{"profileId":"a"}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		v := CheckAuth(raw, "1.0.0", testSecret, nonceE, nonceS)
		if v.Accept && (v.Auth.ProfileID == "" || !CheckProof(testSecret, ProofLabelExtension, nonceE, nonceS, v.Auth.Proof)) {
			t.Fatalf("accepted an invalid auth: %+v", v.Auth)
		}
		if !v.Accept && v.Ack.OK {
			t.Fatalf("a rejection says ok: %+v", v.Ack)
		}
	})
}
