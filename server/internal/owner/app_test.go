package owner

import (
	"encoding/json"
	"testing"

	"github.com/monkbrowse/monkbrowse/protocol"
)

// TestRequestsCarryTheApp: the calling app's name is added to a request's
// own fields, and an empty request becomes {"app":…}.
func TestRequestsCarryTheApp(t *testing.T) {
	for _, tc := range []struct {
		payload any
		want    string
	}{
		{protocol.ElementRequest{Ref: "e1", Element: "Save", TabID: 3}, `{"app":"Claude \"Code\"","ref":"e1","element":"Save","tabId":3}`},
		{protocol.ListTabsRequest{}, `{"app":"Claude \"Code\""}`},
	} {
		b, err := json.Marshal(withApp(tc.payload, `Claude "Code"`))
		if err != nil || string(b) != tc.want {
			t.Errorf("withApp(%+v) = %s (%v), want %s", tc.payload, b, err, tc.want)
		}
	}
	// The wire's encoding, once (issue 39): the payload's text and the
	// app's name keep <, > and & as they are, as messaging writes every
	// other payload, not json.Marshal's \u003c.
	raw, ok := withApp(protocol.TypeRequest{Ref: "e1", Element: "<b> & co", Text: "a<b>"}, "R&D <bot>").(json.RawMessage)
	if want := `{"app":"R&D <bot>","ref":"e1","element":"<b> & co","text":"a<b>"`; !ok || len(raw) < len(want) || string(raw[:len(want)]) != want {
		t.Errorf("withApp = %s, want it to start %s", raw, want)
	}
	if got := withApp(protocol.TabRequest{TabID: 1}, ""); got != (protocol.TabRequest{TabID: 1}) {
		t.Errorf("no app: the payload should be unchanged, got %#v", got)
	}
}
