package install

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// The native-messaging host (issue 24, DESIGN §5.2): Chrome starts
// `monkbrowse chrome-extension://<id>/` when the extension asks for it, and
// the host's one job is to hand this user's pairing secret to the
// extension ids in its manifest's allowed_origins.
const (
	// NativeHostName is the host's name, the one the extension asks
	// chrome.runtime.sendNativeMessage for, and its manifest's file name.
	NativeHostName = "com.monkbrowse.pairing"
	// MaxNativeMessage bounds the one request the host reads.
	MaxNativeMessage = 64 << 10
)

// HostManifest is a native-messaging host manifest (Chrome's format).
type HostManifest struct {
	Name           string   `json:"name"`
	Description    string   `json:"description"`
	Path           string   `json:"path"`
	Type           string   `json:"type"`
	AllowedOrigins []string `json:"allowed_origins"`
}

// NewHostManifest describes the host at command for the extension ids.
func NewHostManifest(command string, ids []string) HostManifest {
	m := HostManifest{
		Name:        NativeHostName,
		Description: "monkbrowse pairing: hands this user's pairing secret to the monkbrowse extension",
		Path:        command, Type: "stdio",
	}
	for _, id := range ids {
		if id = strings.TrimSpace(id); id != "" {
			m.AllowedOrigins = append(m.AllowedOrigins, "chrome-extension://"+id+"/")
		}
	}
	return m
}

// HostDirs are the per-user NativeMessagingHosts folders of the browsers
// found on this machine (a browser is found when its user-data folder
// exists): Chrome (stable, Beta, Canary/Dev, for Testing), Chromium, Edge
// and Brave, on Linux and macOS (Windows: DefaultHostTargets, registry
// keys).
func HostDirs(e Env) []string {
	var roots []string
	switch e.GOOS {
	case "darwin":
		base := filepath.Join(e.Home, "Library", "Application Support")
		for _, p := range []string{"Google/Chrome", "Google/Chrome Beta", "Google/Chrome Canary", "Google/Chrome for Testing",
			"Chromium", "Microsoft Edge", "BraveSoftware/Brave-Browser"} {
			roots = append(roots, filepath.Join(base, filepath.FromSlash(p)))
		}
	case "linux", "freebsd", "openbsd", "netbsd":
		cfg := e.XDGConfig
		if cfg == "" {
			cfg = filepath.Join(e.Home, ".config")
		}
		for _, p := range []string{"google-chrome", "google-chrome-beta", "google-chrome-unstable", "google-chrome-for-testing",
			"chromium", "microsoft-edge", "BraveSoftware/Brave-Browser"} {
			roots = append(roots, filepath.Join(cfg, filepath.FromSlash(p)))
		}
		// Snap's Chromium keeps its profile under ~/snap.
		roots = append(roots, filepath.Join(e.Home, "snap", "chromium", "common", "chromium"))
	}
	var dirs []string
	for _, r := range roots {
		if fi, err := os.Stat(r); err == nil && fi.IsDir() {
			dirs = append(dirs, filepath.Join(r, "NativeMessagingHosts"))
		}
	}
	return dirs
}

// CheckNativeHost reports the folders whose manifest is missing or does
// not start command (for doctor); ok lists the folders that are right.
func CheckNativeHost(dirs []string, command string) (ok []string, problems []string) {
	for _, d := range dirs {
		p := filepath.Join(d, NativeHostName+".json")
		raw, err := os.ReadFile(p)
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s is missing: run monkbrowse install", p))
			continue
		}
		var m HostManifest
		if json.Unmarshal(raw, &m) != nil || m.Name != NativeHostName {
			problems = append(problems, fmt.Sprintf("%s is not monkbrowse's host manifest", p))
			continue
		}
		if _, err := os.Stat(m.Path); err != nil {
			problems = append(problems, fmt.Sprintf("%s names %s, which does not exist: run monkbrowse install again", p, m.Path))
			continue
		}
		if command != "" && m.Path != command {
			problems = append(problems, fmt.Sprintf("%s starts %s, not this monkbrowse (%s): run monkbrowse install to point it here", p, m.Path, command))
			continue
		}
		ok = append(ok, p)
	}
	return ok, problems
}

func ours(raw []byte) bool {
	var m HostManifest
	return json.Unmarshal(raw, &m) == nil && m.Name == NativeHostName
}

// NativeHostReply is the host's one answer: the secret, or why not.
type NativeHostReply struct {
	Secret  string `json:"secret,omitempty"`
	Version string `json:"version"`
	Error   string `json:"error,omitempty"`
}

// ServeNativeHost answers one native message (a 32-bit length in native
// byte order, then JSON) with reply(), framed the same way.
func ServeNativeHost(in io.Reader, out io.Writer, reply func() NativeHostReply) error {
	var n uint32
	if err := binary.Read(in, binary.NativeEndian, &n); err != nil {
		return fmt.Errorf("reading the request's length: %w", err)
	}
	if n > MaxNativeMessage {
		return fmt.Errorf("a request of %d bytes is larger than %d", n, MaxNativeMessage)
	}
	req := make([]byte, n)
	if _, err := io.ReadFull(in, req); err != nil {
		return fmt.Errorf("reading the request: %w", err)
	}
	var r struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(req, &r); err != nil || r.Type != "pairing" {
		return writeNative(out, NativeHostReply{Error: `unknown request: the monkbrowse pairing host answers {"type":"pairing"} only`})
	}
	return writeNative(out, reply())
}

func writeNative(out io.Writer, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if err := binary.Write(out, binary.NativeEndian, uint32(len(data))); err != nil {
		return err
	}
	_, err = out.Write(data)
	return err
}
