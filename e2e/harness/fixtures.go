package harness

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"mime"
	"net"
	"net/http"
	"net/http/httptest"
	"path"
	"strconv"
	"strings"
	"time"
)

// OtherOriginPlaceholder in a fixture page is replaced by the second
// server's origin (http://127.0.0.1:<other port>), for cross-origin iframes.
const OtherOriginPlaceholder = "__OTHER_ORIGIN__"

// OtherSitePlaceholder in a fixture page is replaced by the second server's
// address under another host name (http://localhost:<other port>): another
// site than the main origin's 127.0.0.1, for cross-site iframes.
const OtherSitePlaceholder = "__OTHER_SITE__"

// Fixtures serves a directory of fixture pages from two loopback origins (two
// ports of 127.0.0.1), so a page on one can frame a page of the other.
type Fixtures struct {
	main, other *httptest.Server
	files       fs.FS
	// Headers are extra response headers by request path (e.g. a strict
	// Content-Security-Policy for /csp.html).
	headers map[string]http.Header
}

// StrictCSP is the policy the CSP fixture is served with: no eval, no inline
// script.
const StrictCSP = "default-src 'self'; script-src 'self'; object-src 'none'; base-uri 'none'"

// NewFixtures serves files on two fresh 127.0.0.1 ports. csp lists the paths
// (e.g. "/csp.html") served with StrictCSP.
func NewFixtures(files fs.FS, csp ...string) *Fixtures {
	f := &Fixtures{files: files, headers: map[string]http.Header{}}
	for _, p := range csp {
		f.headers[p] = http.Header{"Content-Security-Policy": {StrictCSP}}
	}
	f.main = newLoopbackServer(http.HandlerFunc(f.serve))
	f.other = newLoopbackServer(http.HandlerFunc(f.serve))
	return f
}

func newLoopbackServer(h http.Handler) *httptest.Server {
	s := httptest.NewUnstartedServer(h)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic("harness: cannot listen on 127.0.0.1: " + err.Error())
	}
	s.Listener = l
	s.Start()
	return s
}

// URL returns the main origin's address of p (which starts with /).
func (f *Fixtures) URL(p string) string { return f.main.URL + p }

// Origin is the main origin, http://127.0.0.1:<port>.
func (f *Fixtures) Origin() string { return f.main.URL }

// Close stops both servers.
func (f *Fixtures) Close() {
	f.main.CloseClientConnections()
	f.other.CloseClientConnections()
	f.main.Close()
	f.other.Close()
}

func (f *Fixtures) serve(w http.ResponseWriter, r *http.Request) {
	p := r.URL.Path
	if p == "/" {
		p = "/index.html"
	}
	if p == "/favicon.ico" {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	if serveDynamic(w, r) {
		return
	}
	name := strings.TrimPrefix(path.Clean(p), "/")
	b, err := fs.ReadFile(f.files, name)
	if err != nil {
		http.NotFound(w, r)
		return
	}
	ctype := mime.TypeByExtension(path.Ext(name))
	if ctype == "" {
		ctype = http.DetectContentType(b)
	}
	if strings.HasPrefix(ctype, "text/html") {
		b = bytes.ReplaceAll(b, []byte(OtherOriginPlaceholder), []byte(f.other.URL))
		b = bytes.ReplaceAll(b, []byte(OtherSitePlaceholder), []byte(strings.Replace(f.other.URL, "127.0.0.1", "localhost", 1)))
	}
	h := w.Header()
	h.Set("Content-Type", ctype)
	h.Set("Cache-Control", "no-store")
	for k, vs := range f.headers[p] {
		h[k] = vs
	}
	_, _ = w.Write(b)
}

// serveDynamic answers the generated endpoints the fixture pages use:
//
//   - /api/<name>?status=N — JSON {"api":"<name>","token":"api-body-<name>"}
//     with status N (default 200), for network listings and their bodies;
//   - /dl/<name> — an attachment of DownloadSize bytes, for downloads;
//   - /slow/<name>?ms=N — a text answer after N ms (at most 10 s).
func serveDynamic(w http.ResponseWriter, r *http.Request) bool {
	p := r.URL.Path
	h := w.Header()
	h.Set("Cache-Control", "no-store")
	switch {
	case strings.HasPrefix(p, "/api/"):
		name := strings.TrimPrefix(p, "/api/")
		status := http.StatusOK
		if s, err := strconv.Atoi(r.URL.Query().Get("status")); err == nil && s >= 200 && s < 600 {
			status = s
		}
		body := fmt.Sprintf(`{"api":%q,"token":"api-body-%s"}`, name, name)
		h.Set("Content-Type", "application/json")
		h.Set("Content-Length", strconv.Itoa(len(body)))
		w.WriteHeader(status)
		_, _ = io.WriteString(w, body)
		return true
	case strings.HasPrefix(p, "/dl/"):
		name := path.Base(p)
		h.Set("Content-Type", "application/octet-stream")
		h.Set("Content-Disposition", fmt.Sprintf("attachment; filename=%q", name))
		h.Set("Content-Length", strconv.Itoa(DownloadSize))
		_, _ = w.Write(bytes.Repeat([]byte("m"), DownloadSize))
		return true
	case strings.HasPrefix(p, "/slow/"):
		ms, _ := strconv.Atoi(r.URL.Query().Get("ms"))
		select {
		case <-time.After(time.Duration(min(max(ms, 0), 10_000)) * time.Millisecond):
		case <-r.Context().Done():
			return true
		}
		h.Set("Content-Type", "text/plain")
		_, _ = io.WriteString(w, "slow "+path.Base(p))
		return true
	}
	return false
}

// DownloadSize is the size of every /dl/ file.
const DownloadSize = 4096
