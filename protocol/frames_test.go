package protocol

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/monkbrowse/monkbrowse/messaging"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

// The golden frames are held to the production codec, messaging.Frame: the
// files are written by Frame.Encode and every one must decode and re-encode to
// its own bytes. (protocol's tests may use messaging; messaging never imports
// protocol.)
type frame = messaging.Frame

func marshal(t testing.TB, v any) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // the wire's rule: no HTML escaping (U+2028/9 escaped)
	if err := enc.Encode(v); err != nil {
		t.Fatalf("encode %T: %v", v, err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

type vector struct {
	name string // file name without .json
	f    frame
	// payloadType is the Go type the payload or result decodes into.
	payloadType any
}

func req(t testing.TB, typ, id string, payload any) vector {
	return vector{name: typ + ".req", f: frame{K: "req", ID: id, Type: typ, Payload: marshal(t, payload)}, payloadType: payload}
}

func res(t testing.TB, typ, id, variant string, result any) vector {
	ok := true
	name := typ + ".res"
	if variant != "" {
		name += "." + variant
	}
	return vector{name: name, f: frame{K: "res", ID: id, OK: &ok, Result: marshal(t, result)}, payloadType: result}
}

func resErr(typ, id, msg string) vector {
	ok := false
	name := typ + ".res.error"
	if strings.ContainsRune(msg, '\u2028') {
		name += ".unicode"
	}
	return vector{name: name, f: frame{K: "res", ID: id, OK: &ok, Error: msg}}
}

// withCode gives an error vector its code; the file name gains the code
// unless the vector is the message's only error response.
func withCode(v vector, code string) vector {
	v.f.Code = code
	if code != CodeNotShared {
		v.name += "." + code
	}
	return v
}

// unicodeSample holds what encoders disagree on: HTML characters, the line and
// paragraph separators, astral characters (surrogate pairs in JavaScript),
// quotes and control characters.
const unicodeSample = "a<b && c>d </script>\u2028line\u2029para 😀 𝄞 é \"q\" \\ \t\x01"

// The control proof's sample inputs: with these, the proofs in the golden
// frames fwd_hello.res and fwd_auth.req are what another implementation
// must compute (proof_test.go checks them against HMAC-SHA256 directly).
const (
	sampleToken  = "5f0c9a3e7b1d2c4a6e8f0a1b3c5d7e9f11223344556677889900aabbccddeeff"
	sampleNonceF = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
	sampleNonceO = "f0f1f2f3f4f5f6f7f8f9fafbfcfdfeffe0e1e2e3e4e5e6e7e8e9eaebecedeeef"
)

func withName(v vector, name string) vector { v.name = name; return v }

var sampleTabs = []TabInfo{
	{TabID: 1843, Slot: 1, URL: "https://example.com/login", Title: "Sign in", Active: true, WindowID: 7},
	{TabID: 1850, Slot: 2, URL: "https://example.com/docs?page=2", Title: "Docs — page 2", Active: false, WindowID: 7},
}

// vectors is every golden frame: each wire message in both directions, error
// responses, the handshake (current and 0.2), tabs_changed, ping and pong, and
// the control messages.
func vectors(t testing.TB) []vector {
	samples := map[string][2]any{
		MsgNavigate:       {NavigateRequest{URL: "https://example.com/", TabID: 1843}, TabResult{TabID: 1843}},
		MsgGoBack:         {TabRequest{TabID: 1843}, TabResult{TabID: 1843}},
		MsgGoForward:      {TabRequest{}, TabResult{TabID: 1843}},
		MsgReload:         {TabRequest{TabID: 1843}, TabResult{TabID: 1843}},
		MsgClick:          {ElementRequest{Ref: "e7", Element: "Continue button", TabID: 1843}, TabResult{TabID: 1843, Dialogs: []Dialog{{Type: "confirm", Message: "Delete 3 files?", Accepted: false, Armed: false}}}},
		MsgHover:          {ElementRequest{Ref: "e12", Element: "Account menu"}, TabResult{TabID: 1843}},
		MsgType:           {TypeRequest{Ref: "e4", Element: "Email field", Text: "ada@example.com", Submit: true, TabID: 1843}, TabResult{TabID: 1843}},
		MsgSelectOption:   {SelectOptionRequest{Ref: "e9", Element: "Country", Values: []string{"fr", "Germany"}, TabID: 1843}, TabResult{TabID: 1843}},
		MsgPressKey:       {PressKeyRequest{Key: "Ctrl+A", TabID: 1843}, TabResult{TabID: 1843}},
		MsgScroll:         {ScrollRequest{Direction: "down", Amount: 600, TabID: 1843}, TabResult{TabID: 1843}},
		MsgDrag:           {DragRequest{StartRef: "e20", EndRef: "e21", TabID: 1843}, TabResult{TabID: 1843}},
		MsgUploadFile:     {UploadFileRequest{Ref: "e30", Name: "notes.txt", Data: "aGVsbG8K", TabID: 1843}, TabResult{TabID: 1843}},
		MsgGetConsoleLogs: {TabRequest{TabID: 1843}, ConsoleLogsResult{TabID: 1843, Logs: []ConsoleEntry{{Level: "warn", Text: "deprecated API", Time: 1764500000123}, {Level: "dialog", Text: "confirm(\"Delete?\") → true", Time: 1764500000456}}}},
		MsgScreenshot:     {TabRequest{TabID: 1850}, ScreenshotResult{TabID: 1850, Data: "iVBORw0KGgo="}},
		MsgSnapshot:       {TabRequest{TabID: 1843}, SnapshotResult{TabID: 1843, URL: "https://example.com/login", Title: "Sign in", Snapshot: "- heading \"Sign in\" [level=1] [ref=e3]\n- textbox \"Email\" [ref=e4]: ada@example.com\n- button \"Continue\" [disabled] [ref=e7]"}},
		MsgGetText:        {GetTextRequest{Ref: "e3", TabID: 1843}, TextResult{TabID: 1843, Text: "Sign in"}},
		MsgEvaluate:       {EvaluateRequest{Expression: "document.links.length", TabID: 1843}, EvaluateResult{TabID: 1843, Result: float64(12)}},
		MsgGetURL:         {TabRequest{TabID: 1843}, URLResult{TabID: 1843, URL: "https://example.com/login"}},
		MsgGetTitle:       {TabRequest{}, TitleResult{TabID: 1843, Title: "Sign in"}},
		MsgListTabs:       {ListTabsRequest{}, ListTabsResult{Tabs: sampleTabs}},
		MsgSwitchTab:      {SwitchTabRequest{TabID: 1850}, SwitchTabResult{ActiveTabID: 1850}},
		MsgNewTab:         {NewTabRequest{URL: "https://example.org/"}, NewTabResult{TabID: 1901, Slot: 3}},
		MsgCloseTab:       {CloseTabRequest{TabID: 1850}, TabResult{TabID: 1850}},
		MsgFillForm:       {FillFormRequest{Fields: []FormFieldValue{{Ref: "e4", Element: "Email", Value: "ada@example.com"}, {Ref: "e5", Element: "Remember me", Value: "true"}}, TabID: 1843}, TabResult{TabID: 1843}},
		MsgClickXY:        {ClickXYRequest{X: 120, Y: 80.5, TabID: 1843}, TabResult{TabID: 1843}},
		MsgDragXY:         {DragXYRequest{StartX: 10, StartY: 20, EndX: 200, EndY: 20, TabID: 1843}, TabResult{TabID: 1843}},
		MsgNetwork: {NetworkRequestsRequest{TabID: 1843, Filter: "/api/", Since: 3}, NetworkRequestsResult{TabID: 1843, URL: "https://example.com/login", Total: 9, Requests: []NetworkRequest{
			{ID: 4, Method: "GET", URL: "https://example.com/api/me", Type: "xmlhttprequest", Status: 200, StatusText: "OK", Size: 312, MimeType: "application/json", Start: 1764500000123, Duration: 41.5, State: "done"},
			{ID: 5, Method: "POST", URL: "https://example.com/api/track", Type: "ping", Start: 1764500000200, State: "failed", Error: "net::ERR_BLOCKED_BY_CLIENT"},
		}}},
		MsgDownloads: {DownloadsRequest{Wait: &DownloadsWait{URLContains: "report", TimeoutMs: 20000}}, DownloadsResult{Waited: true, Matched: 7, Downloads: []DownloadInfo{
			{ID: 7, URL: "https://example.com/report.csv", Filename: "/home/ada/Downloads/report.csv", Mime: "text/csv", BytesReceived: 2048, TotalBytes: 2048, State: "complete", Start: 1764500000123, End: 1764500000456, TabID: 1843},
		}}},
		MsgPDF:          {TabRequest{TabID: 1843}, PDFResult{TabID: 1843, Path: "/home/ada/Downloads/Sign in.pdf", Size: 48213}},
		MsgHandleDialog: {HandleDialogRequest{Accept: true, PromptText: ptr("Ada"), TabID: 1843}, TabResult{TabID: 1843}},
		MsgAskUser:      {AskUserRequest{TabID: 1843, Message: "Please sign in, then press Done.", WaitMs: 0, AskID: "5f0c2a9e7b1d"}, AskResult{TabID: 1843, AskID: "5f0c2a9e7b1d", State: AskPending, Created: 1764500000123}},
		MsgAskWait:      {AskWaitRequest{AskID: "k3v9q2", WaitMs: 50000}, AskResult{TabID: 1843, AskID: "k3v9q2", State: AskDone, AnsweredIn: "page", Created: 1764500000123}},
		MsgAskEnd:       {AskEndRequest{AskID: "k3v9q2", Why: "the AI app cancelled the call that waited for it"}, AskEndResult{Ended: true}},
		MsgPersonEdits: {PersonEditsRequest{TabID: 1843, Since: ptr(int64(4))}, PersonEditsResult{TabID: 1843, Seq: 7, Edits: []PersonEdit{
			{Seq: 5, Kind: "typed", Role: "textbox", Name: "Notes", Ref: "e12", Count: 3},
			{Seq: 7, Kind: "clicked", Role: "button", Name: "Save", Ref: "e15"},
		}}},
		MsgRecordings: {RecordingsRequest{TabID: 1843, Name: "Sign up", Format: RecordingsPlaywright}, RecordingsResult{TabID: 1843, Recordings: []Recording{{
			Name: "Sign up", Site: "https://example.com", Created: "2026-12-04T22:00:00Z", Params: []RecordingParam{{Name: "email", Example: "ada@example.com"}, {Name: "password", Secret: true}},
			Steps: []Step{{Action: StepType, Target: &StepTarget{Role: "textbox", Name: "Email"}, Param: "email"}, {Action: StepType, Target: &StepTarget{Role: "textbox", Name: "Password"}, Param: "password", Secret: true}, {Action: StepClick, Target: &StepTarget{Role: "button", Name: "Sign up", Nth: 1}}},
		}}, Export: "import { test } from \"@playwright/test\";\n"}},
		MsgGetSelection: {TabRequest{TabID: 1843}, GetSelectionResult{TabID: 1843, Pointed: true, Refs: []string{"e21", "e20"}, Role: "paragraph", Text: "the quick brown fox", URL: "https://example.com/notes", At: 1764500000123}},
		MsgSiteTools: {TabRequest{TabID: 1843}, SiteToolsResult{TabID: 1843, Tools: []SiteTool{
			{Name: "search_products", Title: "Search", Description: "Find products by name.", InputSchema: json.RawMessage(`{"type":"object","properties":{"query":{"type":"string"}},"required":["query"]}`), ReadOnly: true, Origin: "https://shop.example", Frame: 0},
			{Name: "pay", Description: "Pay the order.", Consequential: true, Origin: "https://pay.example", Frame: 12},
		}}},
		MsgSiteToolCall: {SiteToolCallRequest{TabID: 1843, Name: "search_products", Arguments: json.RawMessage(`{"query":"tea"}`)}, SiteToolCallResult{TabID: 1843,
			Tool: SiteTool{Name: "search_products", ReadOnly: true, Origin: "https://shop.example"}, Consent: SiteConsentReadOnly, Result: `[{"name":"Green tea","price":4.5}]`}},
	}
	var vs []vector
	for i, w := range WireMessages {
		s, ok := samples[w.Type]
		if !ok {
			t.Fatalf("no golden sample for wire type %s", w.Type)
		}
		id := fmt.Sprint(i + 1)
		vs = append(vs, req(t, w.Type, id, s[0]), res(t, w.Type, id, "", s[1]))
	}
	vs = append(vs,
		resErr(MsgClick, "5", "ref e7 is not on the page any more (the page changed); take a new browser_snapshot and use a ref from it"),
		withCode(resErr(MsgNavigate, "1", "tab 1850 is not shared with the AI; the user can share it from the monkbrowse popup"), CodeNotShared),
		withCode(resErr(MsgClick, "6", "tab 1850 does not exist any more (it was closed)"), CodeTabGone),
		withCode(resErr(MsgCallTool, "2", "monkbrowse owner is handing over to another process; the call was not run"), CodeOwnerLeaving),
		resErr(MsgEvaluate, "17", "this page's Content Security Policy blocks evaluating scripts"),
		req(t, MsgHello, "1", Hello{Protocol: ProtocolVersion, ExtVersion: "0.3.0", Nonce: sampleNonceF}),
		res(t, MsgHello, "1", "accepted", ProofAck(Version, sampleToken, sampleNonceF, sampleNonceO)),
		res(t, MsgHello, "1", "rejected", CheckHello([]byte(`{"protocol":4,"extVersion":"0.5.0","nonce":"`+sampleNonceF+`"}`), Version).Ack),
		res(t, MsgHello, "1", "protocol1", CheckHello([]byte(`{"protocol":1,"profileId":"p","label":"","extVersion":"0.3.0","tabs":[]}`), Version).Ack),
		req(t, MsgAuth, "2", Auth{Proof: Proof(sampleToken, ProofLabelExtension, sampleNonceF, sampleNonceO), ProfileID: "6f1c2b1e-8d7a-4a51-9d0e-0b7f9a0c1d2e", Label: "Work", Slug: "work", Tabs: sampleTabs}),
		res(t, MsgAuth, "2", "accepted", AcceptAck(Version, "Work", "work")),
		res(t, MsgAuth, "2", "rejected", RejectAck(Version, NotPairedReason)),
		res(t, MsgHello, "1", "legacy", CheckHello([]byte(`{"profileId":"p","label":"Home"}`), Version).Ack),
		vector{name: MsgTabsChanged + ".ntf", f: frame{K: "ntf", Type: MsgTabsChanged, Payload: marshal(t, TabsChanged{Tabs: sampleTabs})}, payloadType: TabsChanged{}},
		vector{name: MsgRefused + ".ntf", f: frame{K: "ntf", Type: MsgRefused, Payload: marshal(t, Refused{Tool: "browser_click", TabID: 1843, App: "Cursor"})}, payloadType: Refused{}},
		vector{name: "ping", f: frame{K: "png"}},
		vector{name: "pong", f: frame{K: "pog"}},
		req(t, MsgFwdHello, "1", FwdHello{PID: 41234, Version: Version, Nonce: sampleNonceF}),
		res(t, MsgFwdHello, "1", "", FwdHelloAck{OK: true, Version: Version, Auth: AuthScheme, Nonce: sampleNonceO, Proof: Proof(sampleToken, ProofLabelOwner, sampleNonceF, sampleNonceO)}),
		res(t, MsgFwdHello, "1", "rejected", FwdHelloAck{OK: false, Version: Version, Auth: AuthScheme, Reason: UpdateForwarderReason("0.3.0", 41234, Version)}),
		withName(req(t, MsgFwdHello, "1", LegacyFwdHello{PID: 41234, Version: "0.3.0", Token: strings.Repeat("ab", 32)}), "fwd_hello.req.legacy"),
		req(t, MsgFwdAuth, "2", FwdAuth{Proof: Proof(sampleToken, ProofLabelForwarder, sampleNonceF, sampleNonceO)}),
		res(t, MsgFwdAuth, "2", "", FwdAuthAck{OK: true, PID: 41200, App: "claude-code", CallSent: true}),
		res(t, MsgFwdAuth, "2", "rejected", FwdAuthAck{OK: false, Reason: "wrong control token"}),
		req(t, MsgCallTool, "2", CallTool{Name: "browser_click", Args: json.RawMessage(`{"element":"Continue button","ref":"e7","tab":1}`), Ref: "7"}),
		res(t, MsgCallTool, "2", "", CallToolResult{Content: []ContentItem{{Type: "text", Text: "Clicked Continue button"}}}),
		res(t, MsgCallTool, "2", "tool_error", CallToolResult{Content: []ContentItem{{Type: "text", Text: "tab 9 is not shared"}}, IsError: true}),
		req(t, MsgCallSent, "1", CallSent{Ref: "7"}),
		res(t, MsgCallSent, "1", "", struct{}{}),
		vector{name: MsgOwnerLeaving + ".ntf", f: frame{K: "ntf", Type: MsgOwnerLeaving, Payload: marshal(t, OwnerLeaving{})}, payloadType: OwnerLeaving{}},
		req(t, MsgStatus, "3", Status{}),
		res(t, MsgStatus, "3", "", StatusResult{OwnerPID: 41200, Version: Version, OwnerSince: 1764500000000, ControlPort: 9219, ExtensionPort: 9222,
			Forwarders: []ForwarderInfo{{PID: 41234, Version: Version, Connected: 1764500001000}},
			Profiles:   []ProfileStatus{{ProfileID: "6f1c2b1e-8d7a-4a51-9d0e-0b7f9a0c1d2e", Label: "Work", Slug: "work", Connected: true, Tabs: sampleTabs}}}),
		// The one encoding rule (DECISIONS "One encoding rule"): <, >, & written as
		// they are, U+2028 and U+2029 escaped, astral characters literal.
		vector{name: MsgType + ".req.unicode", f: frame{K: "req", ID: "7", Type: MsgType, Payload: marshal(t, TypeRequest{Ref: "e4", Element: "Comment <textarea>", Text: unicodeSample, TabID: 1843})}, payloadType: TypeRequest{}},
		res(t, MsgGetText, "16", "unicode", TextResult{TabID: 1843, Text: unicodeSample}),
		resErr(MsgClick, "5", "ref e7 (<button> \"Save & close\") is not on the page any more\u2028\u2029take a new browser_snapshot 😀"),
	)
	// Typed payloads for the handshake results, which vary by variant.
	for i := range vs {
		switch vs[i].name {
		case "hello.res.legacy":
			vs[i].payloadType = LegacyHelloAck{}
		case "hello.res.accepted", "hello.res.rejected", "hello.res.protocol1", "auth.res.accepted", "auth.res.rejected":
			vs[i].payloadType = HelloAck{}
		}
	}
	return vs
}

// TestGoldenFrames holds messaging's codec and protocol's types to the golden
// files: messaging.DecodeFrame then Frame.Encode gives the file's bytes, and
// so does decoding the payload or result into its Go type and marshalling it
// again. The extension's tests (lib/frame.test.ts) read the same files.
func TestGoldenFrames(t *testing.T) {
	dir := filepath.Join("testdata", "frames")
	vs := vectors(t)
	if *update {
		os.RemoveAll(dir)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, v := range vs {
			b, err := v.f.Encode()
			if err != nil {
				t.Fatalf("%s: %v", v.name, err)
			}
			if err := os.WriteFile(filepath.Join(dir, v.name+".json"), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	want := map[string]bool{}
	for _, v := range vs {
		want[v.name+".json"] = true
		t.Run(v.name, func(t *testing.T) {
			golden, err := os.ReadFile(filepath.Join(dir, v.name+".json"))
			if err != nil {
				t.Fatalf("%v (run go test -update)", err)
			}
			f, err := messaging.DecodeFrame(golden)
			if err != nil {
				t.Fatalf("messaging.DecodeFrame: %v", err)
			}
			if got, err := f.Encode(); err != nil || !bytes.Equal(got, golden) {
				t.Errorf("messaging re-encodes the golden frame differently (err %v)\n got: %s\nwant: %s", err, got, golden)
			}
			body := &f.Payload
			if f.K == messaging.KindResponse {
				body = &f.Result
			}
			if v.payloadType != nil {
				typed := reflect.New(reflect.TypeOf(v.payloadType))
				pd := json.NewDecoder(bytes.NewReader(*body))
				pd.DisallowUnknownFields()
				if err := pd.Decode(typed.Interface()); err != nil {
					t.Fatalf("decode %T: %v", v.payloadType, err)
				}
				*body = marshal(t, typed.Elem().Interface())
			}
			if got, err := f.Encode(); err != nil || !bytes.Equal(got, golden) {
				t.Errorf("typed payload re-encodes differently (err %v)\n got: %s\nwant: %s", err, got, golden)
			}
		})
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var extra []string
	for _, e := range entries {
		if !want[e.Name()] {
			extra = append(extra, e.Name())
		}
	}
	sort.Strings(extra)
	if len(extra) > 0 {
		t.Errorf("golden files with no vector (run go test -update): %v", extra)
	}
}

// TestGoldenFramesCoverCatalog makes sure a new wire message cannot be added
// without request and response vectors.
func TestGoldenFramesCoverCatalog(t *testing.T) {
	names := map[string]bool{}
	for _, v := range vectors(t) {
		names[v.name] = true
	}
	for _, w := range WireMessages {
		for _, suffix := range []string{".req", ".res"} {
			if !names[w.Type+suffix] {
				t.Errorf("no golden vector %s%s", w.Type, suffix)
			}
		}
	}
}

func ptr[T any](v T) *T { return &v }
