package harness

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"syscall"

	"github.com/mark3labs/mcp-go/mcp"
)

// RawServer is one monkbrowse process spoken to with raw JSON-RPC lines on
// its stdin: a test decides exactly what is written, and when (several
// requests in one write, an order no client goroutine can change).
type RawServer struct {
	Name  string
	cmd   *exec.Cmd
	stdin io.WriteCloser
	log   *LockedBuffer

	mu      sync.Mutex
	waiting map[string]chan json.RawMessage // by the response's id
	done    chan struct{}                   // closed when stdout ends
}

// StartRawServer starts monkbrowse as StartServer does (cfg's ports, Home,
// log level and Args; ModernProtocol is ignored) and completes the
// initialize handshake with raw lines.
func StartRawServer(ctx context.Context, cfg ServerConfig) (*RawServer, error) {
	if cfg.Bin == "" || cfg.Home == "" {
		return nil, errors.New("harness: ServerConfig needs Bin and Home")
	}
	if err := SeedPairing(cfg.Home); err != nil {
		return nil, err
	}
	if cfg.LogLevel == "" {
		cfg.LogLevel = "debug"
	}
	if cfg.Name == "" {
		cfg.Name = "monkbrowse-raw"
	}
	s := &RawServer{Name: cfg.Name, log: &LockedBuffer{}, waiting: map[string]chan json.RawMessage{}, done: make(chan struct{})}
	args := []string{"--port", strconv.Itoa(cfg.Port), "--control-port", strconv.Itoa(cfg.ControlPort), "--log-level", cfg.LogLevel}
	args = append(args, cfg.Args...)
	s.cmd = exec.Command(cfg.Bin, args...)
	s.cmd.Env = append(os.Environ(), "HOME="+cfg.Home)
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	var logw io.Writer = s.log
	if cfg.Log != nil {
		logw = io.MultiWriter(s.log, &prefixWriter{w: cfg.Log, prefix: "[" + cfg.Name + "] "})
	}
	s.cmd.Stderr = logw
	var err error
	if s.stdin, err = s.cmd.StdinPipe(); err != nil {
		return nil, err
	}
	stdout, err := s.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := s.cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", cfg.Name, err)
	}
	registerProcess(s.cmd.Process.Pid, cfg.Name+" (monkbrowse, raw stdio)")
	go s.read(stdout)
	init := Request(0, "initialize", map[string]any{
		"protocolVersion": mcp.LATEST_LEGACY_PROTOCOL_VERSION,
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "monkbrowse-e2e-raw", "version": "1"},
	})
	if err := s.Write(init); err != nil {
		s.Kill()
		return nil, err
	}
	if _, err := s.Wait(ctx, 0); err != nil {
		s.Kill()
		return nil, fmt.Errorf("initialize with %s: %w\n%s stderr:\n%s", cfg.Name, err, cfg.Name, tail(s.log.String(), 40))
	}
	if err := s.Write([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")); err != nil {
		s.Kill()
		return nil, err
	}
	return s, nil
}

// Request is one JSON-RPC request line (newline included).
func Request(id int, method string, params any) []byte {
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	if err != nil {
		panic(err) // the tests' own values
	}
	return append(b, '\n')
}

// ToolCall is the tools/call request line for a tool.
func ToolCall(id int, name string, args map[string]any) []byte {
	return Request(id, "tools/call", map[string]any{"name": name, "arguments": args})
}

// Write writes lines to the process's stdin in one write.
func (s *RawServer) Write(lines ...[]byte) error {
	var all []byte
	for _, l := range lines {
		all = append(all, l...)
	}
	_, err := s.stdin.Write(all)
	return err
}

// Wait returns the response to request id: its result, or an error for a
// JSON-RPC error or a process that ended first.
func (s *RawServer) Wait(ctx context.Context, id int) (json.RawMessage, error) {
	ch := s.slot(strconv.Itoa(id))
	select {
	case msg := <-ch:
		var r struct {
			Result json.RawMessage `json:"result"`
			Error  *struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal(msg, &r); err != nil {
			return nil, fmt.Errorf("response %d: %w", id, err)
		}
		if r.Error != nil {
			return nil, fmt.Errorf("response %d: JSON-RPC error %d: %s", id, r.Error.Code, r.Error.Message)
		}
		return r.Result, nil
	case <-s.done:
		return nil, fmt.Errorf("%s ended before answering request %d", s.Name, id)
	case <-ctx.Done():
		return nil, fmt.Errorf("no response to request %d: %w", id, ctx.Err())
	}
}

// WaitTool returns the response to tools/call id as a ToolResult (text only).
func (s *RawServer) WaitTool(ctx context.Context, id int) (ToolResult, error) {
	raw, err := s.Wait(ctx, id)
	if err != nil {
		return ToolResult{}, err
	}
	var r struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		IsError bool `json:"isError"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return ToolResult{}, fmt.Errorf("tools/call %d: %w", id, err)
	}
	out := ToolResult{IsError: r.IsError}
	for _, c := range r.Content {
		if c.Type == "text" {
			if out.Text != "" {
				out.Text += "\n"
			}
			out.Text += c.Text
		}
	}
	return out, nil
}

// Log is everything the process wrote to stderr so far.
func (s *RawServer) Log() string { return s.log.String() }

// Close closes stdin (the AI app went away) and waits for the process.
func (s *RawServer) Close() {
	_ = s.stdin.Close()
	<-s.done
	_ = s.cmd.Wait()
	unregisterProcess(s.cmd.Process.Pid)
}

// Kill kills the process at once and reaps it.
func (s *RawServer) Kill() {
	_ = s.cmd.Process.Signal(syscall.SIGKILL)
	s.Close()
}

func (s *RawServer) slot(id string) chan json.RawMessage {
	s.mu.Lock()
	defer s.mu.Unlock()
	ch := s.waiting[id]
	if ch == nil {
		ch = make(chan json.RawMessage, 1)
		s.waiting[id] = ch
	}
	return ch
}

// read hands each response to its waiter; requests and notifications from
// the server (none is expected: the client declares no capability) are
// dropped.
func (s *RawServer) read(stdout io.Reader) {
	defer close(s.done)
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 0, 64<<10), 64<<20)
	for sc.Scan() {
		var env struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		line := append([]byte(nil), sc.Bytes()...)
		if json.Unmarshal(line, &env) != nil || env.Method != "" || len(env.ID) == 0 {
			continue
		}
		id := string(env.ID)
		if unq, err := strconv.Unquote(id); err == nil {
			id = unq
		}
		s.slot(id) <- line
	}
}
