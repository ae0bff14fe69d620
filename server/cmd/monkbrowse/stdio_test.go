package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/monkbrowse/monkbrowse/server/internal/cli"
)

// rawProc runs the binary with plain pipes, to check every byte of stdout.
type rawProc struct {
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	lines   chan string // stdout, line by line
	stderr  *syncBuffer
	exited  chan struct{} // closed when the process has exited
	waitErr error         // cmd.Wait's result, once exited is closed
}

func startRaw(t *testing.T, args ...string) *rawProc {
	t.Helper()
	base := []string{"--control-port", strconv.Itoa(freePort(t))}
	cmd := exec.Command(binPath, append(base, args...)...)
	cmd.Env = append(cmd.Environ(), "HOME="+t.TempDir())
	p := &rawProc{cmd: cmd, lines: make(chan string, 100), stderr: &syncBuffer{}, exited: make(chan struct{})}
	cmd.Stderr = p.stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if p.stdin, err = cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		r := bufio.NewReader(stdout)
		for {
			line, err := r.ReadString('\n')
			if line != "" {
				p.lines <- line
			}
			if err != nil {
				close(p.lines)
				return
			}
		}
	}()
	go func() { p.waitErr = cmd.Wait(); close(p.exited) }()
	t.Cleanup(func() {
		p.stdin.Close()
		select {
		case <-p.exited:
		case <-time.After(watchdog):
			cmd.Process.Kill()
		}
		if t.Failed() {
			t.Logf("stderr:\n%s", p.stderr.String())
		}
	})
	return p
}

func (p *rawProc) send(t *testing.T, msg string) {
	t.Helper()
	if _, err := io.WriteString(p.stdin, msg+"\n"); err != nil {
		t.Fatal(err)
	}
}

// next returns the next stdout line, failing on anything that is not a
// JSON-RPC 2.0 message.
func (p *rawProc) next(t *testing.T) map[string]any {
	t.Helper()
	select {
	case line, ok := <-p.lines:
		if !ok {
			t.Fatal("stdout closed")
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil || m["jsonrpc"] != "2.0" || !strings.HasSuffix(line, "\n") {
			t.Fatalf("stray bytes on stdout: %q", line)
		}
		return m
	case <-time.After(watchdog):
		t.Fatal("watchdog: no answer on stdout")
	}
	return nil
}

const initMsg = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`

func callMsg(id int, tool, args string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, id, tool, args)
}

func resultOf(t *testing.T, m map[string]any) (text string, isError bool) {
	t.Helper()
	res, _ := m["result"].(map[string]any)
	if res == nil {
		t.Fatalf("no result: %v", m)
	}
	for _, c := range res["content"].([]any) {
		text += c.(map[string]any)["text"].(string)
	}
	isError, _ = res["isError"].(bool)
	return text, isError
}

// TestStdoutIsOnlyJSONRPCAndStdinEOFExitsZero drives a whole session with
// raw pipes: every stdout line is a JSON-RPC message (logs went to
// stderr), and closing stdin ends the process with status 0.
func TestStdoutIsOnlyJSONRPCAndStdinEOFExitsZero(t *testing.T) {
	p := startRaw(t, "--port", "0", "--log-level", "debug")
	p.send(t, initMsg)
	if m := p.next(t); m["id"] != float64(1) {
		t.Fatalf("initialize: %v", m)
	}
	p.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	p.send(t, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	if m := p.next(t); len(m["result"].(map[string]any)["tools"].([]any)) != coreTools() {
		t.Fatalf("tools/list: %v", m)
	}
	p.send(t, callMsg(3, "browser_snapshot", `{}`))
	if text, isErr := resultOf(t, p.next(t)); !isErr || !strings.Contains(text, "No browser is connected") {
		t.Fatalf("call without extension: %q", text)
	}
	p.send(t, callMsg(4, "browser_click", `{"ref":1}`))
	if text, isErr := resultOf(t, p.next(t)); !isErr || !strings.Contains(text, `field "ref" must be a string`) {
		t.Fatalf("bad arguments: %q", text)
	}
	if !strings.Contains(p.stderr.String(), `"level":"debug"`) && !strings.Contains(p.stderr.String(), `"level":"info"`) {
		t.Fatalf("no log lines on stderr: %s", p.stderr.String())
	}

	p.stdin.Close()
	select {
	case <-p.exited:
		if p.waitErr != nil {
			t.Fatalf("exit after stdin EOF: %v", p.waitErr)
		}
	case <-time.After(watchdog):
		t.Fatal("watchdog: still running after stdin EOF")
	}
	for line := range p.lines {
		t.Fatalf("stray bytes on stdout after the session: %q", line)
	}
}

// TestExtensionPortTaken: another program holds the extension port. The
// process keeps serving MCP, tool calls explain the problem, and stderr
// names the port and how to pick another on both sides.
func TestExtensionPortTaken(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	p := startRaw(t, "--port", port)
	p.send(t, initMsg)
	p.next(t)
	p.send(t, callMsg(2, "browser_list_tabs", `{}`))
	text, isErr := resultOf(t, p.next(t))
	if !isErr || !strings.Contains(text, "127.0.0.1:"+port) || !strings.Contains(text, "--port N") {
		t.Fatalf("tool call while the port is taken: %q", text)
	}
	if !p.stderr.waitForText("another program already holds that port") {
		t.Fatalf("stderr never explained the taken port:\n%s", p.stderr.String())
	}
	for _, want := range []string{"127.0.0.1:" + port, "--port N", "options page"} {
		if !strings.Contains(p.stderr.String(), want) {
			t.Errorf("stderr lacks %q", want)
		}
	}
}

func TestVersionAndHelp(t *testing.T) {
	out, err := exec.Command(binPath, "--version").Output()
	if err != nil || !strings.HasPrefix(string(out), "monkbrowse ") {
		t.Fatalf("--version: %q %v", out, err)
	}
	out, err = exec.Command(binPath, "--help").Output()
	if err != nil || !strings.Contains(string(out), "allow-extension-id") || !strings.Contains(string(out), "doctor") {
		t.Fatalf("--help: %q %v", out, err)
	}
	if err := exec.Command(binPath, "--no-such-flag").Run(); err == nil {
		t.Fatal("an unknown flag was accepted")
	}
}

// TestListenFlag: --listen binds the extension port elsewhere than loopback
// (a container's published port) and warns; the default stays on
// 127.0.0.1 without a warning; a bad address is refused.
func TestListenFlag(t *testing.T) {
	waitFor := func(p *rawProc, s string) {
		t.Helper()
		if !p.stderr.waitForText(s) {
			t.Fatalf("stderr never said %q:\n%s", s, p.stderr.String())
		}
	}
	wide := startRaw(t, "--listen", "0.0.0.0", "--port", "0")
	waitFor(wide, "listening for the monkbrowse extension")
	if !strings.Contains(wide.stderr.String(), `"addr":"0.0.0.0:`) && !strings.Contains(wide.stderr.String(), `"addr":"[::]:`) {
		t.Errorf("not bound to 0.0.0.0:\n%s", wide.stderr.String())
	}
	waitFor(wide, "listens beyond this machine")
	// Issue 40: 0.0.0.0 is one dual-stack socket, and the warning says so;
	// the port really answers on IPv6 loopback.
	if !strings.Contains(wide.stderr.String(), "every IPv4 and every IPv6 address") {
		t.Errorf("the warning does not say that 0.0.0.0 serves IPv6 too:\n%s", wide.stderr.String())
	}
	var port string
	for _, l := range strings.Split(wide.stderr.String(), "\n") {
		if strings.Contains(l, "listening for the monkbrowse extension") {
			var m struct{ Addr string }
			_ = json.Unmarshal([]byte(l), &m)
			_, port, _ = net.SplitHostPort(m.Addr)
		}
	}
	if c, err := net.Dial("tcp", net.JoinHostPort("::1", port)); err != nil {
		t.Logf("no IPv6 loopback here (%v): the dual-stack claim is not checked", err)
	} else {
		c.Close()
	}

	def := startRaw(t, "--port", "0")
	waitFor(def, "listening for the monkbrowse extension")
	if !strings.Contains(def.stderr.String(), `"addr":"127.0.0.1:`) || strings.Contains(def.stderr.String(), "listens beyond") {
		t.Errorf("default listen:\n%s", def.stderr.String())
	}

	out, err := exec.Command(binPath, "--listen", "localhost-ish").CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(string(out), "--listen") {
		t.Errorf("a bad --listen: %v %s", err, out)
	}
}

