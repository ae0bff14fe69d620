package install

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
)

func install(t *testing.T, o Options) string {
	t.Helper()
	var out bytes.Buffer
	o.Out = &out
	if err := Install(o); err != nil {
		t.Fatalf("install: %v\n%s", err, out.String())
	}
	return out.String()
}

func uninstall(t *testing.T, o Options) string {
	t.Helper()
	var out bytes.Buffer
	o.Out = &out
	if err := Uninstall(o); err != nil {
		t.Fatalf("uninstall: %v\n%s", err, out.String())
	}
	return out.String()
}

func read(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// replaceOnce replaces old by new exactly once in s, or fails the test.
func replaceOnce(t *testing.T, s, old, new string) string {
	t.Helper()
	if strings.Count(s, old) != 1 {
		t.Fatalf("%q occurs %d times in\n%s", old, strings.Count(s, old), s)
	}
	return strings.Replace(s, old, new, 1)
}

// TestUninstallRemovesTheExtendedEntry: the person added keys (and for
// Codex a sub-table) under monkbrowse's entry after install, and edited
// another entry. Uninstall removes the entry whole, with what they added
// under it, keeps their other edit, and leaves the file byte for byte as
// it was before install plus that edit.
func TestUninstallRemovesTheExtendedEntry(t *testing.T) {
	cmdJSON := quote(testCmd)
	jsonAdd := func(extra string) func(t *testing.T, s string) string {
		return func(t *testing.T, s string) string { return replaceOnce(t, s, cmdJSON, cmdJSON+", "+extra) }
	}
	codexAdd := func(t *testing.T, s string) string {
		s = replaceOnce(t, s, "command = '"+testCmd+"'\n", "command = '"+testCmd+"'\nargs = [\"--upload-root\", \"/home/ada/up\"]\n")
		return s + "\n[mcp_servers.monkbrowse.env]\nMONKBROWSE_LOG = \"debug\"\n"
	}
	for _, tc := range []struct {
		client, sample string
		extend         func(t *testing.T, s string) string
		old, new       string // the person's edit elsewhere
		extra          string // named in the message
	}{
		// The reported bug: args ended up under [profiles.p] and a
		// command-less [mcp_servers.monkbrowse] stayed.
		{"codex", "codex-profiles.toml", codexAdd, `model = "o3"`, `model = "o4"`, "args, env"},
		{"codex", "codex.toml", codexAdd, `model = "gpt-5"`, `model = "gpt-5-mini"`, "args, env"},
		{"codex", "codex-no-newline.toml", codexAdd, `model = "o4-mini"`, `model = "o3"`, "args, env"},
		{"vscode", "vscode-comments.jsonc", jsonAdd(`"env": {"MONKBROWSE_LOG": "debug"}`), `"inputs": [],`, `"inputs": ["edited"],`, "env"},
		{"vscode", "vscode-no-servers.jsonc", jsonAdd(`"env": {"MONKBROWSE_LOG": "debug"}`), `// nothing yet`, `// nothing yet, edited`, "env"},
		{"claude-desktop", "claude-desktop.json", jsonAdd(`"args": ["--upload-root", "/Users/ada/up"]`), `"Ctrl+Space"`, `"Alt+Space"`, "args"},
		{"cursor", "cursor-compact.json", jsonAdd(`"env":{"A":"1"}`), `/opt/other`, `/opt/other2`, "env"},
		{"cursor", "cursor-empty-servers.json", jsonAdd(`"env": {"A": "1"}`), `"mcpServers"`, `"theme": 1, "mcpServers"`, "env"},
		{"windsurf", "windsurf.json", jsonAdd(`"env": {"A": "1"}`), `"BRAVE_API_KEY": "k"`, `"BRAVE_API_KEY": "k2"`, "env"},
		{"claude-code", "claude-code-secrets.json", jsonAdd(`"cwd": "/home/ada"`), `"numStartups": 41`, `"numStartups": 42`, "cwd"},
		{"claude-code", "claude-code.json", jsonAdd(`"cwd": "/home/ada"`), `"userID": "abc"`, `"userID": "abd"`, "cwd"},
	} {
		t.Run(tc.sample, func(t *testing.T) {
			e := testEnv(t)
			c := clientByName(e, tc.client)
			orig := string(place(t, c.File, tc.sample))
			o := Options{Env: e, Command: testCmd, Clients: []string{tc.client}}
			install(t, o)
			edited := tc.extend(t, read(t, c.File))
			edited = replaceOnce(t, edited, tc.old, tc.new)
			if parsedCommand(t, c, []byte(edited)) != testCmd {
				t.Fatalf("the extended sample lost the entry:\n%s", edited)
			}
			os.WriteFile(c.File, []byte(edited), 0o600)
			msg := uninstall(t, o)
			got := read(t, c.File)
			want := replaceOnce(t, orig, tc.old, tc.new)
			if got != want {
				t.Errorf("after uninstall:\n%s\n--- want\n%s", got, want)
			}
			if cmd := parsedCommand(t, c, []byte(got)); cmd != "" || strings.Contains(got, "monkbrowse") {
				t.Errorf("monkbrowse is still there:\n%s", got)
			}
			if c.Format == "toml" {
				var v struct {
					Profiles map[string]map[string]any `toml:"profiles"`
				}
				toml.Decode(got, &v)
				for name, p := range v.Profiles {
					if _, has := p["args"]; has {
						t.Errorf("the person's args ended up under [profiles.%s]", name)
					}
				}
			}
			if !strings.Contains(msg, "with what you had added to it: "+tc.extra) {
				t.Errorf("the message does not say what went with the entry: %s", msg)
			}
		})
	}
}

// TestUninstallTOMLSectionsApart: the person added a table of their own
// after monkbrowse's (with a comment above it), then a sub-table of
// monkbrowse's after that: both monkbrowse sections go, their table and
// its comment stay.
func TestUninstallTOMLSectionsApart(t *testing.T) {
	e := testEnv(t)
	c := clientByName(e, "codex")
	orig := string(place(t, c.File, "codex-profiles.toml"))
	o := Options{Env: e, Command: testCmd, Clients: []string{"codex"}}
	install(t, o)
	theirs := "\n# my other profile\n[profiles.q]\nmodel = \"x\"\n"
	os.WriteFile(c.File, []byte(read(t, c.File)+theirs+"\n[mcp_servers.monkbrowse.env]\nA = \"1\"\n"), 0o600)
	var out bytes.Buffer
	dry := o
	dry.DryRun, dry.Out = true, &out
	before := read(t, c.File)
	if err := Uninstall(dry); err != nil || read(t, c.File) != before || !strings.Contains(out.String(), "would remove") || !strings.Contains(out.String(), "env") {
		t.Fatalf("dry run: %v %s", err, out.String())
	}
	uninstall(t, o)
	if got := read(t, c.File); got != orig+theirs {
		t.Errorf("after uninstall:\n%s\n--- want\n%s", got, orig+theirs)
	}
}

// TestUninstallKeepsServersAddedAfterIt: a server the person added after
// monkbrowse's entry (so it is no longer the last member) stays, and the
// file still parses.
func TestUninstallKeepsServersAddedAfterIt(t *testing.T) {
	for _, tc := range []struct{ client, sample, after, later string }{
		{"claude-desktop", "claude-desktop.json", "\n    }", "\n    \"later\": {\"command\": \"/opt/later\"}"},
		{"cursor", "cursor-compact.json", "}", `"later":{"command":"/opt/later"}`},
	} {
		t.Run(tc.sample, func(t *testing.T) {
			e := testEnv(t)
			c := clientByName(e, tc.client)
			orig := string(place(t, c.File, tc.sample))
			o := Options{Env: e, Command: testCmd, Clients: []string{tc.client}}
			install(t, o)
			cur := read(t, c.File)
			// after our entry's closing brace
			i := strings.Index(cur, quote(testCmd)) + len(quote(testCmd))
			j := i + strings.Index(cur[i:], tc.after) + len(tc.after)
			os.WriteFile(c.File, []byte(cur[:j]+","+tc.later+cur[j:]), 0o600)
			uninstall(t, o)
			got := read(t, c.File)
			doc, err := parseJSON(got, false)
			if err != nil {
				t.Fatalf("%v\n%s", err, got)
			}
			servers := doc.value["mcpServers"].(map[string]any)
			if _, has := servers["later"]; !has || servers[ServerName] != nil || len(servers) != 2 {
				t.Errorf("servers after uninstall: %v\n%s", servers, got)
			}
			if strings.Contains(orig, "\n") && !strings.HasSuffix(got, strings.SplitN(orig, "\"globalShortcut\"", 2)[1]) {
				t.Errorf("the rest of the file changed:\n%s", got)
			}
		})
	}
}

// TestUninstallRoundTripsEveryClientThroughTheStructuralPath: with a
// change elsewhere (JSON: a final newline added; TOML: a comment line at
// the top, since blank lines after the last table are that table's), the
// file is no longer what install left, so uninstall takes the entry out by
// structure rather than undoing the insertion: the result is still the
// original plus that change, for every sample.
func TestUninstallRoundTripsEveryClientThroughTheStructuralPath(t *testing.T) {
	for _, tc := range []struct{ client, sample string }{
		{"claude-code", "claude-code.json"},
		{"claude-code", "claude-code-secrets.json"},
		{"claude-desktop", "claude-desktop.json"},
		{"cursor", "cursor-empty-servers.json"},
		{"cursor", "cursor-compact.json"},
		{"vscode", "vscode-comments.jsonc"},
		{"vscode", "vscode-no-servers.jsonc"},
		{"codex", "codex.toml"},
		{"codex", "codex-profiles.toml"},
		{"windsurf", "windsurf.json"},
	} {
		t.Run(tc.sample, func(t *testing.T) {
			e := testEnv(t)
			c := clientByName(e, tc.client)
			orig := string(place(t, c.File, tc.sample))
			o := Options{Env: e, Command: testCmd, Clients: []string{tc.client}}
			install(t, o)
			edit := func(s string) string { return s + "\n" }
			if c.Format == "toml" {
				edit = func(s string) string { return "# edited\n" + s }
			}
			os.WriteFile(c.File, []byte(edit(read(t, c.File))), 0o600)
			uninstall(t, o)
			if got := read(t, c.File); got != edit(orig) {
				t.Errorf("after uninstall:\n%q\n--- want\n%q", got, edit(orig))
			}
		})
	}
}

// TestUninstallRefusesWhatItCannotRemoveCleanly: an entry the person
// rewrote so that it is no longer a table of its own, or whose command
// now runs something else, is left, with a message, and the file is not
// touched (no backup either).
func TestUninstallRefusesWhatItCannotRemoveCleanly(t *testing.T) {
	for _, tc := range []struct {
		client, sample string
		rewrite        func(string) string
		says           string
	}{
		{"codex", "codex-profiles.toml", func(s string) string {
			return strings.Replace(s, "[mcp_servers.monkbrowse]\ncommand = '"+testCmd+"'\n", "[mcp_servers]\nmonkbrowse = { command = '"+testCmd+"' }\n", 1)
		}, "not a table of its own"},
		{"codex", "codex.toml", func(s string) string { return strings.Replace(s, testCmd, "/elsewhere/monkbrowse", 1) }, `now runs "/elsewhere/monkbrowse"`},
		{"vscode", "vscode-comments.jsonc", func(s string) string { return strings.Replace(s, testCmd, "/elsewhere/monkbrowse", 1) }, "by hand"},
	} {
		t.Run(tc.sample, func(t *testing.T) {
			e := testEnv(t)
			c := clientByName(e, tc.client)
			place(t, c.File, tc.sample)
			o := Options{Env: e, Command: testCmd, Clients: []string{tc.client}}
			install(t, o)
			for _, b := range backups(t, c.File) {
				os.Remove(b)
			}
			changed := tc.rewrite(read(t, c.File))
			os.WriteFile(c.File, []byte(changed), 0o600)
			var out bytes.Buffer
			o.Out = &out
			if err := Uninstall(o); !errors.Is(err, ErrSomeFailed) {
				t.Fatalf("uninstall: %v\n%s", err, out.String())
			}
			if got := read(t, c.File); got != changed {
				t.Errorf("the file changed:\n%s", got)
			}
			if !strings.Contains(out.String(), tc.says) || !strings.Contains(out.String(), "left unchanged") {
				t.Errorf("message %q lacks %q", out.String(), tc.says)
			}
			if b := backups(t, c.File); len(b) != 0 {
				t.Errorf("a backup was written for a file left alone: %v", b)
			}
		})
	}
}

func isLink(t *testing.T, p string) bool {
	t.Helper()
	fi, err := os.Lstat(p)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode()&os.ModeSymlink != 0
}

// TestLinkedConfigIsEditedAtItsTarget: ~/.cursor/mcp.json (and Codex's
// config.toml) pointing into a dotfiles folder in the home: install and
// uninstall edit the dotfiles copy, the link stays a link, and the backup
// is a new file beside the link.
func TestLinkedConfigIsEditedAtItsTarget(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need privileges on Windows")
	}
	for _, tc := range []struct{ client, sample string }{
		{"cursor", "claude-desktop.json"},
		{"codex", "codex.toml"},
	} {
		t.Run(tc.client, func(t *testing.T) {
			e := testEnv(t)
			c := clientByName(e, tc.client)
			target := filepath.Join(e.Home, "dotfiles", filepath.Base(c.File))
			orig := string(place(t, target, tc.sample))
			os.MkdirAll(filepath.Dir(c.File), 0o755)
			if err := os.Symlink(filepath.Join("..", "dotfiles", filepath.Base(c.File)), c.File); err != nil {
				t.Fatal(err)
			}
			o := Options{Env: e, Command: testCmd, Clients: []string{tc.client}}
			msg := install(t, o)
			if !isLink(t, c.File) {
				t.Fatal("install replaced the link with a file")
			}
			if parsedCommand(t, c, []byte(read(t, target))) != testCmd {
				t.Errorf("the dotfiles copy has no entry:\n%s", read(t, target))
			}
			if !strings.Contains(msg, "edited at "+target) {
				t.Errorf("message does not say where: %s", msg)
			}
			bk := backups(t, c.File)
			if len(bk) != 1 || isLink(t, bk[0]) || read(t, bk[0]) != orig {
				t.Errorf("backups %v", bk)
			}
			if m, _ := filepath.Glob(target + backupSuffix + "*"); len(m) != 0 {
				t.Errorf("a backup was written into the dotfiles folder: %v", m)
			}
			uninstall(t, o)
			if !isLink(t, c.File) {
				t.Fatal("uninstall replaced the link with a file")
			}
			if got := read(t, target); got != orig {
				t.Errorf("the dotfiles copy after uninstall:\n%s\n--- want\n%s", got, orig)
			}
		})
	}
}

