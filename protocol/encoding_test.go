package protocol

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/monkbrowse/monkbrowse/messaging"
)

// TestNonCanonicalFrames reads testdata/noncanonical: hand-written frames that
// spell the value of the golden frame of the same name differently (\/,
// \u0041-style escapes, Go's default HTML escaping, upper-case hex,
// surrogate-pair escapes, a raw U+2028, whitespace, another key order). Each
// must decode, in messaging, to the golden frame's value; a frame without
// payload or result must also re-encode to the golden bytes (Encode keeps a
// payload's bytes, so only its value is compared). lib/frame.test.ts checks
// the same files on the TypeScript side, where every one re-encodes to the
// golden bytes.
func TestNonCanonicalFrames(t *testing.T) {
	dir := filepath.Join("testdata", "noncanonical")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) == 0 {
		t.Fatal("no non-canonical vectors")
	}
	for _, e := range entries {
		name := e.Name()
		t.Run(strings.TrimSuffix(name, ".json"), func(t *testing.T) {
			in, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				t.Fatal(err)
			}
			golden, err := os.ReadFile(filepath.Join("testdata", "frames", name))
			if err != nil {
				t.Fatalf("no golden frame of the same name: %v", err)
			}
			if bytes.Equal(in, golden) {
				t.Fatal("the vector is spelled like the golden frame; it checks nothing")
			}
			got, err := messaging.DecodeFrame(in)
			if err != nil {
				t.Fatalf("DecodeFrame: %v", err)
			}
			want, err := messaging.DecodeFrame(golden)
			if err != nil {
				t.Fatal(err)
			}
			if got.K != want.K || got.ID != want.ID || got.Type != want.Type || got.Error != want.Error ||
				!reflect.DeepEqual(got.OK, want.OK) {
				t.Errorf("envelope differs:\n got %+v\nwant %+v", got, want)
			}
			sameValue(t, "payload", got.Payload, want.Payload)
			sameValue(t, "result", got.Result, want.Result)
			enc, err := got.Encode()
			if err != nil {
				t.Fatal(err)
			}
			if len(got.Payload) == 0 && len(got.Result) == 0 && !bytes.Equal(enc, golden) {
				t.Errorf("re-encoded\n got %s\nwant %s", enc, golden)
			}
		})
	}
}

func sameValue(t *testing.T, what string, got, want json.RawMessage) {
	t.Helper()
	if (len(got) == 0) != (len(want) == 0) {
		t.Errorf("%s present %v, want %v", what, len(got) > 0, len(want) > 0)
		return
	}
	if len(got) == 0 {
		return
	}
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if err := json.Unmarshal(want, &w); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if !reflect.DeepEqual(g, w) {
		t.Errorf("%s value differs:\n got %#v\nwant %#v", what, g, w)
	}
}
