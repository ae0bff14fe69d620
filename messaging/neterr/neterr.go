// Package neterr recognises the network errors monkbrowse acts on — a port
// already in use, a refused or reset connection — on every OS. Go reports
// them as the OS's own error numbers: syscall.EADDRINUSE and friends match
// on Linux and macOS, but on Windows the numbers are Winsock's
// (WSAEADDRINUSE 10048, WSAECONNREFUSED 10061, …), which syscall's portable
// names do not match (issue 12).
package neterr

import (
	"errors"
	"syscall"
)

// codes is one OS's table of error numbers per condition.
type codes struct {
	addrInUse, connRefused, connReset []syscall.Errno
}

// Winsock error numbers (winerror.h).
const (
	wsaeConnAborted = 10053
	wsaeConnReset   = 10054
	wsaeAddrInUse   = 10048
	wsaeConnRefused = 10061
	// ERROR_CONNECTION_REFUSED, which some Windows APIs return instead.
	errorConnectionRefused = 1225
)

var (
	unixCodes = codes{
		addrInUse:   []syscall.Errno{syscall.EADDRINUSE},
		connRefused: []syscall.Errno{syscall.ECONNREFUSED},
		connReset:   []syscall.Errno{syscall.ECONNRESET, syscall.EPIPE, syscall.ECONNABORTED},
	}
	windowsCodes = codes{
		addrInUse:   []syscall.Errno{wsaeAddrInUse},
		connRefused: []syscall.Errno{wsaeConnRefused, errorConnectionRefused},
		connReset:   []syscall.Errno{wsaeConnReset, wsaeConnAborted},
	}
)

// IsAddrInUse reports whether err says the address (port) is already in use.
func IsAddrInUse(err error) bool { return match(err, current.addrInUse) }

// IsConnRefused reports whether err says nothing listens on the port.
func IsConnRefused(err error) bool { return match(err, current.connRefused) }

// IsConnReset reports whether err says the other side reset or aborted the
// connection (as a listener that is closing does to its backlog).
func IsConnReset(err error) bool { return match(err, current.connReset) }

func match(err error, want []syscall.Errno) bool {
	var n syscall.Errno
	if !errors.As(err, &n) {
		return false
	}
	for _, w := range want {
		if n == w {
			return true
		}
	}
	return false
}
