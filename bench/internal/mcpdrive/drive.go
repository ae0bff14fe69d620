// Package mcpdrive starts an MCP server as a child process and talks to it
// over stdio with the mark3labs/mcp-go client, as an AI app does. It times
// the start-up (launch to initialize answered) and every tool call, and
// reduces results to what the benchmark measures: text and image sizes.
package mcpdrive

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// Config says how to start one server.
type Config struct {
	// Name labels the server in messages.
	Name string
	// Command and Args start the server; Command is looked up in PATH when
	// it has no slash.
	Command string
	Args    []string
	// Env is added to the benchmark's own environment.
	Env []string
	// Dir is the working directory; empty means the current one.
	Dir string
	// Stderr receives the server's stderr; nil keeps only the last 64 KiB
	// (see Server.StderrTail).
	Stderr io.Writer
}

// Server is a running MCP server process with a connected client.
type Server struct {
	Name string
	// Startup is the time from launching the process to the initialize
	// response.
	Startup time.Duration
	// Info is what the server said about itself in initialize.
	Info mcp.Implementation

	client *client.Client
	cmd    *exec.Cmd
	tail   *tailBuffer
	once   sync.Once
}

// Start launches the server and completes the MCP initialize handshake (the
// one today's hosts use: client.WithLegacyProtocolOnly).
func Start(ctx context.Context, cfg Config) (*Server, error) {
	s := &Server{Name: cfg.Name, tail: &tailBuffer{max: 64 << 10}}
	var errw io.Writer = s.tail
	if cfg.Stderr != nil {
		errw = io.MultiWriter(s.tail, cfg.Stderr)
	}
	cmdFunc := func(_ context.Context, command string, env []string, args []string) (*exec.Cmd, error) {
		// Not bound to ctx: the process lives until Close.
		cmd := exec.Command(command, args...)
		cmd.Env = append(os.Environ(), env...)
		cmd.Dir = cfg.Dir
		cmd.Stderr = errw
		// Own process group, so Close can end the browser it launched too;
		// and the server dies with the benchmark.
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
		s.cmd = cmd
		return cmd, nil
	}
	tr := transport.NewStdioWithOptions(cfg.Command, cfg.Env, cfg.Args, transport.WithCommandFunc(cmdFunc))
	//lint:ignore SA1019 the MCP clients AI apps ship today still say initialize; we test that handshake on purpose
	s.client = client.NewClient(tr, client.WithLegacyProtocolOnly())
	t0 := time.Now()
	if err := s.client.Start(context.Background()); err != nil {
		return nil, fmt.Errorf("starting %s: %w", cfg.Name, err)
	}
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "monkbrowse-bench", Version: "1"}
	ictx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	res, err := s.client.Initialize(ictx, init)
	if err != nil {
		s.Close()
		return nil, fmt.Errorf("MCP initialize with %s: %w\nits stderr ends with:\n%s", cfg.Name, err, s.StderrTail())
	}
	s.Startup = time.Since(t0)
	s.Info = res.ServerInfo
	return s, nil
}

// Pid is the server's process id.
func (s *Server) Pid() int { return s.cmd.Process.Pid }

// StderrTail is the end of what the server wrote to stderr.
func (s *Server) StderrTail() string { return s.tail.String() }

// ListTools returns the names of the server's tools.
func (s *Server) ListTools(ctx context.Context) ([]string, error) {
	res, err := s.client.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		return nil, fmt.Errorf("tools/list on %s: %w", s.Name, err)
	}
	var names []string
	for _, t := range res.Tools {
		names = append(names, t.Name)
	}
	return names, nil
}

