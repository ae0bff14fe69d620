// Package doctor implements `monkbrowse doctor`: it looks at the control
// port and the extension port, says who holds them, lists the connected
// profiles when an owner can be asked, and ends with the next step. Its
// output is for a person (stdout is fine: doctor is not the MCP mode).
package doctor

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"time"

	"github.com/monkbrowse/monkbrowse/protocol"
	"github.com/monkbrowse/monkbrowse/server/internal/httpmcp"
	"github.com/monkbrowse/monkbrowse/server/internal/portholder"
	"github.com/monkbrowse/monkbrowse/tools"
)

// OwnerStatus is what a running owner reports about itself.
type OwnerStatus struct {
	PID      int
	Version  string
	Port     int // its extension port
	Profiles []tools.ProfileInfo
	// Forwarders are the other monkbrowse processes (one per AI app)
	// sending their tool calls through this owner.
	Forwarders []protocol.ForwarderInfo
	// HTTP are the MCP endpoints over HTTP (serve --http) of the owner
	// and its forwarders, with the AI apps connected to each.
	HTTP []protocol.HTTPStatus
}

// TokenFile is the HTTP token's file as doctor shows it (its content is
// never read): where, whether it exists, its mode and its owner.
type TokenFile struct {
	Path     string
	Exists   bool
	Mode     fs.FileMode
	UID      int
	UIDKnown bool
}

// Options configures Run.
type Options struct {
	Port, ControlPort int
	Out               io.Writer
	// QueryOwner asks the owner on the control port for its status. Nil
	// until the shared daemon provides it; doctor then says only whether
	// the control port is held.
	QueryOwner func(ctx context.Context, controlPort int) (*OwnerStatus, error)
	// Timeout bounds each probe. Zero: 2 s.
	Timeout time.Duration
	// GOOS picks the steps for loading the extension (empty: this OS).
	GOOS string
	// Pairing reports the pairing secret's file, or why there is none
	// (nil: not checked).
	Pairing func() (path string, err error)
	// NativeHost reports the pairing host's manifests that are right and
	// the problems of the others (nil: not checked).
	NativeHost func() (ok, problems []string)
	// HTTPURL is where `monkbrowse serve --http` serves MCP by default
	// ("": not checked; the endpoints the owner reports are shown
	// whatever their address); HTTPToken reports the HTTP token's file
	// (nil: not checked).
	HTTPURL   string
	HTTPToken func() (TokenFile, error)
	// UID is this user, whom the token file must belong to (0: os.Getuid()).
	UID int
}

