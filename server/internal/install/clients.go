package install

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// ServerName is the name monkbrowse gets in every client's server list.
const ServerName = "monkbrowse"

// Env is the machine as install sees it; tests point it at a temporary home.
type Env struct {
	Home    string // the user's home directory
	GOOS    string // runtime.GOOS
	AppData string // %APPDATA% on Windows
	// LocalAppData is %LOCALAPPDATA% on Windows (empty: ~/AppData/Local),
	// where the browsers keep their profiles.
	LocalAppData string
	// XDGConfig is $XDG_CONFIG_HOME (empty: ~/.config).
	XDGConfig string
	// CodexHome is $CODEX_HOME (empty: ~/.codex).
	CodexHome string
	// ClaudeConfigDir is $CLAUDE_CONFIG_DIR (empty: the home directory).
	ClaudeConfigDir string
	// LookPath finds a client's own command (nil: exec.LookPath).
	LookPath func(string) (string, error)
	// Now stamps backups (nil: time.Now).
	Now func() time.Time
}

// EnvFromOS reads Env from the process environment.
func EnvFromOS(goos string) (Env, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return Env{}, fmt.Errorf("cannot find your home directory: %w", err)
	}
	return Env{
		Home: home, GOOS: goos, AppData: os.Getenv("APPDATA"), LocalAppData: os.Getenv("LOCALAPPDATA"), XDGConfig: os.Getenv("XDG_CONFIG_HOME"),
		CodexHome: os.Getenv("CODEX_HOME"), ClaudeConfigDir: os.Getenv("CLAUDE_CONFIG_DIR"),
	}, nil
}

func (e Env) lookPath(name string) (string, error) {
	if e.LookPath != nil {
		return e.LookPath(name)
	}
	return exec.LookPath(name)
}

func (e Env) now() time.Time {
	if e.Now != nil {
		return e.Now()
	}
	return time.Now()
}

// userConfigDir is where desktop apps keep their settings on this OS.
func (e Env) userConfigDir() string {
	switch e.GOOS {
	case "darwin":
		return filepath.Join(e.Home, "Library", "Application Support")
	case "windows":
		if e.AppData != "" {
			return e.AppData
		}
		return filepath.Join(e.Home, "AppData", "Roaming")
	}
	if e.XDGConfig != "" {
		return e.XDGConfig
	}
	return filepath.Join(e.Home, ".config")
}

// Client is one MCP client's configuration.
type Client struct {
	Name   string // the --client name
	Title  string
	File   string // its configuration file
	Format string // "json", "jsonc" or "toml"
	Key    string // the table of servers: mcpServers, servers, mcp_servers
	// Marker is a directory (or file) whose presence means the client is
	// installed.
	Marker string
	// CLI is the client's own command, when it has one that adds servers.
	CLI string
	// entry renders the server entry for the command.
	entry func(command string) []field
	// httpEntry renders an entry for `monkbrowse serve --http` (install
	// --http): the URL and the token's header. Nil: the client takes no
	// URL in its configuration.
	httpEntry func(url, token string) []field
}

// bearer is the headers object of an HTTP entry.
func bearer(token string) map[string]any {
	return map[string]any{"Authorization": "Bearer " + token}
}

type field struct {
	key   string
	value any
}

// Clients lists every supported client with its paths on this machine.
func Clients(e Env) []Client {
	cfg := e.userConfigDir()
	claudeDir := e.Home
	if e.ClaudeConfigDir != "" {
		claudeDir = e.ClaudeConfigDir
	}
	codex := e.CodexHome
	if codex == "" {
		codex = filepath.Join(e.Home, ".codex")
	}
	plain := func(c string) []field { return []field{{"command", c}} }
	return []Client{
		{Name: "claude-code", Title: "Claude Code", File: filepath.Join(claudeDir, ".claude.json"), Format: "json", Key: "mcpServers",
			Marker: filepath.Join(e.Home, ".claude"), CLI: "claude",
			entry: func(c string) []field {
				return []field{{"type", "stdio"}, {"command", c}, {"args", []any{}}, {"env", map[string]any{}}}
			},
			httpEntry: func(u, t string) []field { return []field{{"type", "http"}, {"url", u}, {"headers", bearer(t)}} }},
		{Name: "claude-desktop", Title: "Claude Desktop", File: filepath.Join(cfg, "Claude", "claude_desktop_config.json"), Format: "json", Key: "mcpServers",
			Marker: filepath.Join(cfg, "Claude"), entry: plain},
		{Name: "cursor", Title: "Cursor", File: filepath.Join(e.Home, ".cursor", "mcp.json"), Format: "json", Key: "mcpServers",
			Marker: filepath.Join(e.Home, ".cursor"), entry: plain,
			httpEntry: func(u, t string) []field { return []field{{"url", u}, {"headers", bearer(t)}} }},
		{Name: "vscode", Title: "VS Code", File: filepath.Join(cfg, "Code", "User", "mcp.json"), Format: "jsonc", Key: "servers",
			Marker:    filepath.Join(cfg, "Code", "User"),
			entry:     func(c string) []field { return []field{{"type", "stdio"}, {"command", c}} },
			httpEntry: func(u, t string) []field { return []field{{"type", "http"}, {"url", u}, {"headers", bearer(t)}} }},
		{Name: "codex", Title: "Codex", File: filepath.Join(codex, "config.toml"), Format: "toml", Key: "mcp_servers",
			Marker: codex, entry: plain},
		{Name: "windsurf", Title: "Windsurf", File: filepath.Join(e.Home, ".codeium", "windsurf", "mcp_config.json"), Format: "json", Key: "mcpServers",
			Marker: filepath.Join(e.Home, ".codeium", "windsurf"), entry: plain,
			httpEntry: func(u, t string) []field { return []field{{"serverUrl", u}, {"headers", bearer(t)}} }},
	}
}

// ClientNames is the list for --client.
func ClientNames() []string {
	var n []string
	for _, c := range Clients(Env{}) {
		n = append(n, c.Name)
	}
	return n
}