// TestLinkOutsideHomeOrToAnotherUsersFileIsRefused: a link leading out of
// the home, to another user's file, or nowhere is refused with a message;
// nothing is written (no backup, no record) and the link stays.
func TestLinkOutsideHomeOrToAnotherUsersFileIsRefused(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need privileges on Windows")
	}
	cases := []struct {
		name  string
		setup func(t *testing.T, e Env) string // returns the link's target
		says  string
	}{
		{"outside home", func(t *testing.T, e Env) string {
			p := filepath.Join(t.TempDir(), "shared-mcp.json")
			place(t, p, "cursor-empty-servers.json")
			return p
		}, "outside your home folder"},
		{"nowhere", func(t *testing.T, e Env) string { return filepath.Join(e.Home, "dotfiles", "gone.json") }, "leads nowhere"},
	}
	if os.Geteuid() == 0 {
		cases = append(cases, struct {
			name  string
			setup func(t *testing.T, e Env) string
			says  string
		}{"another user's", func(t *testing.T, e Env) string {
			p := filepath.Join(e.Home, "dotfiles", "theirs.json")
			place(t, p, "cursor-empty-servers.json")
			if err := os.Chown(p, 65534, 65534); err != nil {
				t.Skip(err)
			}
			return p
		}, "belongs to another user (uid 65534)"})
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := testEnv(t)
			c := clientByName(e, "cursor")
			target := tc.setup(t, e)
			before, _ := os.ReadFile(target)
			os.MkdirAll(filepath.Dir(c.File), 0o755)
			if err := os.Symlink(target, c.File); err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			o := Options{Env: e, Command: testCmd, Clients: []string{"cursor"}, Out: &out}
			if err := Install(o); !errors.Is(err, ErrSomeFailed) {
				t.Fatalf("install: %v\n%s", err, out.String())
			}
			if !strings.Contains(out.String(), tc.says) || !strings.Contains(out.String(), c.File) {
				t.Errorf("message %q lacks %q", out.String(), tc.says)
			}
			if after, _ := os.ReadFile(target); !bytes.Equal(after, before) {
				t.Error("the target changed")
			}
			if !isLink(t, c.File) || len(backups(t, c.File)) != 0 || exists(o.statePath()) {
				t.Error("the link was replaced, or a backup or a record was written")
			}
		})
	}
}

