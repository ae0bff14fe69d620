// Package tools holds the MCP tool handlers of monkbrowse: they resolve a
// {profile, tab} target, send wire requests to the extension, append fresh
// snapshots after actions and format results for the AI. They depend on small
// interfaces ([Browser], [Session]), not on the server, so the owner runs them
// over its registry and tests run them over fakes.
//
// [Dispatcher] is the one entry point: it validates a tool's raw arguments
// against the tool's generated schema (answering a tool error that names the
// field), runs the handler, and turns every failure into a result with
// IsError set and a message written for the AI: what happened and what to do.
package tools
