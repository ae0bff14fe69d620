// Package logwriter is the writer under monkbrowse's stderr log: a write
// never blocks the process (issue 40). The AI app reads our stderr when it
// likes; one that stops reading it must not stop the owner from answering
// tool calls or the extension. Lines wait in a bounded queue that one
// goroutine writes out; when the queue is full a line is dropped and
// counted, and the count is written as a line of its own once stderr moves
// again.
package logwriter

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"sync"
	"time"
)

// DefaultLimit is how many bytes of log lines wait for a stderr that is not
// being read before new lines are dropped.
const DefaultLimit = 1 << 20

// Writer is an io.Writer whose Write copies the line into the queue and
// returns at once. Safe for concurrent use; zerolog writes each line in one
// Write call.
type Writer struct {
	out   io.Writer
	limit int

	mu       sync.Mutex
	lines    [][]byte
	size     int   // bytes queued or being written
	dropped  int64 // lines dropped since New
	reported int64 // dropped lines already reported
	closed   bool

	wake chan struct{} // one pending wake-up for run
	done chan struct{} // closed when run has returned
}

// New starts a writer to out holding at most limit bytes (0 or less:
// DefaultLimit). Call Close to stop it.
func New(out io.Writer, limit int) *Writer {
	if limit <= 0 {
		limit = DefaultLimit
	}
	w := &Writer{out: out, limit: limit, wake: make(chan struct{}, 1), done: make(chan struct{})}
	go w.run()
	return w
}

// Write queues a copy of p, or drops and counts it when the queue is full
// or the writer closed. It never blocks on out and never fails.
func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	if w.closed || w.size+len(p) > w.limit {
		w.dropped++
		w.mu.Unlock()
		return len(p), nil
	}
	w.lines = append(w.lines, bytes.Clone(p))
	w.size += len(p)
	w.mu.Unlock()
	w.poke()
	return len(p), nil
}

// Dropped is how many lines were dropped since New.
func (w *Writer) Dropped() int64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.dropped
}

// Close stops taking lines and waits until the queued ones are written or
// ctx ends, whichever comes first: a stderr nobody reads cannot hold the
// process's exit. A line written after Close is dropped.
func (w *Writer) Close(ctx context.Context) error {
	w.mu.Lock()
	w.closed = true
	w.mu.Unlock()
	w.poke()
	select {
	case <-w.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (w *Writer) poke() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// run writes the queue out, a batch at a time, then the count of lines
// dropped while that batch was written (they were dropped after every line
// of the batch was queued).
func (w *Writer) run() {
	defer close(w.done)
	for {
		w.mu.Lock()
		batch := w.lines
		w.lines = nil
		dropped := w.dropped - w.reported
		w.reported = w.dropped
		closed := w.closed
		w.mu.Unlock()
		if len(batch) == 0 && dropped == 0 {
			if closed {
				return
			}
			<-w.wake
			continue
		}
		n := 0
		for _, l := range batch {
			_, _ = w.out.Write(l) // a closed stderr: the line is lost, nothing else to do
			n += len(l)
		}
		if dropped > 0 {
			_, _ = fmt.Fprintf(w.out, `{"level":"warn","dropped":%d,"time":%q,"message":"log lines were dropped: stderr was not being read"}`+"\n",
				dropped, time.Now().UTC().Format(time.RFC3339))
		}
		w.mu.Lock()
		w.size -= n
		w.mu.Unlock()
	}
}
