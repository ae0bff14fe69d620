package tools

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/monkbrowse/monkbrowse/protocol"
)

// askFake answers ask_user with a new ask and ask_wait from states, one
// per wait, recording the waits asked for; snapshots come from snaps in
// turn.
type askFake struct {
	states []string
	waits  []protocol.AskWaitRequest
	snaps  []string
	asked  []protocol.AskUserRequest
}

func (f *askFake) answer(typ string, payload any, out any) error {
	switch typ {
	case protocol.MsgAskUser:
		f.asked = append(f.asked, payload.(protocol.AskUserRequest))
		*out.(*protocol.AskResult) = protocol.AskResult{TabID: 7, AskID: "k3v9", State: protocol.AskPending, Created: time.Now().UnixMilli()}
	case protocol.MsgAskWait:
		w := payload.(protocol.AskWaitRequest)
		f.waits = append(f.waits, w)
		st := f.states[0]
		f.states = f.states[1:]
		*out.(*protocol.AskResult) = protocol.AskResult{TabID: 7, AskID: w.AskID, State: st, AnsweredIn: "page"}
	case protocol.MsgSnapshot:
		s := f.snaps[0]
		f.snaps = f.snaps[1:]
		*out.(*protocol.SnapshotResult) = protocol.SnapshotResult{TabID: 7, URL: "https://example.com/login", Title: "Sign in", Snapshot: s}
	}
	return nil
}

func call(t *testing.T, d *Dispatcher, ctx context.Context, name string, args any) protocol.CallToolResult {
	t.Helper()
	b, _ := json.Marshal(args)
	res, err := d.CallTool(WithClient(ctx, "app"), protocol.CallTool{Name: name, Args: b})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestAskUserAcrossAWaitID: the first call answers with a waitId while the
// person has not answered; the continuation gets Done and the page's
// changes since the AI's last snapshot (the diff, not the whole page).
func TestAskUserAcrossAWaitID(t *testing.T) {
	before := "- heading \"Sign in\" [level=1] [ref=e1]\n- textbox \"Email\" [ref=e2]\n- button \"Next\" [ref=e3]\n" + strings.Repeat("- link \"Help\" [ref=e9]\n", 1) + "- paragraph [ref=e10]: a long unchanged part of the page\n- paragraph [ref=e11]: another unchanged part\n"
	after := strings.Replace(before, "- textbox \"Email\" [ref=e2]", "- textbox \"Email\" [ref=e2]: ada@example.com\n- text: Welcome back", 1)
	f := &askFake{states: []string{protocol.AskPending, protocol.AskDone}, snaps: []string{before, after}}
	d := NewDispatcher(fakeBrowser{answer: f.answer}, nil)
	ctx := context.Background()
	if r := call(t, d, ctx, "browser_snapshot", map[string]any{}); r.IsError {
		t.Fatal(r.Content[0].Text)
	}
	r := call(t, d, ctx, "browser_ask_user", map[string]any{"message": "Please sign in, then press Done."})
	text := r.Content[0].Text
	if r.IsError || !strings.Contains(text, `waitId "k3v9"`) || !strings.Contains(text, "not answered yet") {
		t.Fatalf("first slice: %s", text)
	}
	if len(f.asked) != 1 || f.asked[0].Message != "Please sign in, then press Done." || f.asked[0].TabID != 7 {
		t.Fatalf("asked %+v", f.asked)
	}
	if f.waits[0].WaitMs != int(DefaultAskSlice/time.Millisecond) {
		t.Errorf("the first slice waited %d ms, want the default slice", f.waits[0].WaitMs)
	}
	r = call(t, d, ctx, "browser_ask_user", map[string]any{"waitId": "k3v9"})
	text = r.Content[0].Text
	if r.IsError || !strings.Contains(text, "pressed Done (in the page)") {
		t.Fatalf("continuation: %s", text)
	}
	if !strings.Contains(text, DiffHeading) || !strings.Contains(text, "Welcome back") || strings.Contains(text, "another unchanged part") {
		t.Errorf("the answer does not carry the diff since the AI's last snapshot:\n%s", text)
	}
	// Answered and reported: the waitId is used up.
	r = call(t, d, ctx, "browser_ask_user", map[string]any{"waitId": "k3v9"})
	if !r.IsError || !strings.Contains(r.Content[0].Text, "no ask waiting") {
		t.Errorf("a used-up waitId: %+v", r)
	}
}

func TestAskUserDeclinedAndRefusals(t *testing.T) {
	f := &askFake{states: []string{protocol.AskDeclined}, snaps: []string{"- button \"Buy\" [ref=e1]\n"}}
	d := NewDispatcher(fakeBrowser{answer: f.answer}, nil)
	ctx := context.Background()
	r := call(t, d, ctx, "browser_ask_user", map[string]any{"message": "May I buy it?"})
	if r.IsError || !strings.Contains(r.Content[0].Text, "pressed Decline") || !strings.Contains(r.Content[0].Text, "do not do this step") {
		t.Fatalf("declined: %+v", r)
	}
	for _, c := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{}, "needs `message`"},
		{map[string]any{"message": "  "}, "needs `message`"},
		{map[string]any{"message": "x", "waitId": "k3v9"}, "not both"},
		{map[string]any{"waitId": "nope"}, "no ask waiting"},
		{map[string]any{"message": strings.Repeat("a", maxAskMessage+1)}, "at most 500"},
	} {
		if r := call(t, d, ctx, "browser_ask_user", c.args); !r.IsError || !strings.Contains(r.Content[0].Text, c.want) {
			t.Errorf("%v: %+v", c.args, r)
		}
	}
}

// TestAskSliceFitsTheBudget: a call with less budget left waits less, so
// it answers with its waitId before the budget ends.
func TestAskSliceFitsTheBudget(t *testing.T) {
	f := &askFake{states: []string{protocol.AskPending}}
	d := NewDispatcher(fakeBrowser{answer: f.answer}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	r := call(t, d, ctx, "browser_ask_user", map[string]any{"message": "Solve the CAPTCHA, please."})
	if r.IsError {
		t.Fatal(r.Content[0].Text)
	}
	if w := f.waits[0].WaitMs; w <= 0 || w > int((10*time.Second-askReserve)/time.Millisecond) {
		t.Errorf("with 10 s of budget the slice is %d ms", w)
	}
	// The option sets the slice.
	f = &askFake{states: []string{protocol.AskPending}}
	d = NewDispatcher(fakeBrowser{answer: f.answer}, &Options{AskSlice: 1500 * time.Millisecond})
	call(t, d, context.Background(), "browser_ask_user", map[string]any{"message": "x"})
	if w := f.waits[0].WaitMs; w != 1500 {
		t.Errorf("AskSlice 1.5 s waited %d ms", w)
	}
}
