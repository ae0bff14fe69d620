// Package bench holds monkbrowse's side-by-side benchmarks: the same browser
// tasks run through monkbrowse, Playwright MCP and chrome-devtools-mcp by one
// MCP client, plus the report writer for BENCHMARKS.md. The entry point is
// scripts/bench, which runs cmd/monkbench.
package bench
