package main

import (
	"bufio"
	"fmt"
	"os/exec"
	"sort"
	"strconv"
	"testing"
	"time"
)

// BenchmarkStartup is launch → initialize answered (issue 30: ≤ 15 ms
// median), the way the side-by-side benchmark times it: a fresh process with
// a private HOME and free ports, one initialize written to stdin, the time
// until its answer is read. Run it outside -race:
//
//	go test -run '^$' -bench Startup -benchtime 30x ./cmd/monkbrowse
//
// It reports the median as ms/launch (ns/op includes the process's exit).
func BenchmarkStartup(b *testing.B) {
	var ms []float64
	for range b.N {
		home := b.TempDir()
		cmd := exec.Command(binPath, "--port", "0", "--control-port", strconv.Itoa(freePortB(b)), "--log-level", "warn")
		cmd.Env = append(cmd.Environ(), "HOME="+home)
		stdin, _ := cmd.StdinPipe()
		stdout, _ := cmd.StdoutPipe()
		t0 := time.Now()
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		fmt.Fprintln(stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`)
		if _, err := bufio.NewReader(stdout).ReadBytes('\n'); err != nil {
			b.Fatal(err)
		}
		ms = append(ms, float64(time.Since(t0).Microseconds())/1000)
		stdin.Close()
		_ = cmd.Wait()
	}
	sort.Float64s(ms)
	b.ReportMetric(ms[len(ms)/2], "ms/launch")
}
