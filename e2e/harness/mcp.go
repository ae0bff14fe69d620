package harness

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// ServerConfig says how to start one monkbrowse process.
type ServerConfig struct {
	// Bin is the monkbrowse binary (required).
	Bin string
	// Port and ControlPort are passed as --port and --control-port.
	Port, ControlPort int
	// Home is $HOME for the process, where the control token lives; give
	// the processes that should share a daemon the same Home. Required.
	Home string
	// MaxProfiles, when > 0, is passed as --max-profiles.
	MaxProfiles int
	// LogLevel is passed as --log-level (default "debug").
	LogLevel string
	// Log, when not nil, receives the process's stderr as well (it is
	// always kept in a buffer, see Server.Log).
	Log io.Writer
	// Name labels the process in messages ("owner", "forwarder-2", …).
	Name string
	// ModernProtocol negotiates the newest MCP protocol instead of the
	// initialize handshake that today's MCP hosts use.
	ModernProtocol bool
	// Args are more command-line flags (e.g. --upload-root DIR).
	Args []string
	// Env are more environment variables for the process (KEY=value),
	// e.g. MONKBROWSE_ASK_SLICE for a short browser_ask_user slice.
	Env []string
	// ClientName is the MCP client's name in initialize (default
	// "monkbrowse-e2e"); the extension shows the AI app by it.
	ClientName string
}

// Server is one monkbrowse process spoken to over stdio by an MCP client, as
// an AI app does.
type Server struct {
	Name   string
	cfg    ServerConfig
	client *client.Client
	cmd    *exec.Cmd
	log    *LockedBuffer
	closed sync.Once
}

// LockedBuffer is a bytes.Buffer safe for concurrent writes and reads.
type LockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *LockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// String returns everything written so far.
func (b *LockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// FreePort returns a currently free TCP port on 127.0.0.1.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// StartServer starts monkbrowse and completes the MCP handshake.
func StartServer(ctx context.Context, cfg ServerConfig) (*Server, error) {
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
		cfg.Name = "monkbrowse"
	}
	s := &Server{Name: cfg.Name, cfg: cfg, log: &LockedBuffer{}}
	args := []string{"--port", strconv.Itoa(cfg.Port), "--control-port", strconv.Itoa(cfg.ControlPort), "--log-level", cfg.LogLevel}
	if cfg.MaxProfiles > 0 {
		args = append(args, "--max-profiles", strconv.Itoa(cfg.MaxProfiles))
	}
	// Every tool group is on unless the test chooses (issue 30): the
	// suite calls the optional tools too (network, coordinates, debugger, webmcp).
	if !hasCaps(cfg.Args) {
		args = append(args, "--caps", "all")
	}
	args = append(args, cfg.Args...)
	var logw io.Writer = s.log
	if cfg.Log != nil {
		logw = io.MultiWriter(s.log, &prefixWriter{w: cfg.Log, prefix: "[" + cfg.Name + "] "})
	}
	cmdFunc := func(_ context.Context, command string, env []string, args []string) (*exec.Cmd, error) {
		// Not tied to ctx: the process lives until Close or Kill.
		cmd := exec.Command(command, args...)
		cmd.Env = append(os.Environ(), env...)
		cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
		cmd.Stderr = logw
		s.cmd = cmd
		return cmd, nil
	}
	tr := transport.NewStdioWithOptions(cfg.Bin, append([]string{"HOME=" + cfg.Home}, cfg.Env...), args, transport.WithCommandFunc(cmdFunc))
	var opts []client.ClientOption
	if !cfg.ModernProtocol {
		//lint:ignore SA1019 the MCP clients AI apps ship today still say initialize; we test that handshake on purpose
		opts = append(opts, client.WithLegacyProtocolOnly())
	}
	s.client = client.NewClient(tr, opts...)
	if err := s.client.Start(context.Background()); err != nil {
		return nil, fmt.Errorf("starting %s: %w", cfg.Name, err)
	}
	registerProcess(s.cmd.Process.Pid, cfg.Name+" (monkbrowse)")
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
	clientName := cfg.ClientName
	if clientName == "" {
		clientName = "monkbrowse-e2e"
	}
	init.Params.ClientInfo = mcp.Implementation{Name: clientName, Version: "1"}
	ictx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	if _, err := s.client.Initialize(ictx, init); err != nil {
		s.Kill()
		return nil, fmt.Errorf("MCP initialize with %s: %w\n%s stderr:\n%s", cfg.Name, err, cfg.Name, tail(s.log.String(), 40))
	}
	return s, nil
}

