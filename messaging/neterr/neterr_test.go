package neterr

import (
	"errors"
	"fmt"
	"net"
	"os"
	"syscall"
	"testing"
)

// wrapped builds the error chain Go's net package returns for errno.
func wrapped(op, call string, errno syscall.Errno) error {
	return &net.OpError{Op: op, Net: "tcp", Err: &os.SyscallError{Syscall: call, Err: errno}}
}

// TestTables checks both OS tables against the error chains Go returns,
// including Windows' Winsock numbers, which cannot be produced on this OS:
// they are faked with the same wrapping.
func TestTables(t *testing.T) {
	for _, tc := range []struct {
		name  string
		tab   codes
		inUse syscall.Errno
		refus syscall.Errno
		reset syscall.Errno
	}{
		{"unix", unixCodes, syscall.EADDRINUSE, syscall.ECONNREFUSED, syscall.ECONNRESET},
		{"windows", windowsCodes, 10048, 10061, 10054},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !match(wrapped("listen", "bind", tc.inUse), tc.tab.addrInUse) {
				t.Error("address in use not recognised")
			}
			if !match(wrapped("dial", "connectex", tc.refus), tc.tab.connRefused) {
				t.Error("connection refused not recognised")
			}
			if !match(fmt.Errorf("dial: %w", wrapped("read", "wsarecv", tc.reset)), tc.tab.connReset) {
				t.Error("connection reset not recognised through %w wrapping")
			}
			if match(wrapped("dial", "connectex", tc.refus), tc.tab.addrInUse) || match(errors.New("address already in use"), tc.tab.addrInUse) {
				t.Error("matched the wrong condition or a bare string")
			}
		})
	}
	// Windows' portable syscall names are not Winsock's numbers: the bug
	// this package exists for.
	if syscall.Errno(10048) == syscall.EADDRINUSE {
		t.Skip("this OS numbers EADDRINUSE like Winsock")
	}
}

// TestRealErrors produces the conditions on this OS and checks the
// current table recognises them.
func TestRealErrors(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_, err = net.Listen("tcp", addr)
	if !IsAddrInUse(err) {
		t.Fatalf("second listen on %s: %v not recognised as in use", addr, err)
	}
	ln.Close()
	_, err = net.Dial("tcp", addr)
	if !IsConnRefused(err) {
		t.Fatalf("dial to a closed port: %v not recognised as refused", err)
	}
	if IsAddrInUse(err) || IsConnReset(err) || IsConnRefused(nil) {
		t.Fatal("false positive")
	}
}
