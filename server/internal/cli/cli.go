// Package cli is the monkbrowse command line: the subcommands (install,
// uninstall, pair, doctor, serve --http, http-token, the pairing host Chrome
// starts) and the stdio server an AI app runs, each in its own file.
// server/cmd/monkbrowse's main only calls Run.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/rs/zerolog"

	"github.com/monkbrowse/monkbrowse/protocol"
	"github.com/monkbrowse/monkbrowse/server/internal/httpmcp"
	"github.com/monkbrowse/monkbrowse/server/internal/logwriter"
	"github.com/monkbrowse/monkbrowse/server/internal/owner"
)

// config is the parsed command line.
type config struct {
	port, controlPort, maxProfiles int
	logLevel, listen               string
	allowIDs                       extensionIDs
	uploadRoots                    listFlag
	caps                           listFlag
	allowFileURLs                  bool
	version, help                  bool
	capSet                         protocol.CapSet
}

// capsHelp lists the --caps groups for the help text.
func capsHelp() string {
	parts := make([]string, len(protocol.Caps))
	for i, c := range protocol.Caps {
		parts[i] = c.Name + " (" + c.Adds + ")"
	}
	return strings.Join(parts, "; ")
}

const usageHead = `monkbrowse — let AI apps drive the Chrome tabs you share.

Usage:
  monkbrowse [flags]          serve MCP on stdio (your AI app runs this)
  monkbrowse doctor [flags]   check the ports and the connection, and say what to do
  monkbrowse install [--client NAME]… [--dry-run]
                              add monkbrowse to the MCP clients on this machine
  monkbrowse uninstall [--client NAME]… [--dry-run]
                              remove exactly what install added
  monkbrowse pair             print a one-time code to paste into the extension's options
                              (for a monkbrowse in WSL, a container or over SSH)
  monkbrowse pair --reset     replace this user's pairing secret (every extension pairs again)
  monkbrowse serve --http [ADDR] [flags]
                              serve MCP over HTTP at http://ADDR/mcp (default 127.0.0.1:9220)
                              for AI apps that cannot start monkbrowse themselves
  monkbrowse http-token [--rotate]
                              print (or replace) the token every HTTP request must carry

Flags:
`

func newFlags(name string, cfg *config, out io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(out)
	fs.IntVar(&cfg.port, "port", protocol.DefaultExtensionPort, "`port` on 127.0.0.1 the Chrome extension connects to (set the same port in the extension's options; 0 picks a free one, for tests)")
	fs.StringVar(&cfg.listen, "listen", "127.0.0.1", "`address` the extension port listens on: 127.0.0.1 (loopback) by default. 0.0.0.0 or :: (for a container's published port) listens on every IPv4 and every IPv6 address of this machine, both: monkbrowse opens one dual-stack socket for either. Any address that is not loopback lets other machines reach the port, and monkbrowse warns")
	fs.IntVar(&cfg.controlPort, "control-port", protocol.DefaultControlPort, "`port` on 127.0.0.1 where monkbrowse processes of several AI apps find each other")
	fs.IntVar(&cfg.maxProfiles, "max-profiles", owner.DefaultMaxProfiles, "most Chrome profiles connected at once")
	fs.StringVar(&cfg.logLevel, "log-level", "info", "stderr log `level`: debug, info, warn, error")
	fs.Var(&cfg.allowIDs, "allow-extension-id", "also accept the extension with this `id` on the extension port, besides monkbrowse's own (repeatable or comma-separated; for your own build of the extension)")
	fs.Var(&cfg.uploadRoots, "upload-root", "let browser_upload_file read files inside this `folder` (repeatable; the AI app's MCP roots count too; hidden files never)")
	fs.Var(&cfg.caps, "caps", "optional tool `groups` this AI app gets besides the core tools (comma-separated or repeated; all for every one): "+capsHelp())
	fs.BoolVar(&cfg.allowFileURLs, "allow-file-urls", false, "let the AI open file: URLs (pages on this computer's disk) with browser_navigate and browser_new_tab")
	fs.BoolVar(&cfg.version, "version", false, "print the version and exit")
	fs.BoolVar(&cfg.help, "help", false, "print this help and exit")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), usageHead)
		fs.PrintDefaults()
	}
	return fs
}

