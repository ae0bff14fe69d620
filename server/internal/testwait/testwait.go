// Package testwait holds the waits tests share that are not on a channel
// of the code under test. Poll is the one place a test looks at a state
// again and again: for a state no event reports, such as another OS
// process's (its answers to calls, its open files) or the number of this
// process's goroutines. StopProcess waits for the kernel's report that a
// child stopped. Every other wait in the tests is on an event: a channel,
// a hook, a log line. Test code only.
package testwait

import (
	"context"
	"testing"
	"time"
)

// Poll calls done every interval until it reports true. When ctx ends
// first, it fails the test with failure(), which should say what was
// awaited and what was seen last. The interval only paces the looks: a
// slow machine makes Poll look less often, never fail sooner.
func Poll(ctx context.Context, t testing.TB, every time.Duration, done func() bool, failure func() string) {
	t.Helper()
	tick := time.NewTicker(every)
	defer tick.Stop()
	for !done() {
		select {
		case <-tick.C:
		case <-ctx.Done():
			t.Fatal(failure())
		}
	}
}
