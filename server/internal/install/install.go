// Package install implements `monkbrowse install` and `monkbrowse
// uninstall`: it finds the MCP clients on the machine and adds monkbrowse to
// each one's configuration, merging into the existing file (JSON, VS Code's
// JSONC, Codex's TOML) with text insertions that keep comments and
// formatting, editing a linked file at its target, keeping a backup of the
// person's file beside it, never adding a second entry, refusing a file it
// cannot parse, and recording what it added (never a copy of the file) so
// that uninstall removes exactly monkbrowse's entry, with whatever the
// person added under it, and nothing else. Where a client has its own
// command (`claude mcp add`), it uses it.
//
// Files by concern: clients.go (the catalogue), record.go (installed.json),
// entry.go (adding and removing the entry, JSON), jsonc.go (JSON/JSONC
// parsing and scanning), toml.go (Codex's TOML), files.go (links, backups,
// atomic writes).
package install

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

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
	// HTTPURL and HTTPToken, when HTTPURL is set (install --http), make
	// the entries `monkbrowse serve --http`'s URL with the token's header,
	// in the clients that take one, instead of a command.
	HTTPURL, HTTPToken string
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

// ErrSomeFailed is returned when at least one client could not be set up;
// the others were.
var ErrSomeFailed = errors.New("some clients were not changed (see above)")

// Install adds monkbrowse to each selected client.
func Install(o Options) error {
	if o.HTTPURL != "" {
		o.Command = o.HTTPURL
	} else if !filepath.IsAbs(o.Command) {
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
	st, err := o.loadState()
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

// loadState reads the record, rewriting a first-format one (with copies
// of whole files) in the current format unless this is a dry run.
func (o *Options) loadState() (*state, error) {
	st, migrated, err := loadState(o.Env, o.statePath())
	if err != nil || !migrated || o.DryRun {
		return st, err
	}
	if err := st.save(o.statePath()); err != nil {
		return nil, fmt.Errorf("cannot rewrite %s in the new format: %w", o.statePath(), err)
	}
	fmt.Fprintf(o.Out, "  (%s rewritten: it kept whole copies of your configuration files; now it keeps only what uninstall needs)\n", o.statePath())
	return st, nil
}

func installOne(o *Options, c Client) (*record, error) {
	now := o.Env.now().UTC().Format(time.RFC3339)
	http := o.HTTPURL != ""
	if http {
		if c.httpEntry == nil {
			fmt.Fprintf(o.Out, "- %s: takes no URL in its configuration; left as it is (give it monkbrowse's command with monkbrowse install)\n", c.Title)
			return nil, nil
		}
		c.entry = func(string) []field { return c.httpEntry(o.HTTPURL, o.HTTPToken) }
	}
	if o.hasCLI(c) {
		cli, _ := o.Env.lookPath(c.CLI)
		if err := exec.Command(cli, "mcp", "get", ServerName).Run(); err == nil {
			fmt.Fprintf(o.Out, "= %s: already has a %q server (`%s mcp get %s`); left as it is\n", c.Title, ServerName, c.CLI, ServerName)
			return nil, nil
		}
		args := []string{"mcp", "add", "--scope", "user", ServerName, "--", o.Command}
		shown := args
		if http {
			args = []string{"mcp", "add", "--scope", "user", "--transport", "http", ServerName, o.HTTPURL, "--header", "Authorization: Bearer " + o.HTTPToken}
			shown = append(slices.Clone(args[:len(args)-1]), "Authorization: Bearer <token>")
		}
		if o.DryRun {
			fmt.Fprintf(o.Out, "~ %s: would run: %s %s\n", c.Title, c.CLI, strings.Join(shown, " "))
			return nil, nil
		}
		out, err := exec.Command(cli, args...).CombinedOutput()
		if err != nil {
			return nil, fmt.Errorf("`%s %s` failed: %v: %s", c.CLI, strings.Join(shown, " "), err, redact(strings.TrimSpace(string(out)), o.HTTPToken))
		}
		fmt.Fprintf(o.Out, "+ %s: added with `%s %s`\n", c.Title, c.CLI, strings.Join(shown, " "))
		return &record{Client: c.Name, Via: "cli", Command: o.Command, HTTP: http, At: now}, nil
	}

	target, err := resolveFile(o.Env.Home, c.File)
	if err != nil {
		return nil, err
	}
	raw, err := os.ReadFile(target)
	existed := err == nil
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	ed, err := addEntry(c, string(raw), o.Command)
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
		added := ed.added
		if http && o.HTTPToken != "" {
			added = strings.ReplaceAll(added, o.HTTPToken, "<token>")
		}
		fmt.Fprintf(o.Out, "~ %s: %s %s:\n%s\n", c.Title, verb, c.File, indentLines(strings.Trim(added, "\n,"), "    "))
		return nil, nil
	}
	if existed {
		b, err := backup(o.Env, c.File, raw)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(o.Out, "  (backup of your file: %s)\n", b)
	} else if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		return nil, err
	}
	mode := fileMode(target)
	if http {
		mode &^= 0o077 // the file now holds the token: the owner's only
	}
	if err := writeFileAtomic(target, []byte(ed.after), mode); err != nil {
		return nil, err
	}
	where := c.File
	if target != c.File {
		where += " (a link: edited at " + target + ")"
	}
	fmt.Fprintf(o.Out, "+ %s: added %q to %s\n", c.Title, ServerName, where)
	return &record{Client: c.Name, Via: "file", File: c.File, Command: o.Command, HTTP: http, Created: !existed,
		CreatedTable: ed.createdTable, Added: ed.added, Offset: ed.offset, SHA256: hashOf([]byte(ed.after)), At: now}, nil
}

