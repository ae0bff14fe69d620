package control

import (
	"net"
	"strconv"
	"testing"

	"github.com/monkbrowse/monkbrowse/server/internal/netguard/guardtest"
)

// TestControlPortHeadersOverTheLimitRefused (issue 40): as on the
// extension port, headers beyond a few KiB are answered 431.
func TestControlPortHeadersOverTheLimitRefused(t *testing.T) {
	f := start(t)
	guardtest.HeadersOverTheLimit(t, net.JoinHostPort("127.0.0.1", strconv.Itoa(f.port)))
}

// TestControlPortCapsConnectionsStillSendingHeaders (issue 40): one
// slow-header connection beyond the default cap closes the oldest at once
// (not at the 5 s header timeout).
func TestControlPortCapsConnectionsStillSendingHeaders(t *testing.T) {
	f := start(t)
	guardtest.SlowHeadersCapped(t, net.JoinHostPort("127.0.0.1", strconv.Itoa(f.port)))
}
