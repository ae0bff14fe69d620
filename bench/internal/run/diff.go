package run

import "strings"

// snapshotLines returns the lines of the first YAML block of a result (the
// page snapshot), or every line when there is none.
func snapshotLines(text string) []string {
	if i := strings.Index(text, "```yaml\n"); i >= 0 {
		text = text[i+len("```yaml\n"):]
		if j := strings.Index(text, "\n```"); j >= 0 {
			text = text[:j]
		}
	}
	return strings.Split(text, "\n")
}

// DiffBytes is the size of a line diff from the snapshot in before to the
// one in after: each added or removed line with a two-byte marker and its
// newline. Lines are matched as a multiset, which is exact for snapshots
// whose element lines each carry a unique ref.
func DiffBytes(before, after string) int {
	old := map[string]int{}
	for _, l := range snapshotLines(before) {
		old[l]++
	}
	n := 0
	for _, l := range snapshotLines(after) {
		if old[l] > 0 {
			old[l]--
			continue
		}
		n += len(l) + 3
	}
	for l, c := range old {
		n += c * (len(l) + 3)
	}
	return n
}