// Run prints the diagnosis and returns the exit code: 0 when everything
// needed is in place, 1 when something is missing.
func Run(ctx context.Context, o Options) int {
	if o.Timeout <= 0 {
		o.Timeout = 2 * time.Second
	}
	w := o.Out
	var next []string
	fmt.Fprintln(w, "monkbrowse doctor")
	fmt.Fprintln(w)

	// 1. The control port: is an owner running?
	ctlHeld := held(ctx, o.ControlPort, o.Timeout)
	var status *OwnerStatus
	switch {
	case !ctlHeld:
		fmt.Fprintf(w, "Owner:          none running (control port %d is free). Your AI app starts monkbrowse when it needs it.\n", o.ControlPort)
	case o.QueryOwner != nil:
		qctx, cancel := context.WithTimeout(ctx, o.Timeout)
		s, err := o.QueryOwner(qctx, o.ControlPort)
		cancel()
		if err != nil {
			h, herr := portholder.Find(o.ControlPort)
			self, _ := os.Executable()
			switch {
			case herr == nil && h.IsMonkbrowse(self):
				fmt.Fprintf(w, "Owner:          control port %d is held by monkbrowse %s, which does not answer: %v\n", o.ControlPort, describe(h), err)
				next = append(next, fmt.Sprintf("The monkbrowse owner (pid %d) is not responding%s. Resume it (fg in the terminal of the app that started it) or quit that app; the other AI apps continue once it answers or exits.", h.PID, suspended(h)))
			default:
				fmt.Fprintf(w, "Owner:          control port %d is held by %s, but asking it failed: %v\n", o.ControlPort, describeHolder(o.ControlPort), err)
				next = append(next, fmt.Sprintf("Something that is not a working monkbrowse owner holds port %d (%s): stop it, or start monkbrowse with --control-port N.", o.ControlPort, describeHolder(o.ControlPort)))
			}
		} else {
			status = s
			fmt.Fprintf(w, "Owner:          monkbrowse %s, pid %d, on control port %d\n", s.Version, s.PID, o.ControlPort)
			if len(s.Forwarders) == 0 {
				fmt.Fprintln(w, "Forwarders:     none (no other AI app shares this browser connection)")
			} else {
				fmt.Fprintln(w, "Forwarders:")
				for _, f := range s.Forwarders {
					fmt.Fprintf(w, "  - pid %d, monkbrowse %s, connected since %s\n", f.PID, f.Version, time.UnixMilli(f.Connected).Format(time.DateTime))
				}
			}
		}
	default:
		fmt.Fprintf(w, "Owner:          control port %d is held, probably by a running monkbrowse owner (%s)\n", o.ControlPort, describeHolder(o.ControlPort))
	}

	// 2. The extension port.
	extHeld := held(ctx, o.Port, o.Timeout)
	extIsOurs := false
	if !extHeld {
		fmt.Fprintf(w, "Extension port: %d is free (no monkbrowse owner is listening for the extension yet)\n", o.Port)
	} else {
		who, ours, chrome := identify(ctx, o.Port, o.Timeout)
		extIsOurs = ours
		fmt.Fprintf(w, "Extension port: %d is held by %s\n", o.Port, who)
		if chrome {
			next = append(next, fmt.Sprintf("Chrome's remote debugging holds port %d. Pick another port for monkbrowse on both sides: add --port N to monkbrowse's arguments in your AI app's MCP settings, and set the same N in the monkbrowse extension's options page.", o.Port))
		} else if !ours {
			next = append(next, fmt.Sprintf("Another program holds port %d. Stop it, or pick another port on both sides: --port N for monkbrowse and the same N in the extension's options page.", o.Port))
		}
	}

	// 3. Profiles: only the owner knows.
	switch {
	case status != nil && len(status.Profiles) == 0:
		fmt.Fprintln(w, "Profiles:       none connected")
		next = append(next, fmt.Sprintf("No Chrome profile is connected. Install (or load unpacked) the monkbrowse extension, open its popup and check it connects to port %d, then switch Share on for the tabs the AI may use.", o.Port))
	case status != nil:
		fmt.Fprintln(w, "Profiles:")
		shared := 0
		for _, p := range status.Profiles {
			state := "connected"
			if !p.Connected {
				state = "not connected"
			}
			fmt.Fprintf(w, "  - %s (%s, %s): %d shared tab(s)\n", p.Slug, p.Label, state, len(p.Tabs))
			writePolicy(w, p.Policy)
			shared += len(p.Tabs)
		}
		if shared == 0 {
			next = append(next, "No tab is shared: click the monkbrowse icon in Chrome and switch Share on for the tabs the AI may use.")
		}
	case extIsOurs:
		fmt.Fprintln(w, "Profiles:       unknown (this doctor cannot ask the owner yet); call browser_list_tabs from your AI app to see them")
	default:
		fmt.Fprintln(w, "Profiles:       none (no monkbrowse owner is running)")
	}

	// 4. Pairing (DESIGN §5.2): the secret, and the host that hands it to
	// the extension.
	if o.Pairing != nil {
		if path, err := o.Pairing(); err != nil {
			fmt.Fprintf(w, "Pairing:        no pairing secret: %v\n", err)
			next = append(next, "monkbrowse has no pairing secret, so no extension can pair: fix the folder named above (it must be yours, not a symlink, mode 0700), then run monkbrowse pair --reset.")
		} else {
			fmt.Fprintf(w, "Pairing:        secret in %s\n", path)
		}
	}
	if o.NativeHost != nil {
		ok, problems := o.NativeHost()
		switch {
		case len(ok) == 0 && len(problems) == 0:
			fmt.Fprintln(w, "Pairing host:   no Chrome, Chromium, Edge or Brave profile folder found")
		case len(ok) > 0:
			fmt.Fprintf(w, "Pairing host:   registered for %d browser(s)\n", len(ok))
		}
		for _, p := range problems {
			fmt.Fprintf(w, "Pairing host:   %s\n", p)
		}
		if len(problems) > 0 {
			next = append(next, "The extension fetches the pairing secret from monkbrowse's native-messaging host: run monkbrowse install (or monkbrowse install --native-host-only), then reload the extension from chrome://extensions.")
		}
	}

	// 5. MCP over HTTP (serve --http), for AI apps that reach monkbrowse
	// by a URL: optional, so it only adds a step when its token is broken.
	var endpoints []protocol.HTTPStatus
	if status != nil {
		endpoints = status.HTTP
	}
	probed := false
	for _, h := range endpoints {
		probed = probed || h.URL == o.HTTPURL
		fmt.Fprintf(w, "HTTP endpoint:  %s, served by monkbrowse serve --http (pid %d)%s\n", h.URL, h.PID, httpClients(h.Clients))
		for _, c := range h.Clients {
			fmt.Fprintf(w, "                  %s, since %s, %d tool call%s\n", c.Name, time.UnixMilli(c.Since).Local().Format("2006-01-02 15:04:05"), c.Calls, plural(c.Calls))
		}
	}
	if o.HTTPURL != "" && !probed {
		fmt.Fprintf(w, "HTTP endpoint:  %s %s\n", o.HTTPURL, probeHTTP(ctx, o.HTTPURL, o.Timeout))
	}
	if o.HTTPToken != nil {
		uid := o.UID
		if uid == 0 {
			uid = os.Getuid()
		}
		f, err := o.HTTPToken()
		line, problem := tokenFileLine(f, err, uid)
		fmt.Fprintf(w, "HTTP token:     %s\n", line)
		if problem != "" {
			next = append(next, problem)
		}
	}

	if !ctlHeld && !extHeld {
		next = append(next, "Nothing is running, which is normal when no AI app is open. Add monkbrowse to your AI apps with `monkbrowse install` (or by hand: command = the path of monkbrowse), start the app, then run monkbrowse doctor again.")
	}
	connected := false
	if status != nil {
		for _, p := range status.Profiles {
			connected = connected || p.Connected
		}
	}
	if !connected {
		fmt.Fprintln(w)
		fmt.Fprintln(w, "Loading the extension (if you have not yet):")
		for i, s := range LoadSteps(o.GOOS, protocol.Version, o.Port) {
			fmt.Fprintf(w, "  %d. %s\n", i+1, s)
		}
	}
	fmt.Fprintln(w)
	if len(next) == 0 {
		fmt.Fprintln(w, "Everything needed is in place.")
		return 0
	}
	fmt.Fprintln(w, "Next steps:")
	for _, n := range next {
		fmt.Fprintf(w, "  * %s\n", n)
	}
	return 1
}

