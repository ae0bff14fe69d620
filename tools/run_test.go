package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/monkbrowse/monkbrowse/protocol"
)

// formPage is a fake tab holding a small form: its snapshot is made from
// its state, and the actions change the state as a page would.
type formPage struct {
	mu       sync.Mutex
	labels   map[string]string // ref → textbox name
	values   map[string]string // ref → value
	checked  bool
	sent     bool
	requests []string
	recs     []protocol.Recording
	cancel   func() // called after the first action, when set
	ask      string // the state an ask answers
}

func newFormPage() *formPage {
	return &formPage{labels: map[string]string{"e2": "Email", "e3": "Name"}, values: map[string]string{}}
}

func (p *formPage) snapshot() string {
	var b strings.Builder
	b.WriteString("- heading \"Sign up\" [level=1] [ref=e1]\n")
	for _, ref := range []string{"e2", "e3"} {
		if name, ok := p.labels[ref]; ok {
			fmt.Fprintf(&b, "- textbox %q [ref=%s]", name, ref)
			if v := p.values[ref]; v != "" {
				fmt.Fprintf(&b, ": %s", v)
			}
			b.WriteString("\n")
		}
	}
	mark := ""
	if p.checked {
		mark = " [checked]"
	}
	fmt.Fprintf(&b, "- checkbox \"I agree\"%s [ref=e4]\n- button \"Send\" [ref=e5]\n- button \"Send\" [ref=e6]\n", mark)
	if p.sent {
		b.WriteString("- text: Thanks!\n")
	}
	return b.String()
}

func (p *formPage) Profiles(context.Context, bool) ([]ProfileInfo, error) { return nil, nil }
func (p *formPage) WithTab(ctx context.Context, _ string, _ int, fn func(context.Context, Target, Session) error) error {
	return fn(ctx, Target{Slug: "work", TabID: 7, Slot: 1}, p)
}
func (p *formPage) WithProfile(ctx context.Context, _ string, fn func(context.Context, Target, Session) error) error {
	return fn(ctx, Target{Slug: "work"}, p)
}

func (p *formPage) Request(ctx context.Context, typ string, payload, out any) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	b, _ := json.Marshal(payload)
	p.requests = append(p.requests, typ+" "+string(b))
	var ans any = protocol.TabResult{TabID: 7}
	switch typ {
	case protocol.MsgSnapshot:
		ans = protocol.SnapshotResult{TabID: 7, URL: "https://a.test/form", Title: "Form", Snapshot: p.snapshot()}
	case protocol.MsgType:
		r := payload.(protocol.TypeRequest)
		p.values[r.Ref] = r.Text
	case protocol.MsgClick:
		r := payload.(protocol.ElementRequest)
		switch r.Ref {
		case "e4":
			p.checked = !p.checked
		case "e6":
			p.sent = true
		default:
			ans = protocol.TabResult{TabID: 7, Note: "The page showed no change after it."}
		}
	case protocol.MsgGetText:
		text := "Sign up"
		if p.sent {
			text += " Thanks!"
		}
		ans = protocol.TextResult{TabID: 7, Text: text}
	case protocol.MsgRecordings:
		ans = protocol.RecordingsResult{TabID: 7, Recordings: p.recs}
	case protocol.MsgAskUser:
		if p.ask == protocol.AskDone {
			p.values["e3"] = "typed by the person"
		}
		ans = protocol.AskResult{TabID: 7, AskID: "k1", State: p.ask}
	}
	if p.cancel != nil && typ != protocol.MsgSnapshot {
		p.cancel()
	}
	raw, _ := json.Marshal(ans)
	return json.Unmarshal(raw, out)
}

func runCall(t *testing.T, p *formPage, ctx context.Context, args string) (string, bool) {
	t.Helper()
	d := NewDispatcher(p, &Options{WaitPoll: 1})
	res, err := d.CallTool(WithClient(ctx, "app"), protocol.CallTool{Name: "browser_run", Args: json.RawMessage(args)})
	if err != nil {
		t.Fatal(err)
	}
	return res.Content[0].Text, res.IsError
}

const signupSteps = `[
	{"action":"type","target":{"role":"textbox","name":"Email"},"param":"email"},
	{"action":"type","target":{"role":"textbox","name":"Name"},"value":"{{first}} Lovelace"},
	{"action":"check","target":{"role":"checkbox","name":"I agree"}},
	{"action":"click","target":{"role":"button","name":"Send","nth":1}},
	{"action":"wait_for","value":"Thanks!"}]`

