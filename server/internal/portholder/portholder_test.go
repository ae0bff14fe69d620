package portholder

import (
	"encoding/binary"
	"net"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

func TestParseLsofAndPs(t *testing.T) {
	h, ok := parseLsof("p4242\ncnc\nf3\np99\ncother\n")
	if !ok || h.PID != 4242 || h.Command != "nc" {
		t.Fatalf("parseLsof = %+v %v", h, ok)
	}
	if _, ok := parseLsof(""); ok {
		t.Fatal("empty lsof output parsed")
	}
	if st, ppid := parsePs("T+   1234\n"); !st || ppid != 1234 {
		t.Fatalf("parsePs stopped = %v %d", st, ppid)
	}
	if st, ppid := parsePs("S    77"); st || ppid != 77 {
		t.Fatalf("parsePs running = %v %d", st, ppid)
	}
	if got := lastPathElem("/Applications/Claude.app/Contents/MacOS/Claude"); got != "Claude" {
		t.Fatal(got)
	}
}

func TestParseStat(t *testing.T) {
	comm, stopped, ppid := parseStat("123 (my (odd) prog) T 45 123 0")
	if comm != "my (odd) prog" || !stopped || ppid != 45 {
		t.Fatalf("parseStat = %q %v %d", comm, stopped, ppid)
	}
}

func TestIsMonkbrowse(t *testing.T) {
	for _, c := range []struct {
		cmd, self string
		want      bool
	}{
		{"monkbrowse", "", true},
		{"monkbrowse.exe", "", true},
		{"daemon.test", "/tmp/x/daemon.test", true},
		{"nc", "/usr/bin/monkbrowse", false},
		{"averyveryveryl", "/x/averyveryverylongname", false},
		{"averyveryveryve", "/x/averyveryveryverylong", true},
	} {
		if got := (Holder{Command: c.cmd}).IsMonkbrowse(c.self); got != c.want {
			t.Errorf("%q self %q: %v", c.cmd, c.self, got)
		}
	}
}

// TestFindsThisProcessAndAStoppedOne: on Linux and the BSDs/macOS the
// listener of a real socket is this process; a stopped child is reported
// stopped.
func TestFindsThisProcessAndAStoppedOne(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the holder is not looked up on Windows")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	h, err := Find(ln.Addr().(*net.TCPAddr).Port)
	if err != nil || h.PID != os.Getpid() || h.Stopped || h.Command == "" {
		t.Fatalf("Find = %+v, %v; want this process (%d)", h, err, os.Getpid())
	}

	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not found for a listening child")
	}
	port := freePort(t)
	child := exec.Command(py, "-c", "import socket,time\ns=socket.socket()\ns.bind(('127.0.0.1',"+strconv.Itoa(port)+"))\ns.listen()\nprint('ready',flush=True)\ntime.sleep(60)")
	out, _ := child.StdoutPipe()
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { child.Process.Kill(); child.Wait() }()
	buf := make([]byte, 5)
	if _, err := out.Read(buf); err != nil {
		t.Fatal(err)
	}
	stopChild(t, child) // returns once the child is stopped
	h, err = Find(port)
	if err != nil || h.PID != child.Process.Pid || !h.Stopped || h.Parent == "" {
		t.Fatalf("Find = %+v, %v; want the stopped child %d", h, err, child.Process.Pid)
	}
}

func freePort(t *testing.T) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// sampleTCP is a /proc/net/tcp as Linux prints it on a little-endian
// machine: a listener of uid 1001 on 127.0.0.1:9219 (0x2403), a connection
// from 127.0.0.1:41000 (0xA028, uid 1001) to it, and the accepted side (uid
// 1000).
const sampleTCP = `  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:2403 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1001        0 51234 1 0000000000000000 100 0 0 10 0
   1: 0100007F:A028 0100007F:2403 01 00000000:00000000 00:00000000 00000000  1001        0 51240 1 0000000000000000 20 4 30 10 -1
   2: 0100007F:2403 0100007F:A028 01 00000000:00000000 00:00000000 00000000  1000        0 51241 1 0000000000000000 20 4 30 10 -1
   garbage line
`