// probeHTTP says who answers at url: a request without the token must
// get serve --http's 401.
func probeHTTP(ctx context.Context, url string, timeout time.Duration) string {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, nil)
	if err != nil {
		return fmt.Sprintf("(not checked: %v)", err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "is not served (monkbrowse serve --http serves it, for AI apps that cannot start monkbrowse themselves)"
	}
	resp.Body.Close()
	if resp.StatusCode == http.StatusUnauthorized && resp.Header.Get("WWW-Authenticate") == httpmcp.Realm {
		return "is served by monkbrowse serve --http (it refuses requests without the token)"
	}
	return fmt.Sprintf("answers %d, not as monkbrowse serve --http does: another program holds that address", resp.StatusCode)
}

// held reports whether something listens on 127.0.0.1:port.
func held(ctx context.Context, port int, timeout time.Duration) bool {
	d := net.Dialer{Timeout: timeout}
	c, err := d.DialContext(ctx, "tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		return false
	}
	c.Close()
	return true
}

// identify names what answers HTTP on port: a monkbrowse owner (it marks its
// answers), Chrome's remote debugging (/json/version), or something else.
func identify(ctx context.Context, port int, timeout time.Duration) (who string, ours, chrome bool) {
	base := "http://127.0.0.1:" + strconv.Itoa(port)
	client := &http.Client{Timeout: timeout}
	get := func(path string) (*http.Response, []byte, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+path, nil)
		if err != nil {
			return nil, nil, err
		}
		resp, err := client.Do(req)
		if err != nil {
			return nil, nil, err
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		return resp, body, nil
	}
	if resp, _, err := get("/"); err == nil {
		if v := resp.Header.Get(protocol.HeaderServer); v != "" {
			return fmt.Sprintf("monkbrowse %s (the owner; the extension connects here)", v), true, false
		}
	}
	if resp, body, err := get("/json/version"); err == nil && resp.StatusCode == http.StatusOK {
		var v struct {
			Browser string `json:"Browser"`
		}
		if json.Unmarshal(body, &v) == nil && v.Browser != "" {
			return fmt.Sprintf("Chrome's remote debugging (%s, %s)", v.Browser, describeHolder(port)), false, true
		}
	}
	return "another program (" + describeHolder(port) + ")", false, false
}