// TestNoCopiesOfOtherEntries: a ~/.claude.json holding other servers'
// secrets: after install and after uninstall, no file monkbrowse writes
// other than the person's own file and its backups beside it holds any of
// them (the record least of all), and the backups are 0600.
func TestNoCopiesOfOtherEntries(t *testing.T) {
	secrets := []string{"ghp_sEcReTtOkEn0123456789abcdefABCDEF", "hunter2-secret-pg", "ada@example.com"}
	e := testEnv(t)
	c := clientByName(e, "claude-code")
	place(t, c.File, "claude-code-secrets.json")
	o := Options{Env: e, Command: testCmd, Clients: []string{"claude-code", "cursor"}}
	os.MkdirAll(clientByName(e, "cursor").Marker, 0o755)
	check := func(step string) {
		t.Helper()
		filepath.Walk(e.Home, func(p string, fi os.FileInfo, err error) error {
			if err != nil || fi.IsDir() {
				return err
			}
			if p == c.File || strings.HasPrefix(p, c.File+backupSuffix) {
				if strings.HasPrefix(p, c.File+backupSuffix) && fi.Mode().Perm() != 0o600 {
					t.Errorf("%s: backup %s has mode %v", step, p, fi.Mode().Perm())
				}
				return nil
			}
			b, _ := os.ReadFile(p)
			for _, s := range secrets {
				if bytes.Contains(b, []byte(s)) {
					t.Errorf("%s: %s holds %q", step, p, s)
				}
			}
			return nil
		})
	}
	install(t, o)
	check("after install")
	if rec := read(t, o.statePath()); !strings.Contains(rec, `"sha256"`) || !strings.Contains(rec, testCmd) {
		t.Errorf("the record lacks what undo needs:\n%s", rec)
	}
	uninstall(t, o)
	check("after uninstall")
	if got, want := read(t, c.File), read(t, filepath.Join("testdata", "claude-code-secrets.json")); got != want {
		t.Errorf("not restored:\n%s", got)
	}
}

