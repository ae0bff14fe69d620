// Package install implements `monkbrowse install` and `monkbrowse
// uninstall`: it finds the MCP clients on the machine and adds monkbrowse to
// each one's configuration, merging into the existing file (JSON, VS Code's
// JSONC, Codex's TOML) with text insertions that keep comments and
// formatting, keeping a backup, never adding a second entry, refusing a file
// it cannot parse, and recording what it added so uninstall removes exactly
// that. Where a client has its own command (`claude mcp add`), it uses it.
package install

import (
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

func indentLines(s, prefix string) string {
	return prefix + strings.ReplaceAll(s, "\n", "\n"+prefix)
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
