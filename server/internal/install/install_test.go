package install

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/BurntSushi/toml"
)

const testCmd = "/opt/monk browse/bin/monkbrowse"

func testEnv(t *testing.T) Env {
	t.Helper()
	home := t.TempDir()
	return Env{
		Home: home, GOOS: "linux",
		LookPath: func(string) (string, error) { return "", exec.ErrNotFound },
		Now:      func() time.Time { return time.Date(2026, 12, 1, 21, 30, 0, 0, time.UTC) },
	}
}

func clientByName(e Env, name string) Client {
	for _, c := range Clients(e) {
		if c.Name == name {
			return c
		}
	}
	panic(name)
}

func place(t *testing.T, path, sample string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", sample))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return b
}

func backups(t *testing.T, file string) []string {
	m, _ := filepath.Glob(file + ".monkbrowse-backup-*")
	return m
}

// parsedCommand reads the monkbrowse entry's command back with a parser of
// the file's format.
func parsedCommand(t *testing.T, c Client, b []byte) string {
	t.Helper()
	if c.Format == "toml" {
		var v map[string]any
		if _, err := toml.Decode(string(b), &v); err != nil {
			t.Fatalf("result is not TOML: %v\n%s", err, b)
		}
		return entryCommand(v, c.Key)
	}
	doc, err := parseJSON(string(b), c.Format == "jsonc")
	if err != nil {
		t.Fatalf("result does not parse: %v\n%s", err, b)
	}
	return entryCommand(doc.value, c.Key)
}

// comments returns the comment texts of a sample, which must all survive.
func comments(s string) []string {
	var out []string
	for _, line := range strings.Split(s, "\n") {
		for _, mark := range []string{"//", "/*", "#"} {
			if i := strings.Index(line, mark); i >= 0 && !strings.Contains(line[:i], `"`) {
				out = append(out, strings.TrimSpace(line[i:]))
			}
		}
	}
	return out
}

// TestInstallMergesAndUninstallRestores: for a sample configuration of each
// client, install adds exactly one entry (parsed back with the format's
// parser), keeps every comment and other server, writes a backup; a second
// install changes nothing; uninstall gives back the original bytes.
func TestInstallMergesAndUninstallRestores(t *testing.T) {
	cases := []struct{ client, sample string }{
		{"claude-code", "claude-code.json"},
		{"claude-desktop", "claude-desktop.json"},
		{"cursor", "cursor-empty-servers.json"},
		{"cursor", "cursor-compact.json"},
		{"vscode", "vscode-comments.jsonc"},
		{"vscode", "vscode-no-servers.jsonc"},
		{"codex", "codex.toml"},
		{"codex", "codex-no-newline.toml"},
		{"windsurf", "windsurf.json"},
	}
	for _, tc := range cases {
		t.Run(tc.sample, func(t *testing.T) {
			e := testEnv(t)
			c := clientByName(e, tc.client)
			orig := place(t, c.File, tc.sample)
			var out bytes.Buffer
			o := Options{Env: e, Command: testCmd, Clients: []string{tc.client}, Out: &out}
			if err := Install(o); err != nil {
				t.Fatalf("install: %v\n%s", err, out.String())
			}
			got, _ := os.ReadFile(c.File)
			if bytes.Equal(got, orig) {
				t.Fatal("the file did not change")
			}
			if cmd := parsedCommand(t, c, got); cmd != testCmd {
				t.Fatalf("entry command %q\n%s", cmd, got)
			}
			if n := strings.Count(string(got), `monkbrowse]`) + strings.Count(string(got), `"monkbrowse":`); n != 1 {
				t.Errorf("%d entries\n%s", n, got)
			}
			for _, cm := range comments(string(orig)) {
				if !strings.Contains(string(got), cm) {
					t.Errorf("comment %q lost\n%s", cm, got)
				}
			}
			if first := strings.SplitN(string(orig), "\n", 2)[0]; strings.Contains(string(orig), "\n") && !strings.HasPrefix(string(got), first) {
				t.Errorf("the start of the file changed\n%s", got)
			}
			bk := backups(t, c.File)
			if len(bk) != 1 {
				t.Fatalf("backups: %v", bk)
			}
			if b, _ := os.ReadFile(bk[0]); !bytes.Equal(b, orig) {
				t.Error("the backup is not the original")
			}
			if st, _ := os.Stat(c.File); st.Mode().Perm() != 0o600 {
				t.Errorf("mode %v, want the original 0600", st.Mode().Perm())
			}
			t.Logf("after install:\n%s", got)

			out.Reset()
			if err := Install(o); err != nil {
				t.Fatalf("second install: %v", err)
			}
			again, _ := os.ReadFile(c.File)
			if !bytes.Equal(again, got) || !strings.Contains(out.String(), "already has") {
				t.Errorf("second install changed the file or did not say so: %s", out.String())
			}

			out.Reset()
			if err := Uninstall(o); err != nil {
				t.Fatalf("uninstall: %v\n%s", err, out.String())
			}
			back, _ := os.ReadFile(c.File)
			if !bytes.Equal(back, orig) {
				t.Errorf("uninstall did not restore the original:\n%s\n--- want\n%s", back, orig)
			}
			out.Reset()
			_ = Uninstall(o)
			if !strings.Contains(out.String(), "Nothing to remove") {
				t.Errorf("second uninstall: %s", out.String())
			}
		})
	}
}

