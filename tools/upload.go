package tools

import (
	"fmt"
	"strings"

	"github.com/monkbrowse/monkbrowse/protocol"
)

// uploadOf returns the file the calling AI app's own monkbrowse process read
// for this browser_upload_file call (its Grants.Upload). The
// dispatcher never reads files itself: which files an app may upload is
// decided by that app's --upload-root folders and its MCP client's roots,
// in its own process (server/internal/files).
func (d dispatch) uploadOf(path string) (*protocol.UploadedFile, error) {
	f := d.call.Grants.Upload
	if f == nil {
		return nil, fmt.Errorf("browser_upload_file could not use %s: the monkbrowse process of the AI app that made this call did not read the file "+
			"(it is probably an older monkbrowse version). Update monkbrowse for every AI app and restart them.", path)
	}
	if f.Path != path {
		return nil, fmt.Errorf("browser_upload_file: the file read (%s) is not the path asked for (%s); this is a bug in monkbrowse, try again.", f.Path, path)
	}
	return f, nil
}

// fileURLRefusal returns why the calling app may not open url, or "". Only a
// process started with --allow-file-urls lets its app open file: URLs: an AI
// reading a page could otherwise be talked into reading the person's files
// (unpacked extensions loaded from the command line have file access).
func (d dispatch) fileURLRefusal(url string) string {
	if urlScheme(url) != "file" || d.call.Grants.AllowFileURLs {
		return ""
	}
	return fmt.Sprintf("monkbrowse does not open file: URLs (%s): pages on this computer's disk are not shared with the AI. "+
		"If the person wants the AI to open local files, they add --allow-file-urls to monkbrowse's arguments in the AI app's MCP server settings and restart the app. "+
		"To show a page, serve it over http (for example `python3 -m http.server` in its folder) and open http://localhost:8000/.", url)
}

// cleanURL prepares a URL the way the URL standard does before parsing
// (what Chrome and the extension's new URL() see): leading and trailing C0
// controls and spaces are stripped, and tabs and newlines removed anywhere,
// so "fi\tle:" cannot pass the scheme check as something else.
func cleanURL(u string) string {
	u = strings.TrimFunc(u, func(r rune) bool { return r <= 0x20 })
	return strings.Map(func(r rune) rune {
		if r == '\t' || r == '\n' || r == '\r' {
			return -1
		}
		return r
	}, u)
}

// urlScheme returns the lower-cased scheme of a cleaned URL, or "".
func urlScheme(u string) string {
	for i, r := range u {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z':
		case i > 0 && (r >= '0' && r <= '9' || r == '+' || r == '-' || r == '.'):
		case i > 0 && r == ':':
			return strings.ToLower(u[:i])
		default:
			return ""
		}
	}
	return ""
}
