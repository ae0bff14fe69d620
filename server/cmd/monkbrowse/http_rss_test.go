package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestPeakRSSUnderHTTPFlood (issue 45, a measurement, opt-in with
// MONKBROWSE_RSS=1): 1,000 connections to serve --http at once, none with
// the token, each announcing a 100 MiB body and sending up to 16 MiB of it;
// then the endpoint still serves a request with the token. It logs the
// server's peak RSS (VmHWM) and fails above 256 MiB.
//
//	MONKBROWSE_RSS=1 go test -run TestPeakRSSUnderHTTPFlood -v ./cmd/monkbrowse
func TestPeakRSSUnderHTTPFlood(t *testing.T) {
	if os.Getenv("MONKBROWSE_RSS") == "" {
		t.Skip("a measurement: set MONKBROWSE_RSS=1")
	}
	home := t.TempDir()
	addr := "127.0.0.1:" + strconv.Itoa(freePort(t))
	cmd := exec.Command(binPath, "serve", "--http", addr, "--port", "0", "--control-port", strconv.Itoa(freePort(t)), "--log-level", "info")
	cmd.Env = append(cmd.Environ(), "HOME="+home)
	pipe, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	serving := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(pipe)
		said := false
		for sc.Scan() {
			if !said && strings.Contains(sc.Text(), "serving MCP over HTTP") {
				close(serving)
				said = true
			}
		}
	}()
	select {
	case <-serving:
	case <-time.After(watchdog):
		t.Fatal("serve --http did not start")
	}
	base := vmHWM(t, cmd.Process.Pid)

	const conns = 1000
	chunk := bytes.Repeat([]byte("A"), 1<<20)
	var wg sync.WaitGroup
	var mu sync.Mutex
	statuses := map[string]int{}
	for i := 0; i < conns; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := net.Dial("tcp", addr)
			if err != nil {
				mu.Lock()
				statuses["dial error"]++
				mu.Unlock()
				return
			}
			defer c.Close()
			_ = c.SetDeadline(time.Now().Add(60 * time.Second))
			fmt.Fprintf(c, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", addr, 100<<20)
			go func() {
				for j := 0; j < 16; j++ {
					if _, err := c.Write(chunk); err != nil {
						return
					}
				}
			}()
			line, err := bufio.NewReader(c).ReadString('\n')
			key := strings.TrimSpace(line)
			if err != nil && key == "" {
				key = "no answer (" + strings.SplitN(err.Error(), ":", 2)[0] + ")"
			}
			mu.Lock()
			statuses[key]++
			mu.Unlock()
			_, _ = io.Copy(io.Discard, c)
		}()
	}
	wg.Wait()
	peak := vmHWM(t, cmd.Process.Pid)
	t.Logf("serve --http peak RSS: %d KiB at rest, %d KiB after %d unauthenticated connections announcing 100 MiB bodies; answers: %v", base, peak, conns, statuses)

	tokb, err := os.ReadFile(home + "/.monkbrowse/http-token")
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest(http.MethodPost, "http://"+addr+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"rss","version":"1"}}}`))
	req.Header.Set("Authorization", "Bearer "+strings.TrimSpace(string(tokb)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("after the flood a request with the token got %d", resp.StatusCode)
	}
	if peak > 256<<10 {
		t.Fatalf("peak RSS %d KiB, over 256 MiB", peak)
	}
}