// sampleTCP6 holds an IPv4-mapped connection (::ffff:127.0.0.1:41001 to
// :9222, uid 0) and a [::1]:9222 listener of uid 1000.
const sampleTCP6 = `  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 00000000000000000000000001000000:2406 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 61000 1 0000000000000000 100 0 0 10 0
   1: 0000000000000000FFFF00000100007F:A029 0000000000000000FFFF00000100007F:2406 01 00000000:00000000 00:00000000 00000000     0        0 61001 1 0000000000000000 20 4 30 10 -1
`

func TestParseSocketsAndFindUIDs(t *testing.T) {
	if !littleEndian() {
		t.Skip("the sample tables are a little-endian machine's")
	}
	rows := append(parseSockets(sampleTCP), parseSockets(sampleTCP6)...)
	if len(rows) != 5 {
		t.Fatalf("parsed %d rows, want 5: %+v", len(rows), rows)
	}
	if uid, ok := findListenerUID(rows, 9219); !ok || uid != 1001 {
		t.Fatalf("listener of 9219: %d %v", uid, ok)
	}
	if uid, ok := findListenerUID(rows, 9222); !ok || uid != 1000 {
		t.Fatalf("listener of 9222: %d %v", uid, ok)
	}
	if _, ok := findListenerUID(rows, 41000); ok {
		t.Fatal("a connected socket was taken for a listener")
	}
	for _, c := range []struct {
		remote, local string
		uid           int
		ok            bool
	}{
		{"127.0.0.1:41000", "127.0.0.1:9219", 1001, true},
		{"127.0.0.1:9219", "127.0.0.1:41000", 1000, true},
		{"127.0.0.1:41001", "127.0.0.1:9222", 0, true},
		{"[::ffff:127.0.0.1]:41001", "[::ffff:127.0.0.1]:9222", 0, true},
		{"127.0.0.1:41999", "127.0.0.1:9219", 0, false},
		{"not an address", "127.0.0.1:9219", 0, false},
	} {
		uid, ok := findPeerUID(rows, c.remote, c.local)
		if uid != c.uid || ok != c.ok {
			t.Errorf("findPeerUID(%s, %s) = %d %v, want %d %v", c.remote, c.local, uid, ok, c.uid, c.ok)
		}
		// The line-by-line scan a port runs for each connection agrees.
		uid, ok = scanPeerUID(strings.NewReader(sampleTCP), c.remote, c.local)
		if !ok {
			uid, ok = scanPeerUID(strings.NewReader(sampleTCP6), c.remote, c.local)
		}
		if uid != c.uid || ok != c.ok {
			t.Errorf("scanPeerUID(%s, %s) = %d %v, want %d %v", c.remote, c.local, uid, ok, c.uid, c.ok)
		}
	}
}

// TestPeerUIDOfARealConnection: on Linux both ends of a loopback connection
// of this process are ours.
func TestPeerUIDOfARealConnection(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("only Linux attributes sockets")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if uid, ok := PeerUID(s.RemoteAddr().String(), s.LocalAddr().String()); !ok || uid != os.Getuid() {
		t.Fatalf("PeerUID = %d %v, want %d", uid, ok, os.Getuid())
	}
	if uid, ok := ListenerUID(ln.Addr().(*net.TCPAddr).Port); !ok || uid != os.Getuid() {
		t.Fatalf("ListenerUID = %d %v, want %d", uid, ok, os.Getuid())
	}
}

func littleEndian() bool { return binary.NativeEndian.Uint16([]byte{1, 0}) == 1 }

// TestPrintable (issue 40): a process's self-chosen name cannot start a
// line of its own in our messages, carry control or bidirectional
// characters, or run on.
func TestPrintable(t *testing.T) {
	for in, want := range map[string]string{
		"nc":                     "nc",
		"\nmonkbrowse: ok":       "?monkbrowse: ok",
		"a\u202eb\x1b[2J\u2028c": "a?b?[2J?c",
		"café":                   "café",
		strings.Repeat("x", 100): strings.Repeat("x", 64) + "…",
	} {
		if got := Printable(in); got != want {
			t.Errorf("Printable(%q) = %q, want %q", in, got, want)
		}
	}
}
