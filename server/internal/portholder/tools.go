//go:build unix

package portholder

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// toolPath is the first executable named name in dirs.
func toolPath(dirs []string, name string) (string, error) {
	for _, d := range dirs {
		p := filepath.Join(d, name)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode().Perm()&0o111 != 0 {
			return p, nil
		}
	}
	return "", errors.New("portholder: " + name + " not found in " + strings.Join(dirs, ", "))
}

// runTool runs name (from dirs) and returns its standard output; the
// context's end kills it.
func runTool(ctx context.Context, dirs []string, name string, args ...string) ([]byte, error) {
	p, err := toolPath(dirs, name)
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, p, args...)
	// A child of the tool that keeps the output pipe open must not hold
	// Output past the kill either.
	cmd.WaitDelay = 100 * time.Millisecond
	return cmd.Output()
}

// findWithLsof asks lsof (-b: never block in the kernel on a stat of a
// dead mount) for the listener and ps for its state and parent.
func findWithLsof(ctx context.Context, dirs []string, port int) (Holder, error) {
	out, err := runTool(ctx, dirs, "lsof", "-b", "-nP", "-iTCP:"+strconv.Itoa(port), "-sTCP:LISTEN", "-Fpc")
	if err != nil {
		return Holder{}, ErrUnknown
	}
	h, ok := parseLsof(string(out))
	if !ok {
		return Holder{}, ErrUnknown
	}
	if ps, err := runTool(ctx, dirs, "ps", "-o", "stat=,ppid=", "-p", strconv.Itoa(h.PID)); err == nil {
		var ppid int
		h.Stopped, ppid = parsePs(string(ps))
		if ppid > 0 {
			if c, err := runTool(ctx, dirs, "ps", "-o", "comm=", "-p", strconv.Itoa(ppid)); err == nil {
				h.Parent = lastPathElem(strings.TrimSpace(string(c)))
			}
		}
	}
	return h, nil
}
