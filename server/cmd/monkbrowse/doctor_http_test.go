package main

import (
	"bufio"
	"context"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// TestDoctorNamesHTTPClients (issue 45): with an AI app connected over
// HTTP to a `serve --http` process, `monkbrowse doctor` shows the
// endpoint, the app by the name it gave in initialize with its number of
// tool calls, and the token file's state. The serve --http process is a
// forwarder (a stdio app owns the browser connection), so the owner asks it
// over the control port (http_status); then the stdio app leaves and the
// serve --http process, owner now, reports its endpoint itself.
func TestDoctorNamesHTTPClients(t *testing.T) {
	home := t.TempDir()
	ctlPort := freePort(t)
	stdioApp := startProcWith(t, procOptions{legacy: true, home: home, controlPort: ctlPort})

	addr := "127.0.0.1:" + strconv.Itoa(freePort(t))
	cmd := exec.Command(binPath, "serve", "--http", addr, "--port", "0", "--control-port", strconv.Itoa(ctlPort), "--log-level", "debug")
	cmd.Env = append(cmd.Environ(), "HOME="+home)
	stderr := &syncBuffer{}
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string, 1024)
	go func() {
		sc := bufio.NewScanner(pipe)
		for sc.Scan() {
			stderr.Write(append(sc.Bytes(), '\n'))
			select {
			case lines <- sc.Text():
			default:
			}
		}
		close(lines)
	}()
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		if t.Failed() {
			t.Logf("serve --http stderr:\n%s", stderr.String())
		}
	})
	// waitLines waits until serve --http has logged each of whats, in any
	// order.
	waitLines := func(whats ...string) {
		t.Helper()
		timeout := time.After(watchdog)
		for len(whats) > 0 {
			select {
			case l, ok := <-lines:
				if !ok {
					t.Fatalf("serve --http ended before %q", whats)
				}
				for i, w := range whats {
					if strings.Contains(l, w) {
						whats = append(whats[:i:i], whats[i+1:]...)
						break
					}
				}
			case <-timeout:
				t.Fatalf("no %q line from serve --http", whats)
			}
		}
	}
	waitLines("forwarding tool calls to it", "serving MCP over HTTP")

	ctx, cancel := context.WithTimeout(context.Background(), watchdog)
	defer cancel()
	url := "http://" + addr + "/mcp"
	tr, err := transport.NewStreamableHTTP(url, transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + tokenCmd(t, home)}))
	if err != nil {
		t.Fatal(err)
	}
	//lint:ignore SA1019 the MCP clients AI apps ship today still say initialize; we test that handshake on purpose
	c := client.NewClient(tr, client.WithLegacyProtocolOnly())
	defer c.Close()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "Doctor Test App", Version: "1"}
	if _, err := c.Initialize(ctx, init); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		req := mcp.CallToolRequest{}
		req.Params.Name = "browser_list_tabs"
		if _, err := c.CallTool(ctx, req); err != nil {
			t.Fatalf("browser_list_tabs over HTTP: %v", err)
		}
	}

	doctor := func() string {
		t.Helper()
		cmd := exec.Command(binPath, "doctor", "--port", strconv.Itoa(freePort(t)), "--control-port", strconv.Itoa(ctlPort))
		cmd.Env = append(cmd.Environ(), "HOME="+home)
		out, _ := cmd.Output() // exit 1: no extension connected
		return string(out)
	}
	wants := []string{
		"HTTP endpoint:  " + url + ", served by monkbrowse serve --http (pid " + strconv.Itoa(cmd.Process.Pid) + "); 1 AI app connected:",
		"Doctor Test App, since ",
		", 2 tool calls",
		"/.monkbrowse/http-token: present, mode 0600, owned by you",
	}
	out := doctor()
	for _, w := range wants {
		if !strings.Contains(out, w) {
			t.Errorf("doctor (serve --http a forwarder) lacks %q:\n%s", w, out)
		}
	}

	// The stdio app leaves: serve --http takes over as owner and reports
	// its endpoint itself.
	stdioApp.c.Close()
	waitLines("owner: serving the extension port and the control port")
	out = doctor()
	for _, w := range wants {
		if !strings.Contains(out, w) {
			t.Errorf("doctor (serve --http the owner) lacks %q:\n%s", w, out)
		}
	}
}
