package run

import "testing"

func TestDiffBytes(t *testing.T) {
	before := "Snapshot:\n```yaml\n- button \"Go\" [ref=e1]\n- status [ref=e2]: \"0\"\n```"
	after := "Clicked.\n\n```yaml\n- button \"Go\" [ref=e1]\n- status [ref=e2]: \"1\"\n```"
	want := 2 * (len(`- status [ref=e2]: "0"`) + 3)
	if got := DiffBytes(before, after); got != want {
		t.Errorf("DiffBytes = %d, want %d", got, want)
	}
	if got := DiffBytes(before, before); got != 0 {
		t.Errorf("no change must be 0, got %d", got)
	}
}
