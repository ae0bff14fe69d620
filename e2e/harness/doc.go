// Package harness starts and drives the pieces of a real monkbrowse setup for
// the end-to-end tests and the demo: the monkbrowse binary (built with go
// build), Debian Chromium with the unpacked extension and a throw-away
// profile, fixture web servers on 127.0.0.1, and an MCP client over stdio.
//
// It never reaches behind the extension's back: the port is set through the
// extension's storage (which the extension watches, as the options page
// does), tabs are shared by clicking the real popup, and every effect is read
// back through the DevTools Protocol, not through monkbrowse's own tools.
//
// Every process it starts is registered with the package's process registry,
// so a watchdog can kill them all before it fails a hung run.
package harness