func TestRunFillsTheFormWithParams(t *testing.T) {
	p := newFormPage()
	out, isErr := runCall(t, p, context.Background(), `{"steps":`+signupSteps+`,"params":{"email":"ada@example.com","first":"Ada"}}`)
	if isErr {
		t.Fatalf("failed: %s", out)
	}
	if p.values["e2"] != "ada@example.com" || p.values["e3"] != "Ada Lovelace" || !p.checked || !p.sent {
		t.Errorf("page state %v checked=%v sent=%v\n%s", p.values, p.checked, p.sent, out)
	}
	if !strings.HasPrefix(out, "Ran 5 of 5 steps") || !strings.Contains(out, "Thanks!") {
		t.Errorf("answer:\n%s", out)
	}
	if strings.Contains(out, "healed") {
		t.Errorf("exact matches reported as healed:\n%s", out)
	}
}

func TestRunMissingParamRunsNothing(t *testing.T) {
	p := newFormPage()
	out, isErr := runCall(t, p, context.Background(), `{"steps":`+signupSteps+`,"params":{"first":"Ada","emial":"x"}}`)
	if !isErr || !strings.Contains(out, `needs a value for "email"`) || !strings.Contains(out, `no step uses the parameter "emial"`) {
		t.Fatalf("answer: %s", out)
	}
	for _, r := range p.requests {
		if !strings.HasPrefix(r, protocol.MsgSnapshot) {
			t.Errorf("sent %s before the parameters were complete", r)
		}
	}
}

func TestRunHealsARenamedLabelAndSaysHow(t *testing.T) {
	p := newFormPage()
	p.labels["e2"] = "E-mail address"
	out, isErr := runCall(t, p, context.Background(), `{"steps":`+signupSteps+`,"params":{"email":"ada@example.com","first":"Ada"}}`)
	if isErr || p.values["e2"] != "ada@example.com" {
		t.Fatalf("values %v:\n%s", p.values, out)
	}
	if !strings.Contains(out, `healed: no exact match; used textbox "E-mail address"`) {
		t.Errorf("the heal is not reported:\n%s", out)
	}
}

func TestRunStopsWhereTheTargetIsGone(t *testing.T) {
	p := newFormPage()
	delete(p.labels, "e3")
	out, isErr := runCall(t, p, context.Background(), `{"steps":`+signupSteps+`,"params":{"email":"ada@example.com","first":"Ada"}}`)
	if !isErr {
		t.Fatalf("no error:\n%s", out)
	}
	for _, want := range []string{"Ran 1 of 5 steps", "stopped at step 2 (type)", "Steps 2–5 were not run", "1. type textbox \"Email\" ← email", `- textbox "Email" [ref=e2]: ada@example.com`} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
	if p.checked || p.sent {
		t.Error("steps after the failed one ran")
	}
}

func TestRunStopsAtAStepWithoutEffect(t *testing.T) {
	p := newFormPage()
	out, isErr := runCall(t, p, context.Background(), `{"steps":[{"action":"click","target":{"role":"button","name":"Send"}},{"action":"check","target":{"role":"checkbox","name":"I agree"}}]}`)
	if !isErr || !strings.Contains(out, "stopped at step 1 (click)") || !strings.Contains(out, "no effect") || p.checked {
		t.Fatalf("answer:\n%s", out)
	}
}

func TestRunStaleRefFallsBackToRoleAndName(t *testing.T) {
	p := newFormPage()
	out, isErr := runCall(t, p, context.Background(), `{"steps":[{"action":"type","target":{"ref":"e99","role":"textbox","name":"Name"},"value":"Ada"}]}`)
	if isErr || p.values["e3"] != "Ada" || !strings.Contains(out, "ref e99 was stale; found by role and name") {
		t.Fatalf("values %v:\n%s", p.values, out)
	}
}

func TestRunCancelEndsItBetweenSteps(t *testing.T) {
	p := newFormPage()
	ctx, cancel := context.WithCancel(context.Background())
	p.cancel = cancel
	out, _ := runCall(t, p, ctx, `{"steps":`+signupSteps+`,"params":{"email":"ada@example.com","first":"Ada"}}`)
	if p.values["e3"] != "" || p.checked || p.sent {
		t.Errorf("steps ran after the cancel: %v\n%s", p.values, out)
	}
	if !strings.Contains(out, "Ran 1 of 5") || !strings.Contains(out, "the run ended at step 2 (type)") || !strings.Contains(out, "cancelled") {
		t.Errorf("answer:\n%s", out)
	}
}

