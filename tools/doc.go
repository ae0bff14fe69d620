// Package tools holds the MCP tool handlers of monkbrowse: they resolve a
// {profile, tab} target, send wire requests to the extension, append fresh
// snapshots after actions and format results for the AI. They depend on small
// interfaces, not on the server.
package tools
