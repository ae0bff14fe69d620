//go:build darwin || freebsd || netbsd || openbsd || dragonfly

package portholder

import "context"

// find asks lsof and ps (tools.go), by absolute path and within
// toolTimeout. Neither is run here in CI (Linux reads /proc); the parsers
// and the timeout are tested on Linux with stand-ins.
func find(port int) (Holder, error) {
	ctx, cancel := context.WithTimeout(context.Background(), toolTimeout)
	defer cancel()
	return findWithLsof(ctx, toolDirs, port)
}
