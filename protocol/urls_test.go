package protocol

import (
	"encoding/json"
	"os"
	"testing"
)

// TestNormalizeURL runs the cases extension/lib/urls.test.ts runs too, so
// the server and the extension complete addresses alike.
func TestNormalizeURL(t *testing.T) {
	raw, err := os.ReadFile("testdata/urls.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases [][2]string
	if err := json.Unmarshal(raw, &cases); err != nil {
		t.Fatal(err)
	}
	if len(cases) == 0 {
		t.Fatal("no cases")
	}
	for _, c := range cases {
		if got := NormalizeURL(c[0]); got != c[1] {
			t.Errorf("NormalizeURL(%q) = %q, want %q", c[0], got, c[1])
		}
	}
}