// TestOldRecordIsMigrated: an installed.json in the first format (whole
// copies of the file before and after) is rewritten on first use with
// only what undo needs, and still undoes the install, whether the file
// is untouched or edited since.
func TestOldRecordIsMigrated(t *testing.T) {
	secret := "ghp_sEcReTtOkEn0123456789abcdefABCDEF"
	for _, edited := range []bool{false, true} {
		e := testEnv(t)
		c := clientByName(e, "claude-code")
		before := string(place(t, c.File, "claude-code-secrets.json"))
		ed, err := addEntry(c, before, testCmd)
		if err != nil {
			t.Fatal(err)
		}
		after := ed.after
		if edited {
			after = replaceOnce(t, after, `"numStartups": 41`, `"numStartups": 42`)
			before = replaceOnce(t, before, `"numStartups": 41`, `"numStartups": 42`)
		}
		os.WriteFile(c.File, []byte(after), 0o600)
		o := Options{Env: e, Command: testCmd}
		old := map[string]any{"records": []map[string]any{{
			"client": "claude-code", "via": "file", "file": c.File, "command": testCmd, "existed": true,
			"before": string(place(t, filepath.Join(t.TempDir(), "x"), "claude-code-secrets.json")), "after": ed.after, "added": ed.added, "at": "2026-11-30T10:00:00Z",
		}}}
		b, _ := json.MarshalIndent(old, "", "  ")
		os.MkdirAll(filepath.Dir(o.statePath()), 0o700)
		os.WriteFile(o.statePath(), b, 0o600)

		// First use: a dry run reads it but writes nothing.
		var out bytes.Buffer
		dry := o
		dry.DryRun, dry.Out = true, &out
		if err := Uninstall(dry); err != nil || !strings.Contains(read(t, o.statePath()), secret) {
			t.Fatalf("dry run: %v %s", err, out.String())
		}
		// Then an install of another client rewrites it.
		os.MkdirAll(clientByName(e, "cursor").Marker, 0o755)
		o.Clients = []string{"cursor"}
		msg := install(t, o)
		rec := read(t, o.statePath())
		if strings.Contains(rec, secret) || strings.Contains(rec, `"before"`) || strings.Contains(rec, `"after"`) || !strings.Contains(msg, "rewritten") {
			t.Fatalf("the record was not migrated:\n%s\n%s", rec, msg)
		}
		var st state
		json.Unmarshal([]byte(rec), &st)
		if st.Version != stateVersion || len(st.Records) != 2 || st.Records[0].SHA256 != hashOf([]byte(ed.after)) || st.Records[0].Created {
			t.Errorf("migrated record: %+v", st)
		}
		o.Clients = nil
		uninstall(t, o)
		if got := read(t, c.File); got != before {
			t.Errorf("edited=%v: after uninstall:\n%s\n--- want\n%s", edited, got, before)
		}
	}
}

