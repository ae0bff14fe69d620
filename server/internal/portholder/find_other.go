//go:build !linux && !darwin && !freebsd && !netbsd && !openbsd && !dragonfly

package portholder

// find is not implemented here (Windows: netstat -ano would name the pid,
// not run in this project's CI); callers say the holder is unknown.
func find(int) (Holder, error) { return Holder{}, ErrUnknown }

// Only Linux tells who owns a socket: elsewhere the control proof decides.
func listenerUID(int) (int, bool)        { return 0, false }
func peerUID(string, string) (int, bool) { return 0, false }