// TestUninstallAfterEdits: the person changed the file after install; only
// the added text goes, their edit stays.
func TestUninstallAfterEdits(t *testing.T) {
	for _, tc := range []struct{ client, sample, edit, marker string }{
		{"vscode", "vscode-comments.jsonc", "\t\"inputs\": [],", "\t\"inputs\": [\"edited\"],"},
		{"codex", "codex.toml", `model = "gpt-5"`, `model = "gpt-5-edited"`},
	} {
		e := testEnv(t)
		c := clientByName(e, tc.client)
		orig := place(t, c.File, tc.sample)
		o := Options{Env: e, Command: testCmd, Clients: []string{tc.client}, Out: &bytes.Buffer{}}
		if err := Install(o); err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(c.File)
		edited := strings.Replace(string(b), tc.edit, tc.marker, 1)
		if edited == string(b) {
			t.Fatalf("%s: edit not applied", tc.sample)
		}
		os.WriteFile(c.File, []byte(edited), 0o600)
		if err := Uninstall(o); err != nil {
			t.Fatal(err)
		}
		back, _ := os.ReadFile(c.File)
		want := strings.Replace(string(orig), tc.edit, tc.marker, 1)
		if string(back) != want {
			t.Errorf("%s:\n%s\n--- want\n%s", tc.sample, back, want)
		}
	}
	// The entry itself changed by hand: left alone, with a message.
	e := testEnv(t)
	c := clientByName(e, "cursor")
	place(t, c.File, "cursor-compact.json")
	var out bytes.Buffer
	o := Options{Env: e, Command: testCmd, Clients: []string{"cursor"}, Out: &out}
	if err := Install(o); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(c.File)
	changed := strings.Replace(string(b), testCmd, "/elsewhere/monkbrowse", 1)
	os.WriteFile(c.File, []byte(changed), 0o600)
	if err := Uninstall(o); !errors.Is(err, ErrSomeFailed) {
		t.Fatalf("uninstall of a hand-changed entry: %v", err)
	}
	if b, _ := os.ReadFile(c.File); string(b) != changed || !strings.Contains(out.String(), "by hand") {
		t.Errorf("file touched or no message: %s", out.String())
	}
}

// TestInstallRefusesMalformed: a file install cannot parse is left
// byte-for-byte as it was, without a backup, with a message naming it; the
// other clients are still set up.
func TestInstallRefusesMalformed(t *testing.T) {
	for _, tc := range []struct{ client, sample, says string }{
		{"vscode", "vscode-malformed.jsonc", "line 3"},
		{"vscode", "vscode-unclosed-comment.jsonc", "not closed"},
		{"claude-desktop", "claude-desktop-comment.json", "line 2"},
		{"cursor", "cursor-truncated.json", "cut short"},
		{"cursor", "cursor-array.json", "not a JSON object"},
		{"cursor", "cursor-servers-not-object.json", `"mcpServers" is not an object`},
		{"codex", "codex-malformed.toml", "toml: line"},
		{"codex", "codex-inline.toml", "would not be valid TOML"},
		{"claude-code", "cursor-truncated.json", "cut short"},
		{"windsurf", "cursor-array.json", "not a JSON object"},
	} {
		t.Run(tc.client+"/"+tc.sample, func(t *testing.T) {
			e := testEnv(t)
			c := clientByName(e, tc.client)
			orig := place(t, c.File, tc.sample)
			other := clientByName(e, "windsurf")
			if tc.client == "windsurf" {
				other = clientByName(e, "cursor")
			}
			var out bytes.Buffer
			err := Install(Options{Env: e, Command: testCmd, Clients: []string{tc.client, other.Name}, Out: &out})
			if !errors.Is(err, ErrSomeFailed) {
				t.Fatalf("err %v\n%s", err, out.String())
			}
			if b, _ := os.ReadFile(c.File); !bytes.Equal(b, orig) {
				t.Errorf("the malformed file changed:\n%s", b)
			}
			if bk := backups(t, c.File); len(bk) != 0 {
				t.Errorf("backup written for a refused file: %v", bk)
			}
			msg := out.String()
			if !strings.Contains(msg, c.File) || !strings.Contains(msg, "left unchanged") || !strings.Contains(msg, tc.says) {
				t.Errorf("message %q lacks the file, 'left unchanged' or %q", msg, tc.says)
			}
			if b, err := os.ReadFile(other.File); err != nil || parsedCommand(t, other, b) != testCmd {
				t.Errorf("the other client was not set up: %v", err)
			}
		})
	}
}

