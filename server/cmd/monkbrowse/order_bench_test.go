package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/monkbrowse/monkbrowse/protocol"
	"github.com/monkbrowse/monkbrowse/server/internal/fakeext"
)

// BenchmarkSameTabOrderIdleTab is issue 12's arrival-order and fairness
// measurement, run outside -race (scripts/bench-order):
//
//	go test -run '^$' -bench SameTabOrderIdleTab -benchtime 1x ./cmd/monkbrowse
//
// 1,000 press_key calls for tab 1 are written to stdin at once (each one
// costs the page workPerCall in the fake extension), followed by one
// get_text for tab 2. It fails when tab 1's calls reach the extension out
// of order, or when tab 2's answer takes more than 50 ms beyond its own
// work, and reports tab 2's latency and tab 1's throughput.
func BenchmarkSameTabOrderIdleTab(b *testing.B) {
	const n = 1000
	const workPerCall = 2 * time.Millisecond
	for range b.N {
		home := b.TempDir()
		cmd := exec.Command(binPath, "--port", "0", "--control-port", strconv.Itoa(freePortB(b)), "--log-level", "info")
		cmd.Env = append(cmd.Environ(), "HOME="+home)
		stdin, _ := cmd.StdinPipe()
		stdout, _ := cmd.StdoutPipe()
		stderr, _ := cmd.StderrPipe()
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		addr := make(chan string, 1)
		connected := make(chan struct{}) // closed at the owner's "extension connected" line
		go func() {
			sc := bufio.NewScanner(stderr)
			once := sync.Once{}
			for sc.Scan() {
				var l struct{ Addr, Message string }
				if json.Unmarshal(sc.Bytes(), &l) != nil {
					continue
				}
				if l.Addr != "" {
					select {
					case addr <- l.Addr:
					default:
					}
				}
				if l.Message == "extension connected" {
					once.Do(func() { close(connected) })
				}
			}
		}()
		answers := make(chan map[string]any, n+10)
		go func() {
			r := bufio.NewReader(stdout)
			for {
				line, err := r.ReadBytes('\n')
				if len(line) > 0 {
					var m map[string]any
					json.Unmarshal(line, &m)
					answers <- m
				}
				if err != nil {
					close(answers)
					return
				}
			}
		}()
		io.WriteString(stdin, initMsg+"\n")
		<-answers
		io.WriteString(stdin, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")

		var url string
		select {
		case a := <-addr:
			url = "ws://" + a + "/"
		case <-time.After(watchdog):
			b.Fatal("no extension address on stderr")
		}
		ctx, cancel := context.WithTimeout(context.Background(), watchdog)
		ext, err := fakeext.Connect(ctx, fakeext.Options{URL: url, Home: home, Tabs: []fakeext.Tab{
			{ID: 101, WindowID: 1, Shared: true, Slot: 1, Active: true, URL: "https://one.example/"},
			{ID: 102, WindowID: 1, Shared: true, Slot: 2, URL: "https://two.example/"},
		}})
		cancel()
		if err != nil {
			b.Fatal(err)
		}
		var mu sync.Mutex
		var keys []int
		ext.SetHook(func(ctx context.Context, r fakeext.Request) error {
			if r.TabID == 101 && r.Type == protocol.MsgPressKey {
				var p struct{ Key string }
				json.Unmarshal(r.Payload, &p)
				k, _ := strconv.Atoi(strings.TrimPrefix(p.Key, "k"))
				mu.Lock()
				keys = append(keys, k)
				mu.Unlock()
				time.Sleep(workPerCall)
			}
			return nil
		})
		// The profile is listed once the owner has logged it connected.
		select {
		case <-connected:
		case <-time.After(watchdog):
			b.Fatal("the owner never logged the extension connected")
		}
		io.WriteString(stdin, callMsg(1_000_000, "browser_list_tabs", `{}`)+"\n")
		if m := <-answers; !strings.Contains(fmt.Sprint(m["result"]), "connected)") {
			b.Fatalf("the connected profile is not listed: %v", m)
		}

		var sb strings.Builder
		for i := range n {
			sb.WriteString(callMsg(10+i, "browser_press_key", fmt.Sprintf(`{"tab":1,"key":"k%d"}`, i)) + "\n")
		}
		b.ResetTimer()
		start := time.Now()
		io.WriteString(stdin, sb.String())
		otherSent := time.Now()
		io.WriteString(stdin, callMsg(5, "browser_get_text", `{"tab":2}`)+"\n")
		var otherLatency time.Duration
		got := 0
		for got < n+1 {
			m, ok := <-answers
			if !ok {
				b.Fatal("stdout closed")
			}
			if m["error"] != nil || strings.Contains(fmt.Sprint(m["result"]), "isError:true") {
				b.Fatalf("a call failed: %v", m)
			}
			if m["id"] == float64(5) {
				otherLatency = time.Since(otherSent)
			}
			got++
		}
		total := time.Since(start)
		b.StopTimer()

		mu.Lock()
		inversions := 0
		for i, k := range keys {
			if k != i {
				inversions++
			}
		}
		sorted := sort.IntsAreSorted(keys)
		mu.Unlock()
		if len(keys) != n || !sorted || inversions > 0 {
			b.Fatalf("tab 1's calls reached the extension out of order: %d of %d arrived, %d out of place", len(keys), n, inversions)
		}
		if otherLatency > 50*time.Millisecond {
			b.Fatalf("tab 2's call took %s behind tab 1's %d queued calls; want ≤ 50 ms", otherLatency, n)
		}
		b.ReportMetric(float64(otherLatency.Microseconds())/1000, "tab2-ms")
		b.ReportMetric(float64(n)/total.Seconds(), "tab1-calls/s")
		b.ReportMetric(float64(inversions), "inversions")
		ext.Close()
		stdin.Close()
		cmd.Wait()
	}
}

func freePortB(b *testing.B) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}
