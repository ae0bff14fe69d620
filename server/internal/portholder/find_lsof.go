//go:build darwin || freebsd || netbsd || openbsd || dragonfly

package portholder

import (
	"context"
	"time"
)

// toolDirs are the only folders lsof and ps are taken from: a folder early
// on PATH (which the person's shell setup, or anything that edits it,
// controls) never decides which binary runs.
var toolDirs = []string{"/usr/sbin", "/usr/bin", "/sbin", "/bin"}

// toolTimeout bounds one look-up (lsof and the ps calls together): a hung
// lsof (a stale network mount) must not stall the election's diagnosis.
const toolTimeout = 2 * time.Second

// find asks lsof and ps (tools.go) from toolDirs, within toolTimeout.
// Neither is run here in CI (Linux reads /proc); the parsers and the
// timeout are tested on Linux with stand-ins.
func find(port int) (Holder, error) {
	ctx, cancel := context.WithTimeout(context.Background(), toolTimeout)
	defer cancel()
	return findWithLsof(ctx, toolDirs, port)
}

// Only Linux tells who owns a socket: elsewhere the control proof decides.
func listenerUID(int) (int, bool)        { return 0, false }
func peerUID(string, string) (int, bool) { return 0, false }
