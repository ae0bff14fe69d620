package cli

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/rs/zerolog"

	"github.com/monkbrowse/monkbrowse/protocol"
	"github.com/monkbrowse/monkbrowse/server/internal/control"
	"github.com/monkbrowse/monkbrowse/server/internal/daemon"
	"github.com/monkbrowse/monkbrowse/server/internal/mcpserver"
	"github.com/monkbrowse/monkbrowse/server/internal/owner"
	"github.com/monkbrowse/monkbrowse/server/internal/proc"
	"github.com/monkbrowse/monkbrowse/tools"
)

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
	}, nil)
	dctx, stopDaemon := context.WithCancel(context.Background())
	defer stopDaemon()
	ran := make(chan error, 1)
	go func() { ran <- d.Run(dctx) }()

	srv := mcpserver.New(d.Caller(), &mcpserver.Options{Logger: log, UploadRoots: uploadRoots(cfg, log), AllowFileURLs: cfg.allowFileURLs, Caps: cfg.capSet, Policies: d.Policies})
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
// app this process serves, for the other processes; httpStatus, if not
// nil, reports its MCP endpoint over HTTP for doctor.
func newDaemon(cfg config, log *zerolog.Logger, app func() string, httpStatus func() *protocol.HTTPStatus) *daemon.Daemon {
	return daemon.New(daemon.Config{
		App:         app,
		HTTP:        httpStatus,
		ControlPort: cfg.controlPort,
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
				AllowedExtensionIDs: cfg.allowIDs, Self: proc.Self{Logger: log},
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
		Self: proc.Self{Logger: log},
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
		out = append(out, protocol.ProfileStatus{ProfileID: p.ID, Label: p.Label, Slug: p.Slug, Connected: p.Connected, Tabs: tabs, Queued: p.Queued, Policy: p.Policy})
	}
	return out
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
