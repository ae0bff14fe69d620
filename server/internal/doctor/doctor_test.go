package doctor

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/monkbrowse/monkbrowse/protocol"
	"github.com/monkbrowse/monkbrowse/server/internal/httpmcp"
	"github.com/monkbrowse/monkbrowse/server/internal/owner"
	"github.com/monkbrowse/monkbrowse/server/internal/proc"
	"github.com/monkbrowse/monkbrowse/tools"
)

func portOf(addr net.Addr) int { return addr.(*net.TCPAddr).Port }

func freePort(t *testing.T) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return portOf(ln.Addr())
}

func TestChromeRemoteDebuggingIsNamed(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/json/version" {
			w.Write([]byte(`{"Browser":"Chrome/130.0.0.0","Protocol-Version":"1.3"}`))
			return
		}
		http.NotFound(w, r)
	}))
	defer srv.Close()
	var out bytes.Buffer
	code := Run(context.Background(), Options{Port: portOf(srv.Listener.Addr()), ControlPort: freePort(t), Out: &out})
	s := out.String()
	if code != 1 || !strings.Contains(s, "Chrome's remote debugging (Chrome/130.0.0.0") || !strings.Contains(s, "--port N") {
		t.Fatalf("exit %d:\n%s", code, s)
	}
}

func TestMonkbrowseOwnerIsRecognised(t *testing.T) {
	log := zerolog.Nop()
	o, err := owner.Start(context.Background(), owner.Config{Addr: "127.0.0.1:0", Self: proc.Self{Logger: &log}})
	if err != nil {
		t.Fatal(err)
	}
	defer o.Shutdown(context.Background())
	var out bytes.Buffer
	Run(context.Background(), Options{Port: o.Port(), ControlPort: freePort(t), Out: &out})
	if !strings.Contains(out.String(), "held by monkbrowse") {
		t.Fatalf("%s", out.String())
	}
}

func TestNothingRunning(t *testing.T) {
	var out bytes.Buffer
	code := Run(context.Background(), Options{Port: freePort(t), ControlPort: freePort(t), Out: &out})
	if code != 1 || !strings.Contains(out.String(), "is free") || !strings.Contains(out.String(), "Next steps") {
		t.Fatalf("exit %d:\n%s", code, out.String())
	}
}

// TestDoctorPrintsLoadStepsForEachOS: with no profile connected, doctor
// gives the exact steps for loading the unpacked extension on that OS.
func TestDoctorPrintsLoadStepsForEachOS(t *testing.T) {
	for goos, want := range map[string][]string{
		"darwin":  {"~/Library/Application Support/monkbrowse/extension", "unzip -o ~/Downloads/monkbrowse-extension-"},
		"windows": {`%LOCALAPPDATA%\monkbrowse\extension`, "Expand-Archive"},
		"linux":   {"~/.local/share/monkbrowse/extension", "unzip -o"},
	} {
		var out strings.Builder
		Run(context.Background(), Options{Port: freePortForTest(t), ControlPort: freePortForTest(t), Out: &out, GOOS: goos, Timeout: 200 * time.Millisecond})
		s := out.String()
		for _, w := range append(want, "chrome://extensions", "Developer mode", "Load unpacked", ExtensionID) {
			if !strings.Contains(s, w) {
				t.Errorf("%s: doctor output lacks %q:\n%s", goos, w, s)
			}
		}
	}
}

func freePortForTest(t *testing.T) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// TestDoctorChecksPairing: doctor names the pairing secret's file or why
// there is none, and the pairing host's problems, each with a next step.
func TestDoctorChecksPairing(t *testing.T) {
	var out bytes.Buffer
	code := Run(context.Background(), Options{Port: freePort(t), ControlPort: freePort(t), Out: &out, Timeout: 200 * time.Millisecond,
		Pairing: func() (string, error) { return "", errors.New("~/.monkbrowse is a symlink") },
		NativeHost: func() ([]string, []string) {
			return nil, []string{"/x/NativeMessagingHosts/com.monkbrowse.pairing.json is missing: run monkbrowse install"}
		},
	})
	s := out.String()
	for _, want := range []string{"no pairing secret: ~/.monkbrowse is a symlink", "monkbrowse pair --reset", "com.monkbrowse.pairing.json is missing", "--native-host-only"} {
		if code != 1 || !strings.Contains(s, want) {
			t.Errorf("exit %d, output lacks %q:\n%s", code, want, s)
		}
	}
	out.Reset()
	Run(context.Background(), Options{Port: freePort(t), ControlPort: freePort(t), Out: &out, Timeout: 200 * time.Millisecond,
		Pairing:    func() (string, error) { return "/h/.monkbrowse/pairing-secret", nil },
		NativeHost: func() ([]string, []string) { return []string{"a", "b"}, nil },
	})
	if s := out.String(); !strings.Contains(s, "secret in /h/.monkbrowse/pairing-secret") || !strings.Contains(s, "registered for 2 browser(s)") {
		t.Errorf("output:\n%s", s)
	}
}

