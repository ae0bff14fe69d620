package protocol

import (
	"fmt"
	"strings"
)

// RequestAppField is the key, beside a wire request's own fields, that
// names the AI app whose tool call sent it (issue 28): the owner adds it to
// every request's payload (CallTool.App), the extension logs it, shows it
// in the popup and groups the app's new tabs under it. Absent: an older
// server; the extension shows "AI app".
const RequestAppField = "app"

// appNames maps the clientInfo names MCP clients send in initialize (or in
// a request's _meta) to the name the person knows the app by. Compared
// without case; an unknown name is shown as the client sent it.
var appNames = map[string]string{
	"claude-code":           "Claude Code",
	"claude code":           "Claude Code",
	"claude-ai":             "Claude Desktop",
	"claude desktop":        "Claude Desktop",
	"cursor":                "Cursor",
	"cursor-vscode":         "Cursor",
	"visual studio code":    "VS Code",
	"vscode":                "VS Code",
	"windsurf":              "Windsurf",
	"windsurf-client":       "Windsurf",
	"codex":                 "Codex",
	"codex-mcp-client":      "Codex",
	"gemini-cli":            "Gemini CLI",
	"gemini-cli-mcp-client": "Gemini CLI",
	"zed":                   "Zed",
	"cline":                 "Cline",
	"roo-code":              "Roo Code",
	"continue":              "Continue",
	"goose":                 "Goose",
	"opencode":              "opencode",
	"jetbrains-ai":          "JetBrains AI",
	"copilot":               "GitHub Copilot",
}

// maxAppName bounds an app name as shown (a client may send anything).
const maxAppName = 60

// AppDisplayName is the name the person knows the MCP client by, from the
// name it gave (clientInfo.name); pid names the monkbrowse process that
// serves it, for the fallback "AI app (pid N)" when it gave none. Control
// characters are dropped and the result is at most 60 characters.
func AppDisplayName(client string, pid int) string {
	clean := strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return -1
		}
		return r
	}, strings.TrimSpace(client))
	clean = strings.TrimSpace(clean)
	if clean == "" {
		return fmt.Sprintf("AI app (pid %d)", pid)
	}
	if known, ok := appNames[strings.ToLower(clean)]; ok {
		return known
	}
	if r := []rune(clean); len(r) > maxAppName {
		clean = string(r[:maxAppName-1]) + "…"
	}
	return clean
}