func TestInstallAlreadyPresent(t *testing.T) {
	e := testEnv(t)
	c := clientByName(e, "codex")
	orig := place(t, c.File, "codex-present.toml")
	var out bytes.Buffer
	o := Options{Env: e, Command: testCmd, Clients: []string{"codex"}, Out: &out}
	if err := Install(o); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(c.File); !bytes.Equal(b, orig) || !strings.Contains(out.String(), "already has") {
		t.Errorf("%s", out.String())
	}
	// Same command under another name is not duplicated either.
	c = clientByName(e, "cursor")
	os.MkdirAll(filepath.Dir(c.File), 0o755)
	os.WriteFile(c.File, []byte(`{"mcpServers":{"browser":{"command":"`+testCmd+`"}}}`), 0o644)
	out.Reset()
	if err := Install(Options{Env: e, Command: testCmd, Clients: []string{"cursor"}, Out: &out}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "already has") {
		t.Errorf("%s", out.String())
	}
	// Nothing recorded, so uninstall removes nothing the person wrote.
	out.Reset()
	if err := Uninstall(Options{Env: e, Out: &out}); err != nil || !strings.Contains(out.String(), "Nothing to remove") {
		t.Errorf("%v %s", err, out.String())
	}
	if b, _ := os.ReadFile(clientByName(e, "codex").File); !bytes.Equal(b, orig) {
		t.Error("uninstall removed an entry install did not add")
	}
}

// TestInstallCreatesFiles: a client whose directory exists but has no file
// yet gets a new file; uninstall deletes it again. Detection without
// --client finds exactly the clients present.
func TestInstallCreatesFiles(t *testing.T) {
	e := testEnv(t)
	for _, n := range []string{"cursor", "codex", "vscode"} {
		os.MkdirAll(clientByName(e, n).Marker, 0o755)
	}
	var out bytes.Buffer
	o := Options{Env: e, Command: testCmd, Out: &out}
	if err := Install(o); err != nil {
		t.Fatal(err)
	}
	for _, c := range Clients(e) {
		b, err := os.ReadFile(c.File)
		switch c.Name {
		case "cursor", "codex", "vscode":
			if err != nil || parsedCommand(t, c, b) != testCmd {
				t.Errorf("%s: %v\n%s", c.Name, err, b)
			}
		default:
			if err == nil {
				t.Errorf("%s was configured though it is not installed", c.Name)
			}
		}
	}
	t.Log(out.String())
	if err := Uninstall(o); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"cursor", "codex", "vscode"} {
		if exists(clientByName(e, n).File) {
			t.Errorf("%s: the file install created is still there", n)
		}
	}
}

func TestDryRunChangesNothing(t *testing.T) {
	e := testEnv(t)
	c := clientByName(e, "vscode")
	orig := place(t, c.File, "vscode-comments.jsonc")
	var out bytes.Buffer
	o := Options{Env: e, Command: testCmd, Clients: []string{"vscode", "cursor"}, Out: &out, DryRun: true}
	if err := Install(o); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(c.File); !bytes.Equal(b, orig) {
		t.Error("dry run changed the file")
	}
	if exists(clientByName(e, "cursor").File) || exists(o.statePath()) || len(backups(t, c.File)) > 0 {
		t.Error("dry run wrote a file, a record or a backup")
	}
	if s := out.String(); !strings.Contains(s, "would add to "+c.File) || !strings.Contains(s, `"command": "`+testCmd+`"`) || !strings.Contains(s, "would create") {
		t.Errorf("dry run output:\n%s", s)
	}
}

