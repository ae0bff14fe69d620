// Package install implements `monkbrowse install` and `monkbrowse
// uninstall`: it finds the MCP clients on the machine and adds monkbrowse to
// each one's configuration, merging into the existing file (JSON, VS Code's
// JSONC, Codex's TOML) with text insertions that keep comments and
// formatting, keeping a backup, never adding a second entry, refusing a file
// it cannot parse, and recording what it added so uninstall removes exactly
// that. Where a client has its own command (`claude mcp add`), it uses it.
package install

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
)

// ServerName is the name monkbrowse gets in every client's server list.
const ServerName = "monkbrowse"

// Env is the machine as install sees it; tests point it at a temporary home.
type Env struct {
	Home    string // the user's home directory
	GOOS    string // runtime.GOOS
	AppData string // %APPDATA% on Windows
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
		Home: home, GOOS: goos, AppData: os.Getenv("APPDATA"), XDGConfig: os.Getenv("XDG_CONFIG_HOME"),
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
			}},
		{Name: "claude-desktop", Title: "Claude Desktop", File: filepath.Join(cfg, "Claude", "claude_desktop_config.json"), Format: "json", Key: "mcpServers",
			Marker: filepath.Join(cfg, "Claude"), entry: plain},
		{Name: "cursor", Title: "Cursor", File: filepath.Join(e.Home, ".cursor", "mcp.json"), Format: "json", Key: "mcpServers",
			Marker: filepath.Join(e.Home, ".cursor"), entry: plain},
		{Name: "vscode", Title: "VS Code", File: filepath.Join(cfg, "Code", "User", "mcp.json"), Format: "jsonc", Key: "servers",
			Marker: filepath.Join(cfg, "Code", "User"),
			entry:  func(c string) []field { return []field{{"type", "stdio"}, {"command", c}} }},
		{Name: "codex", Title: "Codex", File: filepath.Join(codex, "config.toml"), Format: "toml", Key: "mcp_servers",
			Marker: codex, entry: plain},
		{Name: "windsurf", Title: "Windsurf", File: filepath.Join(e.Home, ".codeium", "windsurf", "mcp_config.json"), Format: "json", Key: "mcpServers",
			Marker: filepath.Join(e.Home, ".codeium", "windsurf"), entry: plain},
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

// Options configures Install and Uninstall.
type Options struct {
	Env     Env
	Command string   // the absolute path of the monkbrowse binary
	Clients []string // --client names; empty: every client found
	DryRun  bool
	Out     io.Writer
	// State is the record of what install added (default
	// ~/.monkbrowse/installed.json).
	State string
}

func (o *Options) statePath() string {
	if o.State != "" {
		return o.State
	}
	return filepath.Join(o.Env.Home, ".monkbrowse", "installed.json")
}

// record is one thing install added.
type record struct {
	Client  string `json:"client"`
	Via     string `json:"via"` // "file" or "cli"
	File    string `json:"file,omitempty"`
	Command string `json:"command"`
	Existed bool   `json:"existed"` // the file existed before
	Before  string `json:"before,omitempty"`
	After   string `json:"after,omitempty"`
	Added   string `json:"added,omitempty"` // the text inserted
	At      string `json:"at"`
}

type state struct {
	Records []record `json:"records"`
}

func loadState(p string) (*state, error) {
	b, err := os.ReadFile(p)
	if errors.Is(err, os.ErrNotExist) {
		return &state{}, nil
	}
	if err != nil {
		return nil, err
	}
	var s state
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("%s is damaged (%v): move it away to start over", p, err)
	}
	return &s, nil
}

func (s *state) save(p string) error {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return err
	}
	return writeFileAtomic(p, append(b, '\n'), 0o600)
}

// selectClients resolves --client names (all found ones when empty).
func selectClients(o *Options) ([]Client, error) {
	all := Clients(o.Env)
	if len(o.Clients) == 0 {
		var found []Client
		for _, c := range all {
			if exists(c.Marker) || exists(c.File) || (c.CLI != "" && o.hasCLI(c)) {
				found = append(found, c)
			}
		}
		return found, nil
	}
	var out []Client
	seen := map[string]bool{}
	for _, n := range o.Clients {
		n = strings.ToLower(strings.TrimSpace(n))
		if seen[n] {
			continue
		}
		seen[n] = true
		ok := false
		for _, c := range all {
			if c.Name == n {
				out, ok = append(out, c), true
			}
		}
		if !ok {
			return nil, fmt.Errorf("unknown client %q: use one of %s", n, strings.Join(ClientNames(), ", "))
		}
	}
	return out, nil
}

