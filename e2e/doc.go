// Package e2e is monkbrowse's real-browser end-to-end suite: Debian Chromium
// with the unpacked extension, the monkbrowse binary driven by an MCP client
// over stdio, and fixture pages served from 127.0.0.1. Every effect of a tool
// is checked independently through the Chrome DevTools Protocol.
//
// The tests skip with a message when Chromium or the built extension is
// missing; MONKBROWSE_E2E=1 turns those skips into failures (CI and
// scripts/test set it). Build the extension first:
//
//	cd extension && npm ci && npm run build
//	cd e2e && MONKBROWSE_E2E=1 go test ./...
//
// The harness lives in harness/ (importable, so the benchmark shares it); the
// demo in cmd/demo.
package e2e