func TestRunRecordingSecretHandsOffAndSendsNoValue(t *testing.T) {
	p := newFormPage()
	p.ask = protocol.AskDone
	p.recs = []protocol.Recording{{Name: "Sign up", Params: []protocol.RecordingParam{{Name: "email", Example: "a@b.c"}, {Name: "pw", Secret: true}},
		Steps: []protocol.Step{
			{Action: protocol.StepType, Target: &protocol.StepTarget{Role: "textbox", Name: "Email"}, Param: "email"},
			{Action: protocol.StepType, Target: &protocol.StepTarget{Role: "textbox", Name: "Name"}, Param: "pw", Secret: true},
		}}}
	out, isErr := runCall(t, p, context.Background(), `{"recording":"Sign up","params":{"email":"x@y.z"}}`)
	if isErr || p.values["e2"] != "x@y.z" || p.values["e3"] != "typed by the person" {
		t.Fatalf("values %v:\n%s", p.values, out)
	}
	for _, r := range p.requests {
		if strings.HasPrefix(r, protocol.MsgType) && strings.Contains(r, `"e3"`) {
			t.Errorf("the secret step was typed by monkbrowse: %s", r)
		}
	}
	p2 := newFormPage()
	p2.ask, p2.recs = protocol.AskPending, p.recs
	out, isErr = runCall(t, p2, context.Background(), `{"recording":"Sign up","params":{"email":"x@y.z"}}`)
	if !isErr || !strings.Contains(out, `waitId "k1"`) {
		t.Fatalf("pending ask:\n%s", out)
	}
}

func TestResolveTargetNearAndNth(t *testing.T) {
	snap := "- row [ref=e1]:\n  - cell \"Ada\" [ref=e2]\n  - button \"Delete\" [ref=e3]\n- row [ref=e4]:\n  - cell \"Grace\" [ref=e5]\n  - button \"Delete\" [ref=e6]\n"
	for _, c := range []struct {
		t    protocol.StepTarget
		want string
	}{
		{protocol.StepTarget{Role: "button", Name: "Delete"}, "e3"},
		{protocol.StepTarget{Role: "button", Name: "Delete", Nth: 1}, "e6"},
		{protocol.StepTarget{Role: "button", Name: "Delete", Near: "Grace"}, "e6"},
		{protocol.StepTarget{Role: "link", Name: "delete"}, "e3"[:0]},
	} {
		r, err := resolveTarget(snap, c.t)
		if c.want == "" {
			if err == nil {
				t.Errorf("%+v: found %s, want an ambiguity", c.t, r.ref)
			}
			continue
		}
		if err != nil || r.ref != c.want {
			t.Errorf("%+v: got %s (%v), want %s", c.t, r.ref, err, c.want)
		}
	}
}

func TestRunStopNamesTheRecordingsSite(t *testing.T) {
	p := newFormPage()
	p.recs = []protocol.Recording{{Name: "Shop", Site: "https://shop.test", Steps: []protocol.Step{
		{Action: protocol.StepClick, Target: &protocol.StepTarget{Role: "button", Name: "Buy"}},
	}}}
	out, isErr := runCall(t, p, context.Background(), `{"recording":"Shop"}`)
	if !isErr || !strings.Contains(out, "The recording was made on https://shop.test; the tab was on https://a.test/form when the run began.") {
		t.Fatalf("answer:\n%s", out)
	}
}

func TestRunSecretFilledBeforehandIsNotAskedAgain(t *testing.T) {
	p := newFormPage()
	p.values["e3"] = "•••"
	p.recs = []protocol.Recording{{Name: "Sign up", Steps: []protocol.Step{
		{Action: protocol.StepType, Target: &protocol.StepTarget{Role: "textbox", Name: "Name"}, Param: "pw", Secret: true},
		{Action: protocol.StepCheck, Target: &protocol.StepTarget{Role: "checkbox", Name: "I agree"}},
	}}}
	out, isErr := runCall(t, p, context.Background(), `{"recording":"Sign up"}`)
	if isErr || !p.checked || !strings.Contains(out, "already filled in before the run") {
		t.Fatalf("answer:\n%s", out)
	}
	for _, r := range p.requests {
		if strings.HasPrefix(r, protocol.MsgAskUser) || strings.HasPrefix(r, protocol.MsgType) {
			t.Errorf("sent %s for a secret the person had entered", r)
		}
	}
}