// describeHolder names the process listening on port when the system lets
// us see it (portholder), else says it is unknown.
func describeHolder(port int) string {
	h, err := portholder.Find(port)
	if err != nil || h.PID == 0 {
		return "process unknown"
	}
	return describe(h)
}

// describe names a holder: "process 123, nc" (stopped, with the app that
// started it, when known).
func describe(h portholder.Holder) string {
	s := fmt.Sprintf("process %d, %s", h.PID, h.Command)
	if h.Stopped {
		s += ", stopped"
	}
	if h.Parent != "" {
		s += ", started by " + h.Parent
	}
	return s
}

func suspended(h portholder.Holder) string {
	if h.Stopped {
		return " — it is suspended (stopped)"
	}
	return " — is it stuck?"
}

// httpClients says how many AI apps an HTTP endpoint has.
func httpClients(cs []protocol.HTTPClientInfo) string {
	switch len(cs) {
	case 0:
		return "; no AI app connected"
	case 1:
		return "; 1 AI app connected:"
	}
	return fmt.Sprintf("; %d AI apps connected:", len(cs))
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// tokenFileLine describes the HTTP token's file, and what to do when it is
// not private to this user (uid).
func tokenFileLine(f TokenFile, err error, uid int) (line, problem string) {
	switch {
	case err != nil:
		return err.Error(), ""
	case !f.Exists:
		return fmt.Sprintf("none yet in %s: monkbrowse serve --http (or monkbrowse http-token) creates it", f.Path), ""
	}
	owner := "owner unknown on this system"
	if f.UIDKnown {
		owner = fmt.Sprintf("owned by uid %d", f.UID)
		if f.UID == uid {
			owner = fmt.Sprintf("owned by you (uid %d)", uid)
		}
	}
	line = fmt.Sprintf("%s: present, mode %04o, %s (monkbrowse http-token prints it, --rotate replaces it)", f.Path, uint32(f.Mode.Perm()), owner)
	if f.UIDKnown && f.UID != uid {
		return line, fmt.Sprintf("The HTTP token file %s belongs to another user: monkbrowse serve --http refuses the folder. Remove it and run monkbrowse http-token as yourself.", f.Path)
	}
	if runtime.GOOS != "windows" && f.Mode.Perm()&0o077 != 0 {
		return line, fmt.Sprintf("The HTTP token file %s can be read by other users (mode %04o): run chmod 600 %s, or monkbrowse http-token --rotate for a fresh one.", f.Path, uint32(f.Mode.Perm()), f.Path)
	}
	return line, ""
}
