package owner

import (
	"testing"

	"github.com/monkbrowse/monkbrowse/server/internal/netguard/guardtest"
)

// TestExtensionPortHeadersOverTheLimitRefused (issue 40): a request whose
// headers exceed a few KiB is answered 431 and never reaches the handler;
// before, the port read up to 1 MiB of headers per connection.
func TestExtensionPortHeadersOverTheLimitRefused(t *testing.T) {
	o := startOwner(t, Config{})
	guardtest.HeadersOverTheLimit(t, o.Addr().String())
}

// TestExtensionPortCapsConnectionsStillSendingHeaders (issue 40): the
// default cap of connections not yet upgraded holds: one more slow-header
// connection closes the oldest at once (not at the 10 s header timeout),
// and the next oldest stays.
func TestExtensionPortCapsConnectionsStillSendingHeaders(t *testing.T) {
	o := startOwner(t, Config{})
	guardtest.SlowHeadersCapped(t, o.Addr().String())
}