func (o *Options) hasCLI(c Client) bool {
	if c.CLI == "" {
		return false
	}
	_, err := o.Env.lookPath(c.CLI)
	return err == nil
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// ErrSomeFailed is returned when at least one client could not be set up;
// the others were.
var ErrSomeFailed = errors.New("some clients were not changed (see above)")

// Install adds monkbrowse to each selected client.
func Install(o Options) error {
	if !filepath.IsAbs(o.Command) {
		return fmt.Errorf("the monkbrowse command must be an absolute path, not %q", o.Command)
	}
	clients, err := selectClients(&o)
	if err != nil {
		return err
	}
	if len(clients) == 0 {
		fmt.Fprintf(o.Out, "No MCP client found on this machine (looked for %s).\nName one with --client NAME to create its configuration.\n", strings.Join(ClientNames(), ", "))
		return nil
	}
	st, err := loadState(o.statePath())
	if err != nil {
		return err
	}
	failed := false
	for _, c := range clients {
		rec, err := installOne(&o, c)
		if err != nil {
			failed = true
			fmt.Fprintf(o.Out, "✗ %s: %v\n", c.Title, err)
			continue
		}
		if rec != nil && !o.DryRun {
			st.Records = append(st.Records, *rec)
			if err := st.save(o.statePath()); err != nil {
				return fmt.Errorf("%s was configured but the record for uninstall could not be written: %w", c.Title, err)
			}
		}
	}
	if failed {
		return ErrSomeFailed
	}
	return nil
}

func installOne(o *Options, c Client) (*record, error) {
	now := o.Env.now().UTC().Format(time.RFC3339)
	if o.hasCLI(c) {
		cli, _ := o.Env.lookPath(c.CLI)
		if err := exec.Command(cli, "mcp", "get", ServerName).Run(); err == nil {
			fmt.Fprintf(o.Out, "= %s: already has a %q server (`%s mcp get %s`); left as it is\n", c.Title, ServerName, c.CLI, ServerName)
			return nil, nil
		}
		args := []string{"mcp", "add", "--scope", "user", ServerName, "--", o.Command}
		if o.DryRun {
			fmt.Fprintf(o.Out, "~ %s: would run: %s %s\n", c.Title, c.CLI, strings.Join(args, " "))
			return nil, nil
		}
		out, err := exec.Command(cli, args...).CombinedOutput()
		if err != nil {
			return nil, fmt.Errorf("`%s %s` failed: %v: %s", c.CLI, strings.Join(args, " "), err, strings.TrimSpace(string(out)))
		}
		fmt.Fprintf(o.Out, "+ %s: added with `%s %s`\n", c.Title, c.CLI, strings.Join(args, " "))
		return &record{Client: c.Name, Via: "cli", Command: o.Command, At: now}, nil
	}

	raw, err := os.ReadFile(c.File)
	existed := err == nil
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	before := string(raw)
	after, added, err := addEntry(c, before, o.Command)
	if errors.Is(err, errPresent) {
		fmt.Fprintf(o.Out, "= %s: %s already has a %q server; left as it is\n", c.Title, c.File, ServerName)
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("cannot read %s: %v\n  The file is left unchanged. Fix it (or move it away) and run monkbrowse install again.", c.File, err)
	}
	if o.DryRun {
		verb := "would add to"
		if !existed {
			verb = "would create"
		}
		fmt.Fprintf(o.Out, "~ %s: %s %s:\n%s\n", c.Title, verb, c.File, indentLines(strings.Trim(added, "\n,"), "    "))
		return nil, nil
	}
	if existed {
		b, err := backup(o.Env, c.File, raw)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(o.Out, "  (backup: %s)\n", b)
	} else if err := os.MkdirAll(filepath.Dir(c.File), 0o755); err != nil {
		return nil, err
	}
	if err := writeFileAtomic(c.File, []byte(after), fileMode(c.File)); err != nil {
		return nil, err
	}
	fmt.Fprintf(o.Out, "+ %s: added %q to %s\n", c.Title, ServerName, c.File)
	return &record{Client: c.Name, Via: "file", File: c.File, Command: o.Command, Existed: existed,
		Before: before, After: after, Added: added, At: now}, nil
}

var errPresent = errors.New("already present")

// addEntry returns the file's new text with the monkbrowse entry, and the
// text added. errPresent: there is one already.
func addEntry(c Client, text, command string) (string, string, error) {
	if c.Format == "toml" {
		return addTOML(c, text, command)
	}
	doc, err := parseJSON(text, c.Format == "jsonc")
	if err != nil {
		return "", "", err
	}
	fields := c.entry(command)
	var after, added string
	switch servers, ok := doc.value[c.Key]; {
	case strings.TrimSpace(text) == "":
		added = "{\n  " + quote(c.Key) + ": {\n    " + quote(ServerName) + ": " + renderFields(fields, "    ", "  ") + "\n  }\n}\n"
		after = added
	case !ok:
		top := objectAt(doc.clean, strings.IndexByte(doc.clean, '{'))
		after, added, _ = insertMember(text, doc.trailing, top, c.Key, func(indent, unit string) string {
			if unit == "" {
				return "{" + quote(ServerName) + ":" + renderFields(fields, "", "") + "}"
			}
			return "{\n" + indent + unit + quote(ServerName) + ": " + renderFields(fields, indent+unit, unit) + "\n" + indent + "}"
		})
	default:
		m, isObj := servers.(map[string]any)
		if !isObj {
			return "", "", fmt.Errorf("%q is not an object", c.Key)
		}
		if _, has := m[ServerName]; has {
			return "", "", errPresent
		}
		for name, v := range m {
			if s, ok := v.(map[string]any); ok && s["command"] == command {
				return "", "", fmt.Errorf("%w (as %q)", errPresent, name)
			}
		}
		top := objectAt(doc.clean, strings.IndexByte(doc.clean, '{'))
		mem, _ := top.find(c.Key)
		after, added, _ = insertMember(text, doc.trailing, objectAt(doc.clean, mem.valueStart), ServerName, func(indent, unit string) string {
			return renderFields(fields, indent, unit)
		})
	}
	// The result must parse and hold exactly the entry.
	check, err := parseJSON(after, c.Format == "jsonc")
	if err != nil {
		return "", "", fmt.Errorf("internal error: the merged file would not parse (%v)", err)
	}
	if got := entryCommand(check.value, c.Key); got != command {
		return "", "", fmt.Errorf("internal error: the merged file does not hold the entry")
	}
	return after, added, nil
}

func entryCommand(v map[string]any, key string) string {
	servers, _ := v[key].(map[string]any)
	entry, _ := servers[ServerName].(map[string]any)
	s, _ := entry["command"].(string)
	return s
}

func quote(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}

// renderFields renders an entry as an object whose members are indented one
// unit deeper than indent.
// An empty unit renders it on one line.
func renderFields(fs []field, indent, unit string) string {
	nl, colon := "\n", ": "
	if unit == "" {
		nl, colon, indent = "", ":", ""
	}
	var b strings.Builder
	b.WriteString("{")
	for i, f := range fs {
		if i > 0 {
			b.WriteString(",")
		}
		v, _ := json.Marshal(f.value)
		if s, ok := f.value.(string); ok {
			v = []byte(quote(s))
		}
		b.WriteString(nl + indent + unit + quote(f.key) + colon + string(v))
	}
	b.WriteString(nl + indent + "}")
	return b.String()
}

// tomlString quotes s for TOML: a literal string when it can be (Windows
// paths keep their backslashes readable), else a basic string.
func tomlString(s string) string {
	if !strings.ContainsAny(s, "'\n\r") {
		return "'" + s + "'"
	}
	return quote(s) // JSON escapes are valid TOML basic-string escapes
}

func addTOML(c Client, text, command string) (string, string, error) {
	var v map[string]any
	if _, err := toml.Decode(text, &v); err != nil {
		return "", "", err
	}
	if servers, ok := v[c.Key]; ok {
		m, isTable := servers.(map[string]any)
		if !isTable {
			return "", "", fmt.Errorf("%q is not a table", c.Key)
		}
		if _, has := m[ServerName]; has {
			return "", "", errPresent
		}
	}
	// Codex's parser (strict TOML 1.0) refuses a [mcp_servers.x] header
	// after mcp_servers was defined inline or with dotted keys at the root;
	// BurntSushi/toml lets it through, so look for that ourselves.
	if rootDefines(text, c.Key) {
		return "", "", fmt.Errorf("%s is defined at the top of the file (inline or dotted keys); adding [%s.%s] would not be valid TOML here: add it to that definition by hand", c.Key, c.Key, ServerName)
	}
	added := "[" + c.Key + "." + ServerName + "]\ncommand = " + tomlString(command) + "\n"
	switch {
	case strings.TrimSpace(text) == "":
	case strings.HasSuffix(text, "\n"):
		added = "\n" + added
	default:
		added = "\n\n" + added
	}
	after := text + added
	var check map[string]any
	if _, err := toml.Decode(after, &check); err != nil {
		return "", "", fmt.Errorf("adding [%s.%s] would not be valid TOML here (%v)", c.Key, ServerName, err)
	}
	if got := entryCommand(check, c.Key); got != command {
		return "", "", errors.New("internal error: the merged file does not hold the entry")
	}
	return after, added, nil
}

// rootDefines reports whether key is assigned (key = … or key.x = …) in the
// root table, before the first [table] header.
func rootDefines(text, key string) bool {
	for _, line := range strings.Split(text, "\n") {
		l := strings.TrimSpace(line)
		if strings.HasPrefix(l, "[") {
			return false
		}
		for _, k := range []string{key, `"` + key + `"`, "'" + key + "'"} {
			if rest, ok := strings.CutPrefix(l, k); ok {
				if r := strings.TrimSpace(rest); strings.HasPrefix(r, "=") || strings.HasPrefix(r, ".") {
					return true
				}
			}
		}
	}
	return false
}

func indentLines(s, prefix string) string {
	return prefix + strings.ReplaceAll(s, "\n", "\n"+prefix)
}

func fileMode(p string) os.FileMode {
	if st, err := os.Stat(p); err == nil {
		return st.Mode().Perm()
	}
	return 0o644
}

// backup copies the file's current bytes next to it.
func backup(e Env, p string, raw []byte) (string, error) {
	b := p + ".monkbrowse-backup-" + e.now().UTC().Format("20060102T150405Z")
	for i := 2; exists(b); i++ {
		b = fmt.Sprintf("%s.monkbrowse-backup-%s-%d", p, e.now().UTC().Format("20060102T150405Z"), i)
	}
	if err := os.WriteFile(b, raw, fileMode(p)); err != nil {
		return "", fmt.Errorf("cannot write the backup %s: %w", b, err)
	}
	return b, nil
}

// writeFileAtomic writes through a temporary file in the same directory and
// renames it over p, so a crash never leaves half a configuration.
func writeFileAtomic(p string, data []byte, mode os.FileMode) error {
	f, err := os.CreateTemp(filepath.Dir(p), "."+filepath.Base(p)+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, werr := f.Write(data)
	cerr := f.Close()
	if werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Chmod(tmp, mode)
	}
	if werr == nil {
		werr = os.Rename(tmp, p)
	}
	if werr != nil {
		os.Remove(tmp)
	}
	return werr
}

// Uninstall removes what Install recorded, for the selected clients (all
// recorded ones when none are named).
func Uninstall(o Options) error {
	st, err := loadState(o.statePath())
	if err != nil {
		return err
	}
	want := map[string]bool{}
	for _, n := range o.Clients {
		want[strings.ToLower(strings.TrimSpace(n))] = true
	}
	for n := range want {
		known := false
		for _, c := range ClientNames() {
			known = known || c == n
		}
		if !known {
			return fmt.Errorf("unknown client %q: use one of %s", n, strings.Join(ClientNames(), ", "))
		}
	}
	titles := map[string]Client{}
	for _, c := range Clients(o.Env) {
		titles[c.Name] = c
	}
	var keep []record
	failed, did := false, 0
	// Newest first: a file changed twice is restored in reverse order.
	for i := len(st.Records) - 1; i >= 0; i-- {
		r := st.Records[i]
		if len(want) > 0 && !want[r.Client] {
			keep = append(keep, r)
			continue
		}
		did++
		if err := uninstallOne(&o, titles[r.Client], r); err != nil {
			failed = true
			fmt.Fprintf(o.Out, "✗ %s: %v\n", titles[r.Client].Title, err)
			keep = append(keep, r)
		}
	}
	if did == 0 {
		fmt.Fprintln(o.Out, "Nothing to remove: monkbrowse install has not configured any client here (nothing recorded in "+o.statePath()+").")
		return nil
	}
	if !o.DryRun {
		// keep was collected newest first; store oldest first again.
		for i, j := 0, len(keep)-1; i < j; i, j = i+1, j-1 {
			keep[i], keep[j] = keep[j], keep[i]
		}
		st.Records = keep
		if err := st.save(o.statePath()); err != nil {
			return err
		}
	}
	if failed {
		return ErrSomeFailed
	}
	return nil
}

func uninstallOne(o *Options, c Client, r record) error {
	if r.Via == "cli" {
		cli, err := o.Env.lookPath(c.CLI)
		if err != nil {
			return fmt.Errorf("it was added with `%s mcp add`, but %s is no longer on PATH; run `%s mcp remove --scope user %s` yourself", c.CLI, c.CLI, c.CLI, ServerName)
		}
		args := []string{"mcp", "remove", "--scope", "user", ServerName}
		if o.DryRun {
			fmt.Fprintf(o.Out, "~ %s: would run: %s %s\n", c.Title, c.CLI, strings.Join(args, " "))
			return nil
		}
		if out, err := exec.Command(cli, args...).CombinedOutput(); err != nil {
			return fmt.Errorf("`%s %s` failed: %v: %s", c.CLI, strings.Join(args, " "), err, strings.TrimSpace(string(out)))
		}
		fmt.Fprintf(o.Out, "- %s: removed with `%s %s`\n", c.Title, c.CLI, strings.Join(args, " "))
		return nil
	}
	raw, err := os.ReadFile(r.File)
	if errors.Is(err, os.ErrNotExist) {
		fmt.Fprintf(o.Out, "- %s: %s is gone already\n", c.Title, r.File)
		return nil
	}
	if err != nil {
		return err
	}
	cur := string(raw)
	var next string
	remove := false
	switch {
	case cur == r.After && !r.Existed:
		remove = true
	case cur == r.After:
		next = r.Before
	case strings.Count(cur, r.Added) == 1:
		next = strings.Replace(cur, r.Added, "", 1)
		if c.Format == "toml" {
			var v map[string]any
			if _, err := toml.Decode(next, &v); err != nil || entryCommand(v, c.Key) != "" {
				return fmt.Errorf("%s changed since install and removing the entry would not leave valid TOML; left unchanged: remove [%s.%s] by hand", r.File, c.Key, ServerName)
			}
		} else if doc, err := parseJSON(next, c.Format == "jsonc"); err != nil || entryCommand(doc.value, c.Key) != "" {
			return fmt.Errorf("%s changed since install and removing the entry would not leave a valid file; left unchanged: remove %q from %q by hand", r.File, ServerName, c.Key)
		}
	default:
		return fmt.Errorf("%s changed where monkbrowse's entry was (it is not the text install added); left unchanged: remove %q from %q by hand", r.File, ServerName, c.Key)
	}
	if o.DryRun {
		if remove {
			fmt.Fprintf(o.Out, "~ %s: would delete %s (install created it)\n", c.Title, r.File)
		} else {
			fmt.Fprintf(o.Out, "~ %s: would remove from %s:\n%s\n", c.Title, r.File, indentLines(strings.Trim(r.Added, "\n,"), "    "))
		}
		return nil
	}
	b, err := backup(o.Env, r.File, raw)
	if err != nil {
		return err
	}
	if remove {
		if err := os.Remove(r.File); err != nil {
			return err
		}
		fmt.Fprintf(o.Out, "- %s: deleted %s (install had created it; backup: %s)\n", c.Title, r.File, b)
		return nil
	}
	if err := writeFileAtomic(r.File, []byte(next), fileMode(r.File)); err != nil {
		return err
	}
	fmt.Fprintf(o.Out, "- %s: removed %q from %s (backup: %s)\n", c.Title, ServerName, r.File, b)
	return nil
}