// Run is the monkbrowse command: args without the program's name. It
// returns the exit status. stdout carries MCP (or a subcommand's output)
// and nothing else; every log line goes to stderr.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	sub := ""
	if len(args) > 0 && strings.HasPrefix(args[0], "chrome-extension://") {
		// Chrome starts the native-messaging host with the caller's origin.
		return runNativeHost(stdin, stdout, stderr)
	}
	if len(args) > 0 {
		switch args[0] {
		case "doctor":
			sub, args = "doctor", args[1:]
		case "install", "uninstall":
			return runInstall(args[0], args[1:], stdout, stderr)
		case "pair":
			return runPair(args[1:], stdout, stderr)
		case "serve":
			sub, args = "serve", args[1:]
		case "http-token":
			return runHTTPToken(args[1:], stdout, stderr)
		}
	}
	var cfg config
	fs := newFlags("monkbrowse", &cfg, stderr)
	var httpAddr httpFlag
	if sub == "serve" {
		fs.Var(&httpAddr, "http", "serve MCP over streamable HTTP at `[ADDR]` (host:port, default "+httpmcp.DefaultAddr+"), path "+httpmcp.Path+"; every request needs the token monkbrowse http-token prints")
	}
	if err := parseServeFlags(fs, args, &httpAddr); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.SetOutput(stdout)
			fs.Usage()
			return 0
		}
		return 2
	}
	if cfg.help {
		fs.SetOutput(stdout)
		fs.Usage()
		return 0
	}
	if cfg.version {
		fmt.Fprintf(stdout, "monkbrowse %s (protocol %d)\n", protocol.Version, protocol.ProtocolVersion)
		return 0
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "monkbrowse: unexpected argument %q; see monkbrowse --help\n", fs.Arg(0))
		return 2
	}
	caps, err := protocol.ParseCaps(cfg.caps)
	if err != nil {
		fmt.Fprintf(stderr, "monkbrowse: --caps: %v\n", err)
		return 2
	}
	cfg.capSet = caps
	lvl, err := zerolog.ParseLevel(strings.ToLower(cfg.logLevel))
	if err != nil || cfg.logLevel == "" {
		fmt.Fprintf(stderr, "monkbrowse: --log-level %q: use debug, info, warn or error\n", cfg.logLevel)
		return 2
	}
	// Logs go to stderr only: stdout belongs to MCP. Through a queue that
	// never blocks (logwriter): an AI app that stops reading our stderr
	// must not stop the owner answering; at exit the last lines get a
	// second to be read.
	lw := logwriter.New(stderr, 0)
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_ = lw.Close(ctx)
	}()
	log := zerolog.New(lw).Level(lvl).With().Timestamp().Logger()

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()

	listenIP := net.ParseIP(cfg.listen)
	if listenIP == nil {
		fmt.Fprintf(stderr, "monkbrowse: --listen %q: give an IP address, such as 127.0.0.1 (the default) or 0.0.0.0\n", cfg.listen)
		return 2
	}
	if sub == "doctor" {
		return runDoctor(ctx, cfg, stdout)
	}
	if sub == "serve" {
		return serveHTTP(ctx, cfg, httpAddr.addr, &log)
	}
	if !listenIP.IsLoopback() {
		where := "--listen is not a loopback address"
		if listenIP.IsUnspecified() {
			where = "--listen " + cfg.listen + " listens on every IPv4 and every IPv6 address of this machine, both (one dual-stack socket)"
		}
		log.Warn().Str("listen", cfg.listen).Msg("the extension port listens beyond this machine (" + where + "): anyone who can reach it can try to connect. The Host and Origin checks still refuse web pages; keep it behind a firewall, or publish it only to loopback (docker run -p 127.0.0.1:9222:9222)")
	}
	return serve(ctx, cfg, &log, stdin, stdout, stderr)
}
