// Package daemon runs the shared-daemon lifecycle of one monkbrowse process
// (DESIGN §5.5): the election on the control port, the owner role (token
// file, extension listener, control server), the forwarder role (a
// forwarder.Client to the owner), hand-over when the owner's AI app goes
// away, and failover when the owner dies.
//
// The MCP stdio endpoint never sees any of it: it is given [Daemon.Caller]
// once, a router that sends each tool call to whichever backend this process
// has at the moment (the local owner or the connection to the remote one)
// and, while the role is changing, holds the call for a few seconds instead
// of failing it. A call is repeated on the next owner only when the previous
// one certainly did not run it; a call in flight when its owner died fails
// with a message saying it may or may not have run.
//
// # Goroutines
//
// [Daemon.Run] owns every goroutine the daemon starts (the control server,
// the clean-up of lost forwarder connections) and returns only after they
// have ended and, for an owner, after the hand-over has released both ports.
package daemon
