package protocol

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTypeScriptUpToDate fails when extension/lib/protocol.gen.ts differs from
// what the generator writes now. Run `go generate ./...` in protocol/.
func TestTypeScriptUpToDate(t *testing.T) {
	path := filepath.Join("..", "extension", "lib", "protocol.gen.ts")
	if _, err := os.Stat(filepath.Join("..", "go.work")); err != nil {
		// Never a skip: a generated file nobody compares drifts quietly.
		t.Fatalf("no go.work beside protocol/ (%v): this test compares extension/lib/protocol.gen.ts and must run inside the monkbrowse repository", err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v: run go generate ./... in protocol/", err)
	}
	if !bytes.Equal(got, TypeScript()) {
		t.Fatalf("%s is stale: run go generate ./... in protocol/ and commit the result", path)
	}
}

func TestTypeScriptContents(t *testing.T) {
	ts := string(TypeScript())
	for _, want := range []string{
		"export const PROTOCOL_VERSION = 3 as const;",
		"export interface Auth {",
		"export interface TabInfo {\n  tabId: number;\n  slot: number;\n  url: string;\n  title: string;\n  active: boolean;\n  windowId: number;\n  openedBy?: string;\n  lastApp?: string;\n  paused?: boolean;\n  rule?: string;\n}",
		"export interface WireRequests {",
		"  browser_click: ElementRequest;",
		"  browser_snapshot: SnapshotResult;",
		"  browser_navigate: 45000,",
		"  browser_screenshot: 45000,",
		"export interface Hello {",
		"export interface LegacyHelloAck {",
	} {
		if !strings.Contains(ts, want) {
			t.Errorf("generated TypeScript lacks %q", want)
		}
	}
	retry := ts[strings.Index(ts, "export const RETRYABLE"):]
	for _, w := range WireMessages {
		if strings.Contains(retry, `"`+w.Type+`"`) != w.Retryable {
			t.Errorf("RETRYABLE and the catalog disagree on %s", w.Type)
		}
	}
}
