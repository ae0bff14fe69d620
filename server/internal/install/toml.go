package install

import (
	"errors"
	"fmt"
	"strings"

	"github.com/BurntSushi/toml"
)

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
