// Command monkbrowse is the monkbrowse MCP server: AI apps start it over
// stdio; it listens on 127.0.0.1 for the monkbrowse Chrome extension and
// serves the AI's tool calls on the tabs the person shared.
//
// stdout carries MCP and nothing else; every log line goes to stderr.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/rs/zerolog"

	"github.com/monkbrowse/monkbrowse/protocol"
	"github.com/monkbrowse/monkbrowse/server/internal/control"
	"github.com/monkbrowse/monkbrowse/server/internal/daemon"
	"github.com/monkbrowse/monkbrowse/server/internal/doctor"
	"github.com/monkbrowse/monkbrowse/server/internal/httpmcp"
	"github.com/monkbrowse/monkbrowse/server/internal/install"
	"github.com/monkbrowse/monkbrowse/server/internal/logwriter"
	"github.com/monkbrowse/monkbrowse/server/internal/mcpserver"
	"github.com/monkbrowse/monkbrowse/server/internal/owner"
	"github.com/monkbrowse/monkbrowse/tools"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

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

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
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
		return doctor.Run(ctx, doctor.Options{
			Port: cfg.port, ControlPort: cfg.controlPort, Out: stdout,
			QueryOwner: queryOwner,
			Pairing: func() (string, error) {
				_, path, err := control.EnsurePairingSecret("")
				return path, err
			},
			NativeHost: func() (ok, problems []string) {
				env, err := install.EnvFromOS(runtime.GOOS)
				if err != nil {
					return nil, []string{err.Error()}
				}
				self, _ := os.Executable()
				return install.CheckHost(install.DefaultHostTargets(env, install.OSRegistry()), self)
			},
			HTTPURL:   "http://" + httpmcp.DefaultAddr + httpmcp.Path,
			HTTPToken: httpTokenState,
		})
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

// runInstall is `monkbrowse install` and `monkbrowse uninstall`.
func runInstall(sub string, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("monkbrowse "+sub, flag.ContinueOnError)
	fs.SetOutput(stderr)
	var clients listFlag
	fs.Var(&clients, "client", "`name` of a client ("+strings.Join(install.ClientNames(), ", ")+"); repeatable; default: every client found on this machine")
	dry := fs.Bool("dry-run", false, "print what would change and change nothing")
	command := ""
	if sub == "install" {
		fs.StringVar(&command, "command", "", "absolute `path` of monkbrowse to configure (default: this program)")
	}
	var allowIDs extensionIDs
	if sub == "install" {
		fs.Var(&allowIDs, "allow-extension-id", "also let the extension with this `id` fetch the pairing secret (your own build); repeatable")
	}
	var httpURL urlFlag
	if sub == "install" {
		fs.Var(&httpURL, "http", "configure the clients that take a URL with monkbrowse serve --http's `[URL]` (default "+"http://"+httpmcp.DefaultAddr+httpmcp.Path+") and this user's HTTP token, instead of the command")
	}
	browserDir := fs.String("browser-data-dir", "", "register the pairing host only in this browser user-data `folder` (its NativeMessagingHosts), not in every browser found")
	hostOnly := fs.Bool("native-host-only", false, "change only the pairing host, no AI app's configuration")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: monkbrowse %s [--client NAME]… [--dry-run]\n\n", sub)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "monkbrowse %s: unexpected argument %q\n", sub, fs.Arg(0))
		return 2
	}
	env, err := install.EnvFromOS(runtime.GOOS)
	if err != nil {
		fmt.Fprintf(stderr, "monkbrowse %s: %v\n", sub, err)
		return 1
	}
	o := install.Options{Env: env, Clients: clients, DryRun: *dry, Out: stdout}
	hosts := install.DefaultHostTargets(env, install.OSRegistry())
	if *browserDir != "" {
		abs, aerr := filepath.Abs(*browserDir)
		if aerr != nil {
			fmt.Fprintf(stderr, "monkbrowse %s: --browser-data-dir: %v\n", sub, aerr)
			return 2
		}
		hosts = install.HostTargets{Dirs: []string{filepath.Join(abs, "NativeMessagingHosts")}}
	}
	if sub == "uninstall" {
		if herr := install.UninstallHost(o, hosts, *browserDir != ""); herr != nil {
			fmt.Fprintf(stderr, "monkbrowse uninstall: pairing host: %v\n", herr)
			err = install.ErrSomeFailed
		}
		if !*hostOnly {
			err = errors.Join(err, install.Uninstall(o))
		}
	} else {
		if command == "" {
			if command, err = os.Executable(); err != nil {
				fmt.Fprintf(stderr, "monkbrowse install: cannot find this program's path (%v): pass --command /absolute/path/to/monkbrowse\n", err)
				return 1
			}
			if strings.HasPrefix(command, os.TempDir()) {
				fmt.Fprintf(stderr, "monkbrowse install: warning: this program runs from a temporary directory (%s); clients will fail once it is gone. Build it (scripts/build) or download a release and run that copy.\n", command)
			}
		}
		if abs, aerr := filepath.Abs(command); aerr == nil {
			command = abs
		}
		o.Command = command
		ids := append(owner.PinnedExtensionIDs(), allowIDs...)
		if herr := install.InstallHost(o, hosts, install.NewHostManifest(command, ids)); herr != nil {
			fmt.Fprintf(stderr, "monkbrowse install: pairing host: %v\n", herr)
			err = install.ErrSomeFailed
		}
		if httpURL != "" {
			tok, _, terr := control.EnsureHTTPToken("")
			if terr != nil {
				fmt.Fprintf(stderr, "monkbrowse install --http: %v\n", terr)
				return 1
			}
			o.HTTPURL, o.HTTPToken = string(httpURL), tok
		}
		if !*hostOnly {
			err = errors.Join(err, install.Install(o))
		}
		if err == nil && !*dry && !*hostOnly {
			if httpURL != "" {
				fmt.Fprintln(stdout, "Run monkbrowse serve --http on this computer (these apps reach it by its URL), restart the AI app(s), then run monkbrowse doctor.")
			} else {
				fmt.Fprintln(stdout, "Restart the AI app(s) to pick the change up, then run monkbrowse doctor.")
			}
		}
	}
	if err != nil {
		if !errors.Is(err, install.ErrSomeFailed) {
			fmt.Fprintf(stderr, "monkbrowse %s: %v\n", sub, err)
		}
		return 1
	}
	return 0
}

