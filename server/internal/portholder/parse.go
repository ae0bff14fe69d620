package portholder

import (
	"strconv"
	"strings"
)

// parseLsof reads lsof -F pc output ("p123\nccommand\n…") and returns the
// first process.
func parseLsof(out string) (Holder, bool) {
	var h Holder
	for _, line := range strings.Split(out, "\n") {
		if len(line) < 2 {
			continue
		}
		switch line[0] {
		case 'p':
			if h.PID != 0 {
				return h, true
			}
			h.PID, _ = strconv.Atoi(line[1:])
		case 'c':
			if h.PID != 0 && h.Command == "" {
				h.Command = line[1:]
			}
		}
	}
	return h, h.PID != 0
}

// parsePs reads `ps -o stat=,ppid=` output ("T    4242").
func parsePs(out string) (stopped bool, ppid int) {
	f := strings.Fields(out)
	if len(f) < 2 {
		return false, 0
	}
	stopped = strings.HasPrefix(f[0], "T")
	ppid, _ = strconv.Atoi(f[1])
	return stopped, ppid
}

func lastPathElem(s string) string {
	if i := strings.LastIndexAny(s, `/\`); i >= 0 {
		return s[i+1:]
	}
	return s
}

// parseStat reads /proc/<pid>/stat: "pid (comm) state ppid …"; comm may
// hold spaces and parentheses, so it ends at the last ')'.
func parseStat(s string) (comm string, stopped bool, ppid int) {
	open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if open < 0 || end < open {
		return "", false, 0
	}
	comm = s[open+1 : end]
	rest := strings.Fields(s[end+1:])
	if len(rest) >= 2 {
		stopped = rest[0] == "T" || rest[0] == "t"
		ppid, _ = strconv.Atoi(rest[1])
	}
	return comm, stopped, ppid
}
