// Package protocol is the single source of truth for what monkbrowse says on
// the wire: the extension messages of DESIGN §5.1 with their payload types,
// per-message timeouts and the retryable set; the handshake of §5.2 with the
// 0.2 migration rules of §5.3; the control messages spoken between the owner
// and its forwarders (§5.4) with the vocabulary both sides share (default
// ports, the control token file, header names, error codes); the one
// [Caller] of a tool call ([CallTool]), which the tool dispatcher, the owner,
// the daemon and the forwarder all implement; and the AI-facing tools with
// their JSON Schemas (§5.6).
//
// The extension's TypeScript protocol file is generated from this package:
//
//	go generate ./...   (in this folder)
//
// writes ../extension/lib/protocol.gen.ts, and a test fails when the committed
// file is stale. Golden frame vectors in testdata/frames are decoded and
// re-encoded byte-for-byte by the Go tests here and by the extension's tests.
package protocol

//go:generate go run ./internal/gents -out ../extension/lib/protocol.gen.ts