// runNativeHost is the pairing host Chrome starts for the extension
// (install.NativeHostName): it answers one request with this user's
// pairing secret, creating it on first use like the server does.
func runNativeHost(stdin io.Reader, stdout, stderr io.Writer) int {
	err := install.ServeNativeHost(stdin, stdout, func() install.NativeHostReply {
		secret, _, err := control.EnsurePairingSecret("")
		if err != nil {
			return install.NativeHostReply{Version: protocol.Version, Error: fmt.Sprintf("monkbrowse has no pairing secret: %v", err)}
		}
		return install.NativeHostReply{Version: protocol.Version, Secret: secret}
	})
	if err != nil {
		fmt.Fprintf(stderr, "monkbrowse pairing host: %v\n", err)
		return 1
	}
	return 0
}

// runPair is `monkbrowse pair`: it prints a one-time pairing code (on
// stdout, alone, for scripts; the instructions on stderr). With --reset it
// replaces this user's pairing secret (DESIGN §5.2); every extension must
// pair again, and the running owner closes the connections proven with the
// old one at their next ping.
func runPair(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("monkbrowse pair", flag.ContinueOnError)
	fs.SetOutput(stderr)
	reset := fs.Bool("reset", false, "replace the pairing secret: every extension paired with this user's monkbrowse must pair again")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "monkbrowse pair: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	if *reset {
		_, path, err := control.ResetPairingSecret("")
		if err != nil {
			fmt.Fprintf(stderr, "monkbrowse pair --reset: %v\n", err)
			return 1
		}
		fmt.Fprintf(stdout, "Replaced the pairing secret in %s. Every extension paired with this monkbrowse must pair again: "+
			"on this computer it does so by itself (through the pairing helper monkbrowse install registered); "+
			"elsewhere, run monkbrowse pair and paste the code into the extension's options. "+
			"The running monkbrowse disconnects the extensions paired with the old secret within %s.\n", path, protocol.PingInterval)
		return 0
	}
	// The code redeems to this user's secret: create it first, so that a
	// folder monkbrowse refuses is said now, not at the paste.
	if _, _, err := control.EnsurePairingSecret(""); err != nil {
		fmt.Fprintf(stderr, "monkbrowse pair: %v\n", err)
		return 1
	}
	code, expires, err := control.NewPairingCode("", time.Now())
	if err != nil {
		fmt.Fprintf(stderr, "monkbrowse pair: %v\n", err)
		return 1
	}
	fmt.Fprintln(stdout, code)
	fmt.Fprintf(stderr, "monkbrowse pair: that is a one-time pairing code; it works once, until %s (%d minutes).\n"+
		"Paste it into the monkbrowse extension's options (right-click its icon → Options → Pair with a code), "+
		"in the Chrome whose extension connects to this monkbrowse's port. The code is never sent anywhere: "+
		"the extension and this monkbrowse prove to each other that they know it.\n",
		expires.Local().Format("15:04:05"), int(protocol.PairCodeTTL/time.Minute))
	return 0
}