// TestDoctorShowsTheHTTPEndpoint: doctor says whether serve --http answers
// at its URL (recognised by its 401), and where the token is or why not.
func TestDoctorShowsTheHTTPEndpoint(t *testing.T) {
	served := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("WWW-Authenticate", httpmcp.Realm)
		w.WriteHeader(http.StatusUnauthorized)
	}))
	defer served.Close()
	other := httptest.NewServer(http.NotFoundHandler())
	defer other.Close()
	free := fmt.Sprintf("http://127.0.0.1:%d/mcp", freePort(t))
	for _, c := range []struct {
		url   string
		token func() (TokenFile, error)
		want  []string
		next  bool // a next step about the token
	}{
		{served.URL + "/mcp", func() (TokenFile, error) {
			return TokenFile{Path: "/h/.monkbrowse/http-token", Exists: true, Mode: 0o600, UID: 1000, UIDKnown: true}, nil
		}, []string{"is served by monkbrowse serve --http", "HTTP token:     /h/.monkbrowse/http-token: present, mode 0600, owned by you (uid 1000)"}, false},
		{other.URL + "/mcp", func() (TokenFile, error) { return TokenFile{}, errors.New("~/.monkbrowse is a symlink") }, []string{"answers 404", "another program", "HTTP token:     ~/.monkbrowse is a symlink"}, false},
		{free, func() (TokenFile, error) { return TokenFile{Path: "/h/.monkbrowse/http-token"}, nil }, []string{free + " is not served", "none yet in /h/.monkbrowse/http-token"}, false},
		{free, func() (TokenFile, error) {
			return TokenFile{Path: "/h/t", Exists: true, Mode: 0o644, UID: 1000, UIDKnown: true}, nil
		}, []string{"present, mode 0644", "can be read by other users (mode 0644): run chmod 600 /h/t"}, true},
		{free, func() (TokenFile, error) {
			return TokenFile{Path: "/h/t", Exists: true, Mode: 0o600, UID: 0, UIDKnown: true}, nil
		}, []string{"present, mode 0600, owned by uid 0", "belongs to another user"}, true},
	} {
		var out bytes.Buffer
		Run(context.Background(), Options{Port: freePort(t), ControlPort: freePort(t), Out: &out, Timeout: 2 * time.Second, HTTPURL: c.url, HTTPToken: c.token, UID: 1000})
		for _, w := range c.want {
			if !strings.Contains(out.String(), w) {
				t.Errorf("doctor with %s lacks %q:\n%s", c.url, w, out.String())
			}
		}
	}
}

// TestDoctorListsHTTPClients: the HTTP endpoints the owner reports are
// shown with the AI apps connected to each (name, since when, calls).
func TestDoctorListsHTTPClients(t *testing.T) {
	since := time.Date(2026, 12, 4, 21, 0, 0, 0, time.Local)
	// Something holds the control port: doctor asks it for the status.
	ctl, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ctl.Close()
	var out bytes.Buffer
	Run(context.Background(), Options{Port: freePort(t), ControlPort: ctl.Addr().(*net.TCPAddr).Port, Out: &out, Timeout: 2 * time.Second,
		QueryOwner: func(context.Context, int) (*OwnerStatus, error) {
			return &OwnerStatus{PID: 7, HTTP: []protocol.HTTPStatus{{URL: "http://127.0.0.1:9330/mcp", PID: 8, Clients: []protocol.HTTPClientInfo{
				{Name: "Claude Code", Since: since.UnixMilli(), Calls: 3}, {Name: "Cursor", Since: since.UnixMilli(), Calls: 1},
			}}}}, nil
		},
	})
	for _, w := range []string{
		"HTTP endpoint:  http://127.0.0.1:9330/mcp, served by monkbrowse serve --http (pid 8); 2 AI apps connected:",
		"Claude Code, since 2026-12-04 21:00:00, 3 tool calls",
		"Cursor, since 2026-12-04 21:00:00, 1 tool call\n",
	} {
		if !strings.Contains(out.String(), w) {
			t.Errorf("doctor lacks %q:\n%s", w, out.String())
		}
	}
}

// TestDoctorPrintsThePolicy: the organisation's policy a profile's
// extension reports (issue 44) is printed under that profile.
func TestDoctorPrintsThePolicy(t *testing.T) {
	log := zerolog.Nop()
	o, err := owner.Start(context.Background(), owner.Config{Addr: "127.0.0.1:0", Self: proc.Self{Logger: &log}})
	if err != nil {
		t.Fatal(err)
	}
	defer o.Shutdown(context.Background())
	// Something holds the control port, so doctor asks the owner (QueryOwner).
	ctl, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ctl.Close()
	var out bytes.Buffer
	Run(context.Background(), Options{Port: o.Port(), ControlPort: portOf(ctl.Addr()), Out: &out,
		QueryOwner: func(context.Context, int) (*OwnerStatus, error) {
			return &OwnerStatus{Profiles: []tools.ProfileInfo{{Slug: "work", Label: "work", Connected: true, Policy: &protocol.SitePolicy{
				BlockedSites: []string{"*.bank.test"}, Forbidden: []string{"evaluate", "debugger"}, AllowedApps: []string{"Claude Code"}, NoLogExport: true, LogRetentionDays: 7,
			}}}}, nil
		}})
	s := strings.Join(strings.Fields(out.String()), " ")
	for _, want := range []string{"policy set by your organisation", "never (blocked sites): *.bank.test", "not allowed: evaluate, debugger", "AI apps allowed: Claude Code", "activity log export: not allowed", "activity log kept: 7 days"} {
		if !strings.Contains(s, want) {
			t.Errorf("doctor does not print %q:\n%s", want, s)
		}
	}
}
