// Package portholder names the process listening on a local TCP port, for
// messages that must say what really holds monkbrowse's ports (issue 12):
// its pid, its command, whether it is stopped (suspended with Ctrl-Z or
// SIGSTOP) and the command of its parent (the app that started it).
//
// Linux reads /proc; macOS and the BSDs ask lsof and ps, taken from fixed
// system folders (never from PATH) and given 2 s in all; elsewhere (Windows)
// the holder is unknown and callers say so.
package portholder

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"unicode"
)

// Holder is a process listening on a port.
type Holder struct {
	PID     int
	Command string // short command name (Linux comm, lsof's c field)
	Stopped bool   // stopped by a signal (T state): suspended
	// Parent is the command of its parent process ("" when unknown): for a
	// monkbrowse process, the AI app that started it.
	Parent string
}

// ErrUnknown is returned when the holder cannot be found (another user's
// process, an OS without a way to ask, nothing listening).
var ErrUnknown = errors.New("portholder: the process holding the port is unknown")

// Find returns the process listening on 127.0.0.1:port (or any address on
// that port). Its command names are the process's own choice (a program
// may name itself "\nmonkbrowse: …"): they come back printable (Printable).
func Find(port int) (Holder, error) {
	h, err := find(port)
	h.Command, h.Parent = Printable(h.Command), Printable(h.Parent)
	return h, err
}

// Printable returns a process's self-chosen name fit for a message (issue
// 40): every character that is not printable (a line break, a control or
// bidirectional character) becomes '?', and it is cut to 64 bytes.
func Printable(name string) string {
	var b strings.Builder
	for _, r := range name {
		if b.Len() >= 64 {
			b.WriteString("…")
			break
		}
		if !unicode.IsPrint(r) {
			r = '?'
		}
		b.WriteRune(r)
	}
	return b.String()
}

// IsMonkbrowse reports whether h looks like a monkbrowse process: its
// command is monkbrowse, or the base name of this process's executable (a
// renamed or test build).
func (h Holder) IsMonkbrowse(self string) bool {
	c := strings.TrimSuffix(strings.ToLower(h.Command), ".exe")
	if c == "monkbrowse" {
		return true
	}
	if self == "" {
		return false
	}
	s := strings.TrimSuffix(strings.ToLower(filepath.Base(self)), ".exe")
	// Linux truncates comm to 15 bytes.
	return c != "" && (c == s || len(c) == 15 && strings.HasPrefix(s, c))
}

// String names the process for a message: "process 123 (nc)".
func (h Holder) String() string {
	s := fmt.Sprintf("process %d (%s", h.PID, h.Command)
	if h.Stopped {
		s += ", stopped"
	}
	return s + ")"
}

// Short names the process inside a sentence's parentheses: "pid 123, nc".
func (h Holder) Short() string {
	s := fmt.Sprintf("pid %d, %s", h.PID, h.Command)
	if h.Stopped {
		s += ", stopped"
	}
	return s
}