// serve runs the shared daemon and the MCP endpoint until stdin ends or a
// signal. The daemon elects this process owner (it binds the extension
// port) or forwarder (it sends tool calls to the owner); the MCP endpoint
// keeps the same Caller across role changes. On stdin EOF, SIGTERM or
// SIGINT an owner hands over before the process exits: the signals stay
// caught until serve returns, so a host's SIGTERM right after closing stdin
// cannot cut the hand-over short.
func serve(ctx context.Context, cfg config, log *zerolog.Logger, stdin io.Reader, stdout, stderr io.Writer) int {
	// Hosts close our stdin and may close the stderr (or stdout) pipe with
	// it. Go kills a process that writes to a closed pipe on fd 1 or 2 with
	// SIGPIPE unless the signal is ignored; that would cut the hand-over
	// short at its first log line. Ignored, the write just fails.
	signal.Ignore(syscall.SIGPIPE)
	var mcpSrv atomic.Pointer[mcpserver.Server]
	d := newDaemon(cfg, log, func() string {
		if s := mcpSrv.Load(); s != nil {
			return s.ClientName()
		}
		return ""
	})
	dctx, stopDaemon := context.WithCancel(context.Background())
	defer stopDaemon()
	ran := make(chan error, 1)
	go func() { ran <- d.Run(dctx) }()

	srv := mcpserver.New(d.Caller(), &mcpserver.Options{Logger: log, UploadRoots: uploadRoots(cfg, log), AllowFileURLs: cfg.allowFileURLs, Caps: cfg.capSet})
	mcpSrv.Store(srv)
	serveErr := srv.ServeStdio(ctx, stdin, stdout)
	stopDaemon() // hand over (as owner) and release the ports
	if err := <-ran; err != nil {
		log.Error().Err(err).Msg("shared daemon")
		return 1
	}
	if serveErr != nil {
		log.Error().Err(serveErr).Msg("MCP stdio stopped")
		return 1
	}
	log.Info().Msg("MCP session ended; bye")
	return 0
}

// uploadRoots are the --upload-root folders, absolute. The upload roots
// and --allow-file-urls are this AI app's own: they are applied in this
// process whatever its role (DESIGN §8).
func uploadRoots(cfg config, log *zerolog.Logger) []string {
	roots := make([]string, 0, len(cfg.uploadRoots))
	for _, r := range cfg.uploadRoots {
		abs, err := filepath.Abs(r)
		if err != nil {
			log.Warn().Err(err).Str("root", r).Msg("--upload-root ignored")
			continue
		}
		if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
			log.Warn().Str("root", abs).Msg("--upload-root is not an existing folder; it allows nothing until it exists")
		}
		roots = append(roots, abs)
	}
	return roots
}

