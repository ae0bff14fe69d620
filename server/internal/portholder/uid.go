package portholder

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"io"
	"net/netip"
	"strconv"
	"strings"
)

// Which user owns a socket (issue 23): Linux lists every TCP socket of the
// network namespace in /proc/net/tcp{,6} with its owner's uid, so a
// listener or a connected peer of another user can be refused outright.
// Elsewhere, and for sockets of another namespace (containers, WSL 2
// relays), the owner is unknown (ok false): callers rely on the control
// proof alone.

// ListenerUID returns the uid owning the socket that listens on port (any
// address).
func ListenerUID(port int) (uid int, ok bool) { return listenerUID(port) }

// PeerUID returns the uid owning the socket whose own address is remote and
// whose peer is local: the other end of a connection accepted on local.
// The addresses are Go's "host:port" strings (net.Addr.String()).
func PeerUID(remote, local string) (uid int, ok bool) { return peerUID(remote, local) }

// socketRow is one line of /proc/net/tcp{,6}.
type socketRow struct {
	local, remote netip.AddrPort
	state         string // "0A": LISTEN, "01": ESTABLISHED
	uid           int
}

// parseSockets parses a /proc/net/tcp or /proc/net/tcp6 table; lines it
// cannot read are skipped.
func parseSockets(table string) []socketRow {
	var out []socketRow
	lines := strings.Split(table, "\n")
	for _, line := range lines[min(1, len(lines)):] {
		f := strings.Fields(line)
		if len(f) < 10 {
			continue
		}
		l, err1 := parseProcAddr(f[1])
		r, err2 := parseProcAddr(f[2])
		uid, err3 := strconv.Atoi(f[7])
		if err1 != nil || err2 != nil || err3 != nil {
			continue
		}
		out = append(out, socketRow{local: l, remote: r, state: f[3], uid: uid})
	}
	return out
}

// parseProcAddr reads "0100007F:2403" (IPv4) or 32 hex digits and a port
// (IPv6): the address is printed as 32-bit words in the host's byte order,
// the port in hex. IPv4-mapped IPv6 addresses come back as IPv4.
func parseProcAddr(s string) (netip.AddrPort, error) {
	i := strings.IndexByte(s, ':')
	if i < 0 {
		return netip.AddrPort{}, strconv.ErrSyntax
	}
	raw, err := hex.DecodeString(s[:i])
	if err != nil || (len(raw) != 4 && len(raw) != 16) {
		return netip.AddrPort{}, strconv.ErrSyntax
	}
	port, err := strconv.ParseUint(s[i+1:], 16, 16)
	if err != nil {
		return netip.AddrPort{}, err
	}
	// Each word was printed as a native-endian uint32: undo it.
	b := make([]byte, len(raw))
	for w := 0; w < len(raw); w += 4 {
		binary.BigEndian.PutUint32(b[w:], binary.NativeEndian.Uint32(raw[w:]))
	}
	a, _ := netip.AddrFromSlice(b)
	return netip.AddrPortFrom(a.Unmap(), uint16(port)), nil
}

// findPeerUID finds, in rows, the socket whose own address is remote and
// whose peer is local.
func findPeerUID(rows []socketRow, remote, local string) (int, bool) {
	r, err1 := netip.ParseAddrPort(remote)
	l, err2 := netip.ParseAddrPort(local)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	r = netip.AddrPortFrom(r.Addr().Unmap(), r.Port())
	l = netip.AddrPortFrom(l.Addr().Unmap(), l.Port())
	for _, row := range rows {
		if row.local == r && row.remote == l {
			return row.uid, true
		}
	}
	return 0, false
}

// findListenerUID finds, in rows, the socket listening on port.
func findListenerUID(rows []socketRow, port int) (int, bool) {
	for _, row := range rows {
		if row.state == "0A" && int(row.local.Port()) == port {
			return row.uid, true
		}
	}
	return 0, false
}

// scanPeerUID is findPeerUID over a /proc/net/tcp{,6} table read line by
// line: a lookup runs for every connection a port accepts, before its
// first byte is read, so it must cost no more than a small buffer whatever
// the table's size (issue 40: reading and parsing the whole table of a
// machine with 600 sockets for each of 600 connections cost the owner
// ~100 MiB). Only a line whose local port is remote's port is parsed.
func scanPeerUID(table io.Reader, remote, local string) (uid int, ok bool) {
	r, err1 := netip.ParseAddrPort(remote)
	l, err2 := netip.ParseAddrPort(local)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	r = netip.AddrPortFrom(r.Addr().Unmap(), r.Port())
	l = netip.AddrPortFrom(l.Addr().Unmap(), l.Port())
	port := []byte(":" + strings.ToUpper(strconv.FormatUint(uint64(r.Port())|1<<16, 16)[1:]))
	br := bufio.NewReaderSize(table, 4096)
	var f [8][]byte
	for {
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			// Not a line of the table: skip the rest of it.
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = br.ReadSlice('\n')
			}
			continue
		}
		if n := fields(line, f[:]); n == len(f) && bytes.HasSuffix(f[1], port) {
			lo, e1 := parseProcAddr(string(f[1]))
			re, e2 := parseProcAddr(string(f[2]))
			if e1 == nil && e2 == nil && lo == r && re == l {
				u, e3 := strconv.Atoi(string(f[7]))
				return u, e3 == nil
			}
		}
		if err != nil {
			return 0, false
		}
	}
}

// fields fills f with the first len(f) space-separated fields of line and
// returns how many it found.
func fields(line []byte, f [][]byte) int {
	n := 0
	for n < len(f) {
		line = bytes.TrimLeft(line, " \t")
		if len(line) == 0 || line[0] == '\n' {
			break
		}
		end := bytes.IndexAny(line, " \t\n")
		if end < 0 {
			end = len(line)
		}
		f[n], line = line[:end], line[end:]
		n++
	}
	return n
}