// Log is everything the process wrote to stderr so far.
func (s *Server) Log() string { return s.log.String() }

// Close ends the MCP session as a host does (stdin closed, then SIGTERM,
// then SIGKILL) and waits for the process.
func (s *Server) Close() error {
	var err error
	s.closed.Do(func() {
		err = s.client.Close()
		unregisterProcess(s.cmd.Process.Pid)
	})
	return err
}

// Kill kills the process at once (SIGKILL), like a crash, and reaps it.
func (s *Server) Kill() {
	_ = s.cmd.Process.Signal(syscall.SIGKILL)
	_ = s.Close()
}

// ToolResult is a tool call's result reduced to what the tests look at.
type ToolResult struct {
	// Text joins every text item with newlines.
	Text    string
	IsError bool
	// Images are the decoded image items.
	Images []Image
}

// Image is one image content item.
type Image struct {
	MIMEType string
	Data     []byte
}

// ListTools returns the names of the tools the server lists.
func (s *Server) ListTools(ctx context.Context) ([]mcp.Tool, error) {
	res, err := s.client.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		return nil, err
	}
	return res.Tools, nil
}

// Call calls a tool. A Go error means the call could not be made (transport
// or JSON-RPC error); a tool failure is a result with IsError set.
func (s *Server) Call(ctx context.Context, name string, args map[string]any) (ToolResult, error) {
	req := mcp.CallToolRequest{}
	req.Params.Name = name
	if args == nil {
		args = map[string]any{}
	}
	req.Params.Arguments = args
	res, err := s.client.CallTool(ctx, req)
	if err != nil {
		return ToolResult{}, fmt.Errorf("%s %s: %w", name, compactJSON(args), err)
	}
	var out ToolResult
	out.IsError = res.IsError
	var texts []string
	for _, c := range res.Content {
		if tc, ok := mcp.AsTextContent(c); ok {
			texts = append(texts, tc.Text)
			continue
		}
		if ic, ok := mcp.AsImageContent(c); ok {
			data, err := base64.StdEncoding.DecodeString(ic.Data)
			if err != nil {
				return out, fmt.Errorf("%s: image content is not base64: %w", name, err)
			}
			out.Images = append(out.Images, Image{MIMEType: ic.MIMEType, Data: data})
		}
	}
	out.Text = strings.Join(texts, "\n")
	return out, nil
}

func compactJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	if len(b) > 300 {
		return string(b[:300]) + "…"
	}
	return string(b)
}

func tail(s string, lines int) string {
	parts := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(parts) > lines {
		parts = parts[len(parts)-lines:]
	}
	return strings.Join(parts, "\n")
}

// Tail returns the last n lines of s.
func Tail(s string, n int) string { return tail(s, n) }

type prefixWriter struct {
	mu     sync.Mutex
	w      io.Writer
	prefix string
	part   []byte
}

func (p *prefixWriter) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.part = append(p.part, b...)
	for {
		i := bytes.IndexByte(p.part, '\n')
		if i < 0 {
			break
		}
		line := p.part[:i+1]
		if _, err := io.WriteString(p.w, p.prefix+string(line)); err != nil {
			return len(b), nil
		}
		p.part = p.part[i+1:]
	}
	return len(b), nil
}

// hasCaps reports whether args choose the tool groups themselves.
func hasCaps(args []string) bool {
	for _, a := range args {
		if a == "--caps" || a == "-caps" || strings.HasPrefix(a, "--caps=") || strings.HasPrefix(a, "-caps=") {
			return true
		}
	}
	return false
}
