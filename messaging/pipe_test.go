package messaging

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"
)

// waitBlocked waits until some goroutine is parked (on a channel, a select,
// the network) inside the function fn, as runtime.Stack shows it: a test of
// "a blocked call returns when..." waits for the call to block, not for a
// guessed delay.
func waitBlocked(t *testing.T, fn string) {
	t.Helper()
	buf := make([]byte, 1<<20)
	waitUntil(t, fn+" to block", func() bool {
		n := runtime.Stack(buf, true)
		for _, g := range strings.Split(string(buf[:n]), "\n\n") {
			head, _, _ := strings.Cut(g, "\n")
			if !strings.Contains(head, "[running") && !strings.Contains(head, "[runnable") && strings.Contains(g, fn+"(") {
				return true
			}
		}
		return false
	})
}

func TestPipeOrderAndCopy(t *testing.T) {
	a, b := Pipe()
	defer a.Close()
	buf := []byte("one")
	send(t, a, string(buf))
	buf[0] = 'X' // Send copied the frame: this must not show on the other side
	send(t, a, "two")
	if got := recv(t, b); got != "one" {
		t.Errorf("got %q", got)
	}
	if got := recv(t, b); got != "two" {
		t.Errorf("got %q", got)
	}
}

// TestPipeCloseDeliversSentFrames pins that frames sent before a close are
// still received, as over a WebSocket, and that both ends then report
// ErrClosed.
func TestPipeCloseDeliversSentFrames(t *testing.T) {
	a, b := Pipe()
	send(t, a, "last words")
	a.Close()
	a.Close() // idempotent
	if got := recv(t, b); got != "last words" {
		t.Errorf("got %q", got)
	}
	if _, err := b.Receive(context.Background()); !errors.Is(err, ErrClosed) {
		t.Errorf("receive after remote close: %v", err)
	}
	if err := b.Send(context.Background(), []byte("x")); !errors.Is(err, ErrClosed) {
		t.Errorf("send after remote close: %v", err)
	}
	if _, err := a.Receive(context.Background()); !errors.Is(err, ErrClosed) {
		t.Errorf("receive after local close: %v", err)
	}
	if err := a.Send(context.Background(), []byte("x")); !errors.Is(err, ErrClosed) {
		t.Errorf("send after local close: %v", err)
	}
	b.Close()
}

func TestPipeUnblocks(t *testing.T) {
	a, b := Pipe()
	defer b.Close()
	// Receive honours ctx.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	if _, err := a.Receive(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("receive: %v", err)
	}
	// Send blocks on a full buffer until ctx ends or the pipe closes.
	for range pipeBuffer {
		send(t, a, "fill")
	}
	ctx2, cancel2 := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel2()
	if err := a.Send(ctx2, []byte("overflow")); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("send on full pipe: %v", err)
	}
	errc := make(chan error, 2)
	go func() { errc <- a.Send(context.Background(), []byte("overflow")) }()
	go func() {
		_, err := b.Receive(context.Background()) // drains one, fine
		errc <- err
	}()
	if err := wait(t, errc, "drain"); err != nil && !errors.Is(err, ErrClosed) {
		t.Errorf("%v", err)
	}
	wait(t, errc, "drain")
	blocked := make(chan error, 1)
	go func() {
		for {
			if err := a.Send(context.Background(), []byte("more")); err != nil {
				blocked <- err
				return
			}
		}
	}()
	waitBlocked(t, "messaging.(*pipeEnd).Send")
	a.Close()
	if err := wait(t, blocked, "blocked send"); !errors.Is(err, ErrClosed) {
		t.Errorf("blocked send after close: %v", err)
	}
	// A Receive blocked on an empty pipe returns when the other end closes.
	c, d := Pipe()
	got := make(chan error, 1)
	go func() {
		_, err := c.Receive(context.Background())
		got <- err
	}()
	waitBlocked(t, "messaging.(*pipeEnd).Receive")
	d.Close()
	if err := wait(t, got, "blocked receive"); !errors.Is(err, ErrClosed) {
		t.Errorf("blocked receive after close: %v", err)
	}
	c.Close()
}
