package portholder

import (
	"net"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"testing"
	"time"
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
	stopChild(t, child)
	deadline := time.Now().Add(10 * time.Second)
	for {
		h, err = Find(port)
		if err == nil && h.Stopped || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
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