// redact hides secret in s.
func redact(s, secret string) string {
	if secret == "" {
		return s
	}
	return strings.ReplaceAll(s, secret, "<token>")
}

func indentLines(s, prefix string) string {
	return prefix + strings.ReplaceAll(s, "\n", "\n"+prefix)
}

// Uninstall removes what Install recorded, for the selected clients (all
// recorded ones when none are named).
func Uninstall(o Options) error {
	st, err := o.loadState()
	if err != nil {
		return err
	}
	want := map[string]bool{}
	for _, n := range o.Clients {
		want[strings.ToLower(strings.TrimSpace(n))] = true
	}
	for n := range want {
		if !slices.Contains(ClientNames(), n) {
			return fmt.Errorf("unknown client %q: use one of %s", n, strings.Join(ClientNames(), ", "))
		}
	}
	titles := map[string]Client{}
	for _, c := range Clients(o.Env) {
		titles[c.Name] = c
	}
	var keep []record
	failed, did := false, 0
	// Newest first: a file changed twice is undone in reverse order.
	for i := len(st.Records) - 1; i >= 0; i-- {
		r := st.Records[i]
		// The pairing host's records are UninstallHost's.
		if r.Client == HostClient || len(want) > 0 && !want[r.Client] {
			keep = append(keep, r)
			continue
		}
		did++
		c, known := titles[r.Client]
		if !known {
			c = Client{Name: r.Client, Title: r.Client}
		}
		if err := uninstallOne(&o, c, r); err != nil {
			failed = true
			fmt.Fprintf(o.Out, "✗ %s: %v\n", c.Title, err)
			keep = append(keep, r)
		}
	}
	if did == 0 {
		fmt.Fprintln(o.Out, "Nothing to remove: monkbrowse install has not configured any client here (nothing recorded in "+o.statePath()+").")
		return nil
	}
	if !o.DryRun {
		slices.Reverse(keep) // collected newest first; stored oldest first
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
	if r.HTTP && c.httpEntry != nil {
		c.entry = func(string) []field { return c.httpEntry(r.Command, "") }
	}
	switch r.Via {
	case "cli":
		return uninstallCLI(o, c)
	case "file":
	default:
		return fmt.Errorf("the record names a kind of change this monkbrowse does not know (%q); left as it is: uninstall with the monkbrowse that made it", r.Via)
	}
	target, err := resolveFile(o.Env.Home, r.File)
	if err != nil {
		return err
	}
	raw, err := os.ReadFile(target)
	if errors.Is(err, os.ErrNotExist) {
		fmt.Fprintf(o.Out, "- %s: %s is gone already\n", c.Title, r.File)
		return nil
	}
	if err != nil {
		return err
	}
	rm, err := removeEntry(c, string(raw), r)
	var changed *changedCommandError
	switch {
	case errors.Is(err, errAbsent):
		fmt.Fprintf(o.Out, "- %s: %s has no %q entry any more; nothing to remove\n", c.Title, r.File, ServerName)
		return nil
	case errors.As(err, &changed):
		return fmt.Errorf("%s: %v; left unchanged: remove %q from %q by hand if you no longer want it", r.File, err, ServerName, c.Key)
	case err != nil:
		return fmt.Errorf("%s: %v", r.File, err)
	}
	// A file install created goes again when nothing else is in it.
	remove := r.Created && target == r.File && emptyDoc(c, rm.next)
	if o.DryRun {
		if remove {
			fmt.Fprintf(o.Out, "~ %s: would delete %s (install created it)\n", c.Title, r.File)
		} else {
			fmt.Fprintf(o.Out, "~ %s: would remove %q from %s%s\n", c.Title, ServerName, r.File, withExtra(rm.extra))
		}
		return nil
	}
	b, err := backup(o.Env, r.File, raw)
	if err != nil {
		return err
	}
	if remove {
		if err := os.Remove(target); err != nil {
			return err
		}
		fmt.Fprintf(o.Out, "- %s: deleted %s (install had created it; backup of it: %s)\n", c.Title, r.File, b)
		return nil
	}
	if err := writeFileAtomic(target, []byte(rm.next), fileMode(target)); err != nil {
		return err
	}
	fmt.Fprintf(o.Out, "- %s: removed %q%s from %s (backup of your file: %s)\n", c.Title, ServerName, withExtra(rm.extra), r.File, b)
	return nil
}

// withExtra says what of the person's went with the entry.
func withExtra(extra []string) string {
	if len(extra) == 0 {
		return ""
	}
	return " (with what you had added to it: " + strings.Join(extra, ", ") + ")"
}

// emptyDoc: the text holds nothing (an empty object, or no TOML at all).
func emptyDoc(c Client, text string) bool {
	t := strings.Join(strings.Fields(text), "")
	return t == "" || c.Format != "toml" && t == "{}"
}

func uninstallCLI(o *Options, c Client) error {
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