func TestUnknownClientAndRelativeCommand(t *testing.T) {
	e := testEnv(t)
	if err := Install(Options{Env: e, Command: testCmd, Clients: []string{"emacs"}, Out: &bytes.Buffer{}}); err == nil || !strings.Contains(err.Error(), "claude-code") {
		t.Errorf("%v", err)
	}
	if err := Install(Options{Env: e, Command: "monkbrowse", Out: &bytes.Buffer{}}); err == nil {
		t.Error("a relative command was accepted")
	}
}

// TestClaudeCodeUsesItsCommand: with `claude` on PATH, install runs
// `claude mcp add` (here a stand-in script that keeps the servers in a file,
// as the real one keeps them in ~/.claude.json) and never edits the file
// itself; uninstall runs `claude mcp remove`.
func TestClaudeCodeUsesItsCommand(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("sh stand-in")
	}
	e := testEnv(t)
	dir := t.TempDir()
	log := filepath.Join(dir, "calls")
	script := `#!/bin/sh
echo "$*" >> "` + log + `"
reg="` + dir + `/registered"
case "$1 $2" in
"mcp get") [ -f "$reg" ] && exit 0; echo "No MCP server found" >&2; exit 1 ;;
"mcp add") touch "$reg" ;;
"mcp remove") rm "$reg" ;;
esac
`
	cli := filepath.Join(dir, "claude")
	os.WriteFile(cli, []byte(script), 0o755)
	e.LookPath = func(n string) (string, error) {
		if n == "claude" {
			return cli, nil
		}
		return "", exec.ErrNotFound
	}
	c := clientByName(e, "claude-code")
	orig := place(t, c.File, "claude-code.json")
	var out bytes.Buffer
	o := Options{Env: e, Command: testCmd, Out: &out} // detected through the command
	if err := Install(o); err != nil {
		t.Fatalf("%v %s", err, out.String())
	}
	if err := Install(o); err != nil {
		t.Fatal(err)
	}
	if err := Uninstall(o); err != nil {
		t.Fatal(err)
	}
	calls, _ := os.ReadFile(log)
	want := "mcp get monkbrowse\nmcp add --scope user monkbrowse -- " + testCmd + "\nmcp get monkbrowse\nmcp remove --scope user monkbrowse\n"
	if string(calls) != want {
		t.Errorf("calls:\n%s\nwant:\n%s\noutput:\n%s", calls, want, out.String())
	}
	if b, _ := os.ReadFile(c.File); !bytes.Equal(b, orig) {
		t.Error("install edited ~/.claude.json although claude is on PATH")
	}
}

func TestStripJSONCKeepsOffsets(t *testing.T) {
	in := "{\"a\": \"//not a comment\", /* c */ \"b\": [1,2,], // x\n}"
	out, trailing, err := stripJSONC(in)
	if err != nil || len(out) != len(in) || len(trailing) != 2 {
		t.Fatalf("%q %v %v", out, trailing, err)
	}
	if !strings.Contains(out, "//not a comment") || strings.Contains(out, "/*") {
		t.Errorf("%q", out)
	}
}

func TestTOMLStringWindowsPath(t *testing.T) {
	for _, p := range []string{`C:\Users\Ada\monkbrowse.exe`, `/it's/here`} {
		var v struct{ C string }
		if _, err := toml.Decode("c = "+tomlString(p), &v); err != nil || v.C != p {
			t.Errorf("%s: %q %v", p, v.C, err)
		}
	}
}

func TestClientPathsPerOS(t *testing.T) {
	for _, tc := range []struct{ goos, client, want string }{
		{"darwin", "claude-desktop", "/h/Library/Application Support/Claude/claude_desktop_config.json"},
		{"windows", "claude-desktop", "/appdata/Claude/claude_desktop_config.json"},
		{"linux", "claude-desktop", "/h/.config/Claude/claude_desktop_config.json"},
		{"darwin", "vscode", "/h/Library/Application Support/Code/User/mcp.json"},
		{"windows", "vscode", "/appdata/Code/User/mcp.json"},
		{"linux", "vscode", "/h/.config/Code/User/mcp.json"},
		{"linux", "cursor", "/h/.cursor/mcp.json"},
		{"linux", "codex", "/h/.codex/config.toml"},
		{"linux", "windsurf", "/h/.codeium/windsurf/mcp_config.json"},
		{"linux", "claude-code", "/h/.claude.json"},
	} {
		got := clientByName(Env{Home: "/h", GOOS: tc.goos, AppData: "/appdata"}, tc.client).File
		if filepath.ToSlash(got) != tc.want {
			t.Errorf("%s %s: %s, want %s", tc.goos, tc.client, got, tc.want)
		}
	}
}
