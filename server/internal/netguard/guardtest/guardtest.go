// Package guardtest holds the checks both ports' tests run against a live
// listener: the header limit and the cap of connections that are still
// sending their headers (issue 40). Test code only.
package guardtest

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/monkbrowse/monkbrowse/server/internal/netguard"
)

// HeadersOverTheLimit sends a request with 64 KiB of headers to addr and
// wants 431 back.
func HeadersOverTheLimit(t *testing.T, addr string) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(20 * time.Second))
	// Written on its own goroutine: the server stops reading at its limit.
	go func() {
		_, _ = io.WriteString(c, "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Pad: "+strings.Repeat("a", 64<<10)+"\r\n\r\n")
	}()
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("no answer to 64 KiB of headers: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
		t.Fatalf("64 KiB of headers answered %s, want 431: the port read them whole", resp.Status)
	}
}

// SlowHeadersCapped opens netguard.DefaultMaxUnupgraded+1 connections to addr
// that send the start of their headers and then nothing: the first must be
// closed by the server, and the second must still be open right after.
// (Without the cap the server closes them only at its header timeout, one
// right after the other.)
func SlowHeadersCapped(t *testing.T, addr string) {
	t.Helper()
	conns := make([]net.Conn, netguard.DefaultMaxUnupgraded+1)
	for i := range conns {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if _, err := io.WriteString(c, "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Pad: "+strings.Repeat("a", 1000)); err != nil {
			t.Fatal(err)
		}
		conns[i] = c
	}
	// Watchdog: longer than both ports' header timeouts, so that the old
	// code fails below rather than here.
	_ = conns[0].SetReadDeadline(time.Now().Add(30 * time.Second))
	if _, err := conns[0].Read(make([]byte, 1)); !errors.Is(err, io.EOF) && !strings.Contains(fmtErr(err), "reset") {
		t.Fatalf("the oldest slow-header connection was not closed: %v", err)
	}
	_ = conns[1].SetReadDeadline(time.Now().Add(100 * time.Millisecond))
	var ne net.Error
	if _, err := conns[1].Read(make([]byte, 1)); !errors.As(err, &ne) || !ne.Timeout() {
		t.Fatalf("the second oldest connection was closed too (%v): the connections were dropped by a timeout, not by a cap of %d", err, netguard.DefaultMaxUnupgraded)
	}
}

func fmtErr(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