// TestAllowExtensionIDMustBeAnID (issue 40, finding 8): --allow-extension-id
// takes only Chrome extension ids (32 letters a–p), on the server and on
// install, with an error that says what an id looks like; nothing else
// reaches the Origin check or a native host's allowed_origins.
func TestAllowExtensionIDMustBeAnID(t *testing.T) {
	// Were a value accepted, the server would start: on ports of its own,
	// in a HOME of its own, and end at stdin's EOF.
	t.Setenv("HOME", t.TempDir())
	ports := []string{"--port", "0", "--control-port", strconv.Itoa(freePort(t))}
	for _, args := range [][]string{
		{"--allow-extension-id", "abc"},
		{"--allow-extension-id", "emkgfnickjohaibbledibfemnfkoamdj,*"},
		{"--allow-extension-id", "EMKGFNICKJOHAIBBLEDIBFEMNFKOAMDJ"},
		{"--allow-extension-id", "emkgfnickjohaibbledibfemnfkoamdz"},
		{"--allow-extension-id", "emkgfnickjohaibbledibfemnfkoamdj/\"*"},
		{"install", "--native-host-only", "--browser-data-dir", t.TempDir(), "--command", "/bin/true", "--allow-extension-id", "x/\",\"chrome-extension://evil"},
	} {
		if args[0] != "install" {
			args = append(ports, args...)
		}
		var out, errb strings.Builder
		if rc := cli.Run(args, strings.NewReader(""), &out, &errb); rc != 2 {
			t.Errorf("%q: exit %d, want 2 (stderr %q)", args, rc, errb.String())
		}
		if !strings.Contains(errb.String(), "is not a Chrome extension id: an id is 32 lower-case letters from a to p") {
			t.Errorf("%q: stderr %q does not say what an id is", args, errb.String())
		}
	}
	// Valid ids (two, comma-separated) are taken: the server starts and
	// ends at stdin's EOF.
	var out, errb strings.Builder
	if rc := cli.Run(append(ports, "--allow-extension-id", "emkgfnickjohaibbledibfemnfkoamdj, abcdefghijklmnopabcdefghijklmnop"), strings.NewReader(""), &out, &errb); rc != 0 {
		t.Fatalf("valid ids refused: exit %d, stderr %q", rc, errb.String())
	}
}
