package run

import (
	"net"
	"os"
	"strconv"
	"strings"
)

// freePorts returns n distinct free ports on 127.0.0.1. The listeners stay
// open until all are picked: picking one at a time can hand out the same
// port twice (seen: the extension port equal to the control port).
func freePorts(n int) ([]int, error) {
	var ports []int
	for i := 0; i < n; i++ {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		defer l.Close()
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

func loadavg() string {
	b, _ := os.ReadFile("/proc/loadavg")
	return strings.TrimSpace(string(b))
}

type cpuTimes struct{ idle, total uint64 }

func readCPU() cpuTimes {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return cpuTimes{}
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line)
	var t cpuTimes
	for i, v := range f[1:] {
		n, _ := strconv.ParseUint(v, 10, 64)
		t.total += n
		if i == 3 || i == 4 { // idle, iowait
			t.idle += n
		}
	}
	return t
}

func busyShare(a, b cpuTimes) float64 {
	if b.total <= a.total {
		return 0
	}
	return 1 - float64(b.idle-a.idle)/float64(b.total-a.total)
}
