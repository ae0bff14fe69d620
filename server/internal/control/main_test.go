package control

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests if any goroutine outlives them: every
// connection the server accepts must end with Leave or Close.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
