// Package forwarder implements the forwarder role of the shared daemon: a
// monkbrowse process that lost the control-port election connects to the
// owner, says fwd_hello with the control token and proxies every MCP tool call
// to it as call_tool, taking over as owner when the owner goes away.
package forwarder
