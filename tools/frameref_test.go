package tools

import "testing"

// Refs inside a stitched cross-origin frame carry their frame (f2e5): the
// snapshot's parser, its subtree lookup and the ref argument accept them.
func TestFrameRefs(t *testing.T) {
	snap := "- heading \"Checkout\" [level=1] [ref=e1]\n" +
		"- iframe \"Secure card payment\" [ref=e2]:\n" +
		"  - textbox \"Card number\" [ref=f3e4]\n" +
		"  - button \"Pay\" [ref=f3e5]\n" +
		"- button \"Back\" [ref=e6]"
	var refs []string
	for _, l := range parseSnapshot(snap) {
		refs = append(refs, l.ref)
	}
	want := []string{"e1", "e2", "f3e4", "f3e5", "e6"}
	if len(refs) != len(want) {
		t.Fatalf("refs %v, want %v", refs, want)
	}
	for i := range want {
		if refs[i] != want[i] {
			t.Fatalf("refs %v, want %v", refs, want)
		}
	}
	sub, ok := subtreeOf(snap, "e2")
	if !ok || sub != "- iframe \"Secure card payment\" [ref=e2]:\n  - textbox \"Card number\" [ref=f3e4]\n  - button \"Pay\" [ref=f3e5]\n" {
		t.Errorf("subtree of the iframe: %q, %v", sub, ok)
	}
	for _, in := range []string{"f3e4", "[ref=f3e4]", "ref=f3e4"} {
		if r, err := normalizeSnapshotRef(in); err != nil || r != "f3e4" {
			t.Errorf("normalizeSnapshotRef(%q) = %q, %v", in, r, err)
		}
	}
	for _, in := range []string{"f0e4", "fe4", "f3", "f3e0", "e3f4"} {
		if _, err := normalizeSnapshotRef(in); err == nil {
			t.Errorf("normalizeSnapshotRef(%q) accepted", in)
		}
	}
}
