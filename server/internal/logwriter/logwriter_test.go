package logwriter

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// blocked is a stderr nobody reads: every Write waits until release is
// closed, then it is recorded.
type blocked struct {
	release chan struct{}
	entered chan struct{} // one send per Write that started
	mu      sync.Mutex
	buf     bytes.Buffer
}

func newBlocked() *blocked {
	return &blocked{release: make(chan struct{}), entered: make(chan struct{}, 1<<16)}
}

func (b *blocked) Write(p []byte) (int, error) {
	b.entered <- struct{}{}
	<-b.release
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *blocked) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestWriteNeverBlocksAndCountsDrops (issue 40): with stderr blocked, 1,000
// lines are all "written" at once (the test's watchdog would end a Write
// that waited); beyond the limit they are dropped and counted; once stderr
// moves, every kept line comes out whole and in order, then one line with
// the count.
func TestWriteNeverBlocksAndCountsDrops(t *testing.T) {
	out := newBlocked()
	w := New(out, 10<<10)
	line := func(i int) string { return fmt.Sprintf("{\"n\":%04d,\"pad\":%q}\n", i, strings.Repeat("x", 80)) }
	wrote := make(chan struct{})
	go func() {
		defer close(wrote)
		for i := range 1000 {
			if n, err := w.Write([]byte(line(i))); n != len(line(i)) || err != nil {
				t.Errorf("Write = %d, %v", n, err)
			}
		}
	}()
	select {
	case <-wrote:
	case <-time.After(10 * time.Second):
		t.Fatal("watchdog: Write blocked on a stderr nobody reads")
	}
	<-out.entered // the first batch is being written, and waits
	dropped := w.Dropped()
	if dropped == 0 || dropped > int64(1000-(10<<10)/len(line(0))) {
		t.Fatalf("%d lines dropped, want those beyond 10 KiB", dropped)
	}
	close(out.release)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := w.Close(ctx); err != nil {
		t.Fatalf("Close: %v", err)
	}
	got := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	kept := 1000 - int(dropped)
	if len(got) <= kept {
		t.Fatalf("%d lines out, want %d kept and the count", len(got), kept)
	}
	for i, l := range got[:kept] {
		if l+"\n" != line(i) {
			t.Fatalf("line %d is %q, want %q (whole, in order)", i, l, line(i))
		}
	}
	// Every line was dropped after all the kept ones were queued: the
	// counts follow them (one per batch written while lines were dropped).
	var counted int64
	for _, l := range got[kept:] {
		var n int64
		if _, err := fmt.Sscanf(l, `{"level":"warn","dropped":%d,`, &n); err != nil || !strings.Contains(l, "stderr was not being read") {
			t.Fatalf("after the kept lines: %q, want a count of dropped lines", l)
		}
		counted += n
	}
	if counted != dropped {
		t.Fatalf("the count lines say %d dropped, Dropped says %d", counted, dropped)
	}
}

// TestCloseDoesNotWaitForABlockedStderr: Close gives up when its context
// ends; the writer's goroutine ends once stderr moves (goleak checks).
func TestCloseDoesNotWaitForABlockedStderr(t *testing.T) {
	out := newBlocked()
	w := New(out, 0)
	_, _ = w.Write([]byte("one\n"))
	<-out.entered
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := w.Close(ctx); err == nil {
		t.Fatal("Close returned nil with stderr blocked")
	}
	_, _ = w.Write([]byte("after close\n"))
	if w.Dropped() != 1 {
		t.Fatalf("a line after Close: %d dropped, want 1", w.Dropped())
	}
	close(out.release)
	<-w.done
	if got := out.String(); !strings.HasPrefix(got, "one\n") || strings.Contains(got, "after close") {
		t.Fatalf("out = %q", got)
	}
}
