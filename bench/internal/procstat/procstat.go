// Package procstat reads resident memory of a process tree from /proc.
package procstat

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// RSS is the resident set size of pid in bytes (VmRSS), 0 if it is gone.
func RSS(pid int) int64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := sc.Text()
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			f := strings.Fields(v)
			if len(f) >= 1 {
				kb, _ := strconv.ParseInt(f[0], 10, 64)
				return kb * 1024
			}
		}
	}
	return 0
}

// Descendants lists every live descendant of pid (not pid itself), found by
// each process's parent id in /proc/<pid>/stat.
func Descendants(pid int) []int {
	children := map[int][]int{}
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		b, err := os.ReadFile(d + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid …; comm may hold spaces and parentheses.
		i := bytes.LastIndexByte(b, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(b[i+1:]))
		if len(f) < 2 {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		p, _ := strconv.Atoi(filepath.Base(d))
		children[ppid] = append(children[ppid], p)
	}
	var out []int
	queue := []int{pid}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range children[p] {
			out = append(out, c)
			queue = append(queue, c)
		}
	}
	return out
}

// PSS is the proportional set size of pid in bytes (Pss in
// /proc/<pid>/smaps_rollup): shared pages are divided among the processes
// sharing them, so sums over a process tree are meaningful. 0 if unreadable.
func PSS(pid int) int64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/smaps_rollup")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "Pss:"); ok {
			f := strings.Fields(v)
			if len(f) >= 1 {
				kb, _ := strconv.ParseInt(f[0], 10, 64)
				return kb * 1024
			}
		}
	}
	return 0
}

// TreePSS sums PSS over pid and its descendants.
func TreePSS(pid int) int64 {
	sum := PSS(pid)
	for _, c := range Descendants(pid) {
		sum += PSS(c)
	}
	return sum
}

// USS is the unique (private) memory of pid in bytes: Private_Clean +
// Private_Dirty in /proc/<pid>/smaps_rollup, the memory that would be freed
// if the process exited. Unlike PSS it does not depend on what other
// processes (another browser) share the same libraries. 0 if unreadable.
func USS(pid int) int64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/smaps_rollup")
	if err != nil {
		return 0
	}
	var sum int64
	for _, line := range strings.Split(string(b), "\n") {
		for _, key := range []string{"Private_Clean:", "Private_Dirty:"} {
			if v, ok := strings.CutPrefix(line, key); ok {
				if f := strings.Fields(v); len(f) >= 1 {
					kb, _ := strconv.ParseInt(f[0], 10, 64)
					sum += kb * 1024
				}
			}
		}
	}
	return sum
}

// TreeUSS sums USS over pid and its descendants.
func TreeUSS(pid int) int64 {
	sum := USS(pid)
	for _, c := range Descendants(pid) {
		sum += USS(c)
	}
	return sum
}
