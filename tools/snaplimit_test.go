package tools

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/monkbrowse/monkbrowse/protocol"
)

// TestSnapshotLimitRequestAndLimitedAnswer: a page-wide browser_snapshot
// passes the traversal limit for its budget; browser_find, element parts and
// action snapshots pass none. A limited answer says the page goes on (first
// part and the cursor's last part) and does not replace the diff base.
func TestSnapshotLimitRequestAndLimitedAnswer(t *testing.T) {
	full, _ := bigSnapshot(2000)
	snap := protocol.SnapshotResult{URL: "http://x.test/", Title: "Big", Snapshot: full}
	var stops []int
	var limited *protocol.SnapshotResult // the answer to a limited request, when set
	d := NewDispatcher(fakeBrowser{answer: func(typ string, payload any, out any) error {
		if typ != protocol.MsgSnapshot {
			return nil
		}
		answer := snap
		switch p := payload.(type) {
		case protocol.SnapshotRequest:
			stops = append(stops, p.StopAfterChars)
			if limited != nil {
				answer = *limited
			}
		default:
			stops = append(stops, 0)
		}
		b, _ := json.Marshal(answer)
		return json.Unmarshal(b, out)
	}}, nil)

	// Not limited (the page fit): the diff base is remembered.
	callRaw(t, d, "browser_snapshot", `{}`)
	callRaw(t, d, "browser_snapshot", `{"maxTokens":3000}`)
	callRaw(t, d, "browser_snapshot", `{"ref":"e5"}`)
	callRaw(t, d, "browser_find", `{"query":"Item"}`)
	act := callRaw(t, d, "browser_click", `{"element":"x","ref":"e3"}`).Content[0].Text
	want := []int{snapshotLimit(DefaultMaxTokens), snapshotLimit(3000), 0, 0, 0}
	if len(stops) != len(want) {
		t.Fatalf("snapshot requests %v, want %v", stops, want)
	}
	for i := range want {
		if stops[i] != want[i] {
			t.Fatalf("snapshot requests' limits %v, want %v", stops, want)
		}
	}
	if !strings.Contains(act, "unchanged since your last snapshot") {
		t.Fatalf("after a complete snapshot the action should find nothing changed, got:\n%s", act[:min(len(act), 600)])
	}

	// Limited: the note on the first part and the cursor's last part; the
	// base stays the earlier complete snapshot.
	lines := strings.Split(full, "\n")
	prefix := strings.Join(lines[:len(lines)/3], "\n") + "\n- text: \"… the page goes on\""
	limited = &protocol.SnapshotResult{URL: snap.URL, Title: snap.Title, Snapshot: prefix, Limited: true}
	// The page is unchanged: against the earlier complete snapshot the
	// action finds nothing new; against the limited one it would report
	// two thirds of the page as new.
	first := callRaw(t, d, "browser_snapshot", `{}`).Content[0].Text
	if !strings.HasSuffix(first, limitedNote) {
		t.Fatalf("a limited first part does not end with the note:\n…%s", first[max(0, len(first)-400):])
	}
	if act := callRaw(t, d, "browser_click", `{"element":"x","ref":"e3"}`).Content[0].Text; !strings.Contains(act, "unchanged since your last snapshot") {
		t.Fatalf("the limited snapshot became the diff base:\n%s", act[:min(len(act), 600)])
	}
	first = callRaw(t, d, "browser_snapshot", `{}`).Content[0].Text
	// Paging stays complete: the cursor reads the whole page once and
	// serves every ref of it exactly once across the parts.
	seen := map[string]int{}
	for _, l := range parseSnapshot(first) {
		if l.ref != "" {
			seen[l.ref]++
		}
	}
	c := cursorInText.FindStringSubmatch(first)[1]
	before := len(stops)
	var last string
	for i := 0; i < 200; i++ {
		last = callRaw(t, d, "browser_snapshot", `{"cursor":"`+c+`"}`).Content[0].Text
		for _, l := range parseSnapshot(last) {
			if l.ref != "" {
				seen[l.ref]++
			}
		}
		if m := cursorInText.FindStringSubmatch(last); m != nil {
			c = m[1]
			continue
		}
		break
	}
	if got := stops[before:]; len(got) != 1 || got[0] != 0 {
		t.Fatalf("the cursor's page reads: %v, want one whole read", got)
	}
	if !strings.Contains(last, "That was the last part") || strings.Contains(last, limitedNote) {
		t.Fatalf("the cursor's last part of an extended snapshot:\n…%s", last[max(0, len(last)-300):])
	}
	for _, l := range parseSnapshot(full) {
		if l.ref != "" && seen[l.ref] == 0 {
			t.Fatalf("%s was never served through the cursor", l.ref)
		}
	}
}
