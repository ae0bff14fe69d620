// Package control is the owner's side of the control port (DESIGN §5.4): the
// token file that proves a forwarder runs as the same user, and the
// WebSocket server on 127.0.0.1 that authenticates forwarders with
// fwd_hello, runs their call_tool requests through the owner's tool
// dispatcher exactly as local calls (with the forwarder's own grants, named
// after its connection), answers status for `monkbrowse doctor`,
// and tells every forwarder owner_leaving when the owner hands over.
//
// Browsers always send an Origin header and native processes do not, so any
// upgrade that carries one is refused with 403: a web page cannot talk to
// the control port even though it can reach 127.0.0.1.
package control
