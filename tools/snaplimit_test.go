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
	d := NewDispatcher(fakeBrowser{answer: func(typ string, payload any, out any) error {
		if typ != protocol.MsgSnapshot {
			return nil
		}
		switch p := payload.(type) {
		case protocol.SnapshotRequest:
			stops = append(stops, p.StopAfterChars)
		default:
			stops = append(stops, 0)
		}
		b, _ := json.Marshal(snap)
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
	snap.Snapshot, snap.Limited = strings.Join(lines[:len(lines)/3], "\n"), true
	first := callRaw(t, d, "browser_snapshot", `{}`).Content[0].Text
	if !strings.HasSuffix(first, limitedNote) {
		t.Fatalf("a limited first part does not end with the note:\n…%s", first[max(0, len(first)-400):])
	}
	c := cursorInText.FindStringSubmatch(first)[1]
	var last string
	for i := 0; i < 50; i++ {
		last = callRaw(t, d, "browser_snapshot", `{"cursor":"`+c+`"}`).Content[0].Text
		if m := cursorInText.FindStringSubmatch(last); m != nil {
			c = m[1]
			continue
		}
		break
	}
	if !strings.Contains(last, "That was the last part") || !strings.HasSuffix(last, limitedNote) {
		t.Fatalf("the cursor's last part of a limited snapshot:\n…%s", last[max(0, len(last)-300):])
	}
	// The page is unchanged: against the earlier complete snapshot the
	// action finds nothing new; against the limited one it would report
	// two thirds of the page as new.
	snap.Snapshot, snap.Limited = full, false
	if act := callRaw(t, d, "browser_click", `{"element":"x","ref":"e3"}`).Content[0].Text; !strings.Contains(act, "unchanged since your last snapshot") {
		t.Fatalf("the limited snapshot became the diff base:\n%s", act[:min(len(act), 600)])
	}
}
