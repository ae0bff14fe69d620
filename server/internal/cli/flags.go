package cli

import (
	"flag"
	"fmt"
	"net"
	"strings"

	"github.com/monkbrowse/monkbrowse/server/internal/httpmcp"
	"github.com/monkbrowse/monkbrowse/server/internal/owner"
)

// listFlag is a repeatable flag that also splits on commas.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error {
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			*l = append(*l, s)
		}
	}
	return nil
}

// extensionIDs is --allow-extension-id: a listFlag of valid Chrome
// extension ids only (they go into the Origin check and the native host's
// allowed_origins).
type extensionIDs listFlag

func (l *extensionIDs) String() string { return (*listFlag)(l).String() }
func (l *extensionIDs) Set(v string) error {
	var ids listFlag
	_ = ids.Set(v)
	for _, id := range ids {
		if err := owner.CheckExtensionID(id); err != nil {
			return err
		}
	}
	*l = append(*l, ids...)
	return nil
}

// httpFlag is --http with an optional address: alone it means
// httpmcp.DefaultAddr.
type httpFlag struct {
	addr string
	bare bool // given without a value: an address may follow as an argument
}

func (h *httpFlag) String() string   { return h.addr }
func (h *httpFlag) IsBoolFlag() bool { return true }
func (h *httpFlag) Set(v string) error {
	switch v {
	case "true":
		*h = httpFlag{addr: httpmcp.DefaultAddr, bare: true}
	case "false", "":
		*h = httpFlag{}
	default:
		if _, _, err := net.SplitHostPort(v); err != nil {
			return fmt.Errorf("give host:port, such as %s: %v", httpmcp.DefaultAddr, err)
		}
		*h = httpFlag{addr: v}
	}
	return nil
}

// urlFlag is install's --http with an optional URL: alone it means the
// default endpoint.
type urlFlag string

func (u *urlFlag) String() string   { return string(*u) }
func (u *urlFlag) IsBoolFlag() bool { return true }
func (u *urlFlag) Set(v string) error {
	switch {
	case v == "true":
		*u = urlFlag("http://" + httpmcp.DefaultAddr + httpmcp.Path)
	case v == "false":
		*u = ""
	case strings.HasPrefix(v, "http://") || strings.HasPrefix(v, "https://"):
		*u = urlFlag(v)
	default:
		return fmt.Errorf("give the endpoint's URL, such as http://%s%s", httpmcp.DefaultAddr, httpmcp.Path)
	}
	return nil
}

// parseServeFlags parses args; after a bare --http, an argument that is
// host:port is its address (`serve --http 0.0.0.0:9220 --caps all`).
func parseServeFlags(fs *flag.FlagSet, args []string, h *httpFlag) error {
	if err := fs.Parse(args); err != nil {
		return err
	}
	if h.bare && fs.NArg() > 0 {
		if _, _, err := net.SplitHostPort(fs.Arg(0)); err == nil {
			*h = httpFlag{addr: fs.Arg(0)}
			return fs.Parse(fs.Args()[1:])
		}
	}
	return nil
}
