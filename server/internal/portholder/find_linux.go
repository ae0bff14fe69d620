package portholder

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

func find(port int) (Holder, error) {
	inodes := map[string]bool{}
	for _, f := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for k, v := range listeningInodes(string(data), port) {
			inodes[k] = v
		}
	}
	if len(inodes) == 0 {
		return Holder{}, ErrUnknown
	}
	fds, _ := filepath.Glob("/proc/[0-9]*/fd/*")
	for _, fd := range fds {
		link, err := os.Readlink(fd)
		if err != nil || !strings.HasPrefix(link, "socket:[") {
			continue
		}
		if !inodes[strings.TrimSuffix(strings.TrimPrefix(link, "socket:["), "]")] {
			continue
		}
		pid, _ := strconv.Atoi(strings.Split(fd, "/")[2])
		h := Holder{PID: pid}
		var ppid int
		h.Command, h.Stopped, ppid = procStat(pid)
		if ppid > 0 {
			h.Parent, _, _ = procStat(ppid)
		}
		return h, nil
	}
	return Holder{}, ErrUnknown
}

// listeningInodes parses /proc/net/tcp{,6} and returns the inodes of the
// sockets listening on port.
func listeningInodes(table string, port int) map[string]bool {
	out := map[string]bool{}
	lines := strings.Split(table, "\n")
	if len(lines) < 2 {
		return out
	}
	for _, line := range lines[1:] {
		fields := strings.Fields(line)
		if len(fields) < 10 || fields[3] != "0A" { // 0A: LISTEN
			continue
		}
		i := strings.LastIndexByte(fields[1], ':')
		if p, err := strconv.ParseUint(fields[1][i+1:], 16, 32); err == nil && int(p) == port {
			out[fields[9]] = true
		}
	}
	return out
}

// procStat reads a process's command, stopped state and parent pid from
// /proc/<pid>/stat ("pid (comm) state ppid …"; comm may hold spaces and
// parentheses, so it ends at the last ')').
func procStat(pid int) (comm string, stopped bool, ppid int) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return "", false, 0
	}
	return parseStat(string(data))
}

func readSockets() []socketRow {
	var rows []socketRow
	for _, f := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		if data, err := os.ReadFile(f); err == nil {
			rows = append(rows, parseSockets(string(data))...)
		}
	}
	return rows
}

func listenerUID(port int) (int, bool) { return findListenerUID(readSockets(), port) }

func peerUID(remote, local string) (int, bool) {
	for _, name := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		f, err := os.Open(name)
		if err != nil {
			continue
		}
		uid, ok := scanPeerUID(f, remote, local)
		f.Close()
		if ok {
			return uid, true
		}
	}
	return 0, false
}