// TestBOMAndDuplicateKeysAreNamed: both are refused before anything is
// written, with a message that names them and the line.
func TestBOMAndDuplicateKeysAreNamed(t *testing.T) {
	for _, tc := range []struct{ client, sample, says string }{
		{"cursor", "cursor-bom.json", "line 1: the file starts with a UTF-8 byte order mark (BOM)"},
		{"vscode", "cursor-bom.json", "byte order mark"},
		{"cursor", "cursor-duplicate.json", `line 4: the key "mcpServers" appears twice in the same object (first on line 2)`},
		{"claude-code", "cursor-duplicate.json", `appears twice`},
	} {
		t.Run(tc.client+"/"+tc.sample, func(t *testing.T) {
			e := testEnv(t)
			c := clientByName(e, tc.client)
			orig := place(t, c.File, tc.sample)
			var out bytes.Buffer
			err := Install(Options{Env: e, Command: testCmd, Clients: []string{tc.client}, Out: &out})
			if !errors.Is(err, ErrSomeFailed) || !strings.Contains(out.String(), tc.says) || strings.Contains(out.String(), "internal error") {
				t.Errorf("%v: %s", err, out.String())
			}
			if b, _ := os.ReadFile(c.File); !bytes.Equal(b, orig) || len(backups(t, c.File)) != 0 {
				t.Error("the file changed or a backup was written")
			}
		})
	}
	if err := duplicateKey(`{"a": [{"x": 1, "y": {"x": 2}}, {"x": 1,` + "\n" + `"x": 3}]}`); err == nil || !strings.Contains(err.Error(), `line 2: the key "x"`) {
		t.Errorf("nested duplicate: %v", err)
	}
}

func TestTOMLHeader(t *testing.T) {
	for line, want := range map[string]string{
		"[mcp_servers.monkbrowse]\n":             "mcp_servers/monkbrowse",
		` [ mcp_servers . "monkbrowse" ] # mine`: "mcp_servers/monkbrowse",
		"[[mcp_servers.'monkbrowse'.x]]":         "mcp_servers/monkbrowse/x",
		`["a.b"]`:                                "a.b",
		`["a"],`:                                 "",
		`args = []`:                              "",
		`[a b]`:                                  "",
	} {
		p, ok := tomlHeader(line)
		if got := strings.Join(p, "/"); ok != (want != "") || ok && got != want {
			t.Errorf("%q: %q %v, want %q", line, got, ok, want)
		}
	}
	secs := tomlSections("a = 1\n[x]\ns = '''\n[not.a.header]\n'''\n[y]\n")
	if len(secs) != 2 || secs[0].path[0] != "x" || secs[1].path[0] != "y" {
		t.Errorf("sections %+v", secs)
	}
}
