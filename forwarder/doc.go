// Package forwarder is the client side of the control port (DESIGN §5.4): a
// monkbrowse process that is not the owner dials the owner with [Dial], says
// fwd_hello with the control token, and sends every MCP tool call to it as
// call_tool with [Client.CallTool]. A [Client] reports how it lost its owner
// ([Client.Lost], [Client.LossReason]) and never reconnects: the election,
// the take-over and the repeating of calls the owner did not run belong to
// the daemon (server/internal/daemon). The vocabulary both sides share
// (ports, the token file, header names, refusal codes) lives in protocol.
package forwarder
