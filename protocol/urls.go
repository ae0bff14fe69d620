package protocol

import (
	"regexp"
	"strings"
)

// Addresses as a person (or an AI) types them, completed the way the
// address bar would. The server completes browser_navigate's url before
// sending it and the extension completes what it receives, both by these
// rules (extension/lib/urls.ts uses the generated copies; testdata/urls.json
// holds both to the same cases).

// KeptSchemes are the schemes an address keeps as typed even without "//"
// (about:blank, data:…, mailto:…); whether the page may then be opened is
// decided elsewhere.
var KeptSchemes = []string{"about:", "blob:", "chrome:", "data:", "file:", "javascript:", "mailto:", "view-source:"}

// SchemeURLPattern matches an address that starts with its scheme and "//".
const SchemeURLPattern = `^[a-zA-Z][a-zA-Z0-9+.-]*://`

// LocalHostPattern (case-insensitive) matches a bare loopback host, which
// gets http:// as local development servers rarely speak TLS.
const LocalHostPattern = `^(localhost|127\.\d+\.\d+\.\d+|\[::1\])(:\d+)?(/|$)`

var (
	schemeURLRe = regexp.MustCompile(SchemeURLPattern)
	localHostRe = regexp.MustCompile(`(?i)` + LocalHostPattern)
)

// NormalizeURL completes an address without a scheme: "example.com" →
// https://example.com, "localhost:3000" → http://localhost:3000. Anything
// with a scheme is returned as it is (trimmed).
func NormalizeURL(u string) string {
	u = strings.TrimSpace(u)
	lower := strings.ToLower(u)
	for _, s := range KeptSchemes {
		if strings.HasPrefix(lower, s) {
			return u
		}
	}
	if schemeURLRe.MatchString(u) {
		return u
	}
	if localHostRe.MatchString(u) {
		return "http://" + u
	}
	return "https://" + u
}
