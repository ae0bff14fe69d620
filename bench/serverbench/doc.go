// Package serverbench benchmarks monkbrowse's Go side with a real page's
// snapshot: an MCP client and server (mark3labs/mcp-go) speaking JSON-RPC
// over in-memory pipes as over stdio, the real tools.Dispatcher, and an
// extension stand-in that answers each wire request with an encoded and
// decoded messaging frame carrying the snapshot the real extension produced
// for the benchmark's pages (testdata/snapshots). It isolates what the
// server costs per call from the browser's share; run it with -cpuprofile
// to see where that time goes.
package serverbench