// newDaemon is this process's shared daemon, whatever its MCP transport
// (stdio or HTTP): it elects the process owner (it binds the extension
// port) or forwarder (it sends tool calls to the owner). app names the AI
// app this process serves, for the other processes.
func newDaemon(cfg config, log *zerolog.Logger, app func() string) *daemon.Daemon {
	return daemon.New(daemon.Config{
		App:         app,
		ControlPort: cfg.controlPort,
		Logger:      log,
		StartOwner: func(ctx context.Context) (daemon.Owner, error) {
			// The pairing secret exists from the first run on, so a
			// same-user client (the native host, fakeext, the bench) can
			// read it (DESIGN §5.2). Read at each hello, under the
			// folder's checks, so that pair --reset takes effect for the
			// next connection.
			pairingSecret := func() (string, error) {
				secret, _, err := control.EnsurePairingSecret("")
				return secret, err
			}
			var codes owner.PairingCodes = control.PairingCodes{}
			var refused *control.UnsafeDirError
			if _, path, err := control.EnsurePairingSecret(""); errors.As(err, &refused) {
				// A refused ~/.monkbrowse: nothing can read a secret
				// there, so this owner keeps one in memory and prints a
				// one-time code for the extension's options.
				mem, merr := control.NewMemoryPairing()
				if merr != nil {
					return daemon.Owner{}, merr
				}
				code, expires := mem.NewCode(time.Now())
				log.Warn().Err(err).Str("code", code).Str("until", expires.Local().Format("15:04:05")).
					Msg("pairing: paste this one-time code into the monkbrowse extension's options (Pair with a code) to pair it with this monkbrowse; it works once, for 10 minutes, and the pairing lasts until this monkbrowse exits. Restart your AI app for a new code, or fix the folder")
				pairingSecret = func() (string, error) { return mem.Secret(), nil }
				codes = mem
			} else if err != nil {
				log.Warn().Err(err).Msg("pairing secret")
			} else {
				log.Debug().Str("path", path).Msg("pairing secret")
			}
			// --port 0: a free port chosen by the system (tests).
			addr := net.JoinHostPort(cfg.listen, strconv.Itoa(cfg.port))
			o, err := owner.Start(ctx, owner.Config{
				Port: cfg.port, Addr: addr, ControlPort: cfg.controlPort, MaxProfiles: cfg.maxProfiles,
				AllowedExtensionIDs: cfg.allowIDs, Logger: log,
				PairingSecret: pairingSecret,
				PairingCodes:  codes,
				Tools:         &tools.Options{AskSlice: askSlice(log)},
			})
			if err != nil {
				return daemon.Owner{}, err
			}
			return daemon.Owner{
				Caller: o.Caller(), Shutdown: o.Shutdown, Port: o.Port(),
				Profiles: func() []protocol.ProfileStatus { return profileStatus(o.Profiles()) },
				AwaitExtension: func(ctx context.Context) {
					for {
						ch := o.Changed()
						if o.EverConnected() {
							return
						}
						select {
						case <-ch:
						case <-ctx.Done():
							return
						}
					}
				},
			}, nil
		},
	})
}

// profileStatus converts the owner's profiles for the control port's status.
func profileStatus(ps []tools.ProfileInfo) []protocol.ProfileStatus {
	out := make([]protocol.ProfileStatus, 0, len(ps))
	for _, p := range ps {
		tabs := p.Tabs
		if tabs == nil {
			tabs = []protocol.TabInfo{}
		}
		out = append(out, protocol.ProfileStatus{ProfileID: p.ID, Label: p.Label, Slug: p.Slug, Connected: p.Connected, Tabs: tabs, Queued: p.Queued})
	}
	return out
}

// queryOwner asks the owner on the control port for doctor's report.
func queryOwner(ctx context.Context, controlPort int) (*doctor.OwnerStatus, error) {
	st, err := daemon.QueryStatus(ctx, controlPort, "")
	if err != nil {
		return nil, err
	}
	out := &doctor.OwnerStatus{PID: st.OwnerPID, Version: st.Version, Port: st.ExtensionPort, Forwarders: st.Forwarders}
	for _, p := range st.Profiles {
		out.Profiles = append(out.Profiles, tools.ProfileInfo{ID: p.ProfileID, Label: p.Label, Slug: p.Slug, Connected: p.Connected, Tabs: p.Tabs})
	}
	return out, nil
}

// askSliceEnv shortens browser_ask_user's wait per call (a Go duration,
// at most the default 50 s): for tests, which check the waitId
// continuation without waiting 50 s. Not a setting for people.
const askSliceEnv = "MONKBROWSE_ASK_SLICE"

func askSlice(log *zerolog.Logger) time.Duration {
	v := os.Getenv(askSliceEnv)
	if v == "" {
		return 0
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 || d > tools.DefaultAskSlice {
		log.Warn().Str(askSliceEnv, v).Msg("ignored: not a duration between 0 and 50s")
		return 0
	}
	return d
}