// ToolListBytes is the size of the server's tools/list result as it came
// over the wire (the JSON of the result, every page of it): what an AI app
// puts in its model's context before the first call.
func (s *Server) ToolListBytes(ctx context.Context) (int, error) {
	total := 0
	var cursor string
	for page := 0; page < 100; page++ {
		req := transport.JSONRPCRequest{JSONRPC: mcp.JSONRPC_VERSION, ID: mcp.NewRequestId(int64(1_000_000 + page)), Method: string(mcp.MethodToolsList)}
		if cursor != "" {
			req.Params = map[string]any{"cursor": cursor}
		}
		resp, err := s.client.GetTransport().SendRequest(ctx, req)
		if err != nil {
			return 0, fmt.Errorf("tools/list on %s: %w", s.Name, err)
		}
		if resp.Error != nil {
			return 0, fmt.Errorf("tools/list on %s: %s", s.Name, resp.Error.Message)
		}
		total += len(resp.Result)
		var next struct {
			NextCursor string `json:"nextCursor"`
		}
		_ = json.Unmarshal(resp.Result, &next)
		if next.NextCursor == "" {
			return total, nil
		}
		cursor = next.NextCursor
	}
	return total, fmt.Errorf("tools/list on %s: more than 100 pages", s.Name)
}

// Image is one image content item.
type Image struct {
	MIME string
	// Bytes is the decoded size.
	Bytes int
	Data  []byte
}

// Result is a tool call reduced to what the benchmark measures.
type Result struct {
	// Text joins every text item with a newline.
	Text    string
	Images  []Image
	IsError bool
	// Elapsed is the wall time from sending tools/call to the response.
	Elapsed time.Duration
}

// Call runs one tool. A tool failure (isError) is a Result with IsError set
// and a nil error; a protocol failure is an error.
func (s *Server) Call(ctx context.Context, name string, args map[string]any) (Result, error) {
	req := mcp.CallToolRequest{}
	req.Params.Name = name
	req.Params.Arguments = args
	t0 := time.Now()
	res, err := s.client.CallTool(ctx, req)
	el := time.Since(t0)
	if err != nil {
		return Result{Elapsed: el}, fmt.Errorf("%s: tools/call %s: %w", s.Name, name, err)
	}
	out := Result{IsError: res.IsError, Elapsed: el}
	var texts []string
	for _, c := range res.Content {
		switch v := c.(type) {
		case mcp.TextContent:
			texts = append(texts, v.Text)
		case *mcp.TextContent:
			texts = append(texts, v.Text)
		case mcp.ImageContent:
			out.Images = append(out.Images, decodeImage(v.MIMEType, v.Data))
		case *mcp.ImageContent:
			out.Images = append(out.Images, decodeImage(v.MIMEType, v.Data))
		}
	}
	out.Text = strings.Join(texts, "\n")
	return out, nil
}

func decodeImage(mime, b64 string) Image {
	data, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		return Image{MIME: mime, Bytes: len(b64) * 3 / 4}
	}
	return Image{MIME: mime, Bytes: len(data), Data: data}
}

// Close ends the session as a host does: stdin closed, then (after a grace
// period) SIGTERM and SIGKILL to the server's whole process group, so a
// browser it launched goes too.
func (s *Server) Close() {
	s.once.Do(func() {
		done := make(chan struct{})
		go func() { _ = s.client.Close(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
		}
		if s.cmd != nil && s.cmd.Process != nil {
			pgid := s.cmd.Process.Pid
			_ = syscall.Kill(-pgid, syscall.SIGTERM)
			time.Sleep(200 * time.Millisecond)
			_ = syscall.Kill(-pgid, syscall.SIGKILL)
		}
	})
}

// ErrNoTool is returned by Require when a tool is missing.
var ErrNoTool = errors.New("mcpdrive: tool missing")

// Require checks that the server lists every name in want.
func (s *Server) Require(ctx context.Context, want ...string) error {
	have, err := s.ListTools(ctx)
	if err != nil {
		return err
	}
	set := map[string]bool{}
	for _, n := range have {
		set[n] = true
	}
	var missing []string
	for _, w := range want {
		if !set[w] {
			missing = append(missing, w)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("%w: %s does not list %s (it lists %s)", ErrNoTool, s.Name, strings.Join(missing, ", "), strings.Join(have, ", "))
	}
	return nil
}

type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = append([]byte(nil), t.b[len(t.b)-t.max:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}
