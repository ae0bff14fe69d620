package messaging

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the run if any test leaves a goroutine behind: a Peer must
// stop everything it started when it closes.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
