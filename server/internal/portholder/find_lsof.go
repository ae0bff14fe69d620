//go:build darwin || freebsd || netbsd || openbsd || dragonfly

package portholder

import (
	"os/exec"
	"strconv"
	"strings"
)

// find asks lsof for the listener and ps for its state and parent. Neither
// is run here in CI (Linux reads /proc); the parsers are tested on Linux.
func find(port int) (Holder, error) {
	out, err := exec.Command("lsof", "-nP", "-iTCP:"+strconv.Itoa(port), "-sTCP:LISTEN", "-Fpc").Output()
	if err != nil {
		return Holder{}, ErrUnknown
	}
	h, ok := parseLsof(string(out))
	if !ok {
		return Holder{}, ErrUnknown
	}
	if ps, err := exec.Command("ps", "-o", "stat=,ppid=", "-p", strconv.Itoa(h.PID)).Output(); err == nil {
		var ppid int
		h.Stopped, ppid = parsePs(string(ps))
		if ppid > 0 {
			if c, err := exec.Command("ps", "-o", "comm=", "-p", strconv.Itoa(ppid)).Output(); err == nil {
				h.Parent = lastPathElem(strings.TrimSpace(string(c)))
			}
		}
	}
	return h, nil
}
