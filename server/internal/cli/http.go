package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os/signal"
	"sync/atomic"
	"syscall"

	"github.com/rs/zerolog"

	"github.com/monkbrowse/monkbrowse/protocol"
	"github.com/monkbrowse/monkbrowse/server/internal/control"
	"github.com/monkbrowse/monkbrowse/server/internal/httpmcp"
	"github.com/monkbrowse/monkbrowse/server/internal/mcpserver"
)

// serveHTTP is `monkbrowse serve --http [ADDR]`: the MCP endpoint over
// streamable HTTP (issue 45), in a process that is an owner or a forwarder
// like any other (the same daemon as stdio). It serves until SIGINT or
// SIGTERM, then hands over as an owner does when its AI app leaves.
func serveHTTP(ctx context.Context, cfg config, addr string, log *zerolog.Logger) int {
	if addr == "" {
		log.Error().Msg("monkbrowse serve needs --http [ADDR]: it serves MCP over HTTP (an AI app that starts monkbrowse itself uses it over stdio, with no subcommand)")
		return 2
	}
	signal.Ignore(syscall.SIGPIPE)
	// The token exists before anything listens: no request is ever served
	// without one.
	_, tokenPath, err := control.EnsureHTTPToken("")
	if err != nil {
		log.Error().Err(err).Msg("monkbrowse serve --http: no HTTP token")
		return 1
	}
	ln, err := httpmcp.Listen(addr)
	if err != nil {
		log.Error().Err(err).Msg("monkbrowse serve --http")
		return 1
	}
	if ta, ok := ln.Addr().(*net.TCPAddr); ok && !ta.IP.IsLoopback() {
		log.Warn().Str("http", addr).Msg("the HTTP endpoint listens beyond this machine: its traffic, the token included, is NOT encrypted. " +
			"Reach it over a trusted network only (WSL, a dev container, a VPN), or put a TLS proxy in front and listen on 127.0.0.1")
	}
	// The endpoint exists once the daemon's Caller does: doctor's status
	// may ask before (nothing to report yet).
	var endpoint atomic.Pointer[httpmcp.Endpoint]
	d := newDaemon(cfg, log, func() string { return "monkbrowse serve --http" }, func() *protocol.HTTPStatus {
		if ep := endpoint.Load(); ep != nil {
			st := ep.Status()
			return &st
		}
		return nil
	})
	dctx, stopDaemon := context.WithCancel(context.Background())
	defer stopDaemon()
	ran := make(chan error, 1)
	go func() { ran <- d.Run(dctx) }()

	srv := mcpserver.New(d.Caller(), &mcpserver.Options{Logger: log, UploadRoots: uploadRoots(cfg, log), AllowFileURLs: cfg.allowFileURLs, Caps: cfg.capSet, Policies: d.Policies})
	ep := httpmcp.New(ln, httpmcp.Options{
		Server: srv,
		Token: func() (string, error) {
			tok, _, err := control.ReadHTTPToken("")
			return tok, err
		},
		Logger: log,
	})
	endpoint.Store(ep)
	log.Info().Str("url", ep.URL()).Str("token_file", tokenPath).
		Msg("serving MCP over HTTP: give AI apps this URL with the header Authorization: Bearer <token> (monkbrowse http-token prints it; monkbrowse install --http configures the apps)")
	serveErr := ep.Serve(ctx)
	stopDaemon() // hand over (as owner) and release the ports
	if err := <-ran; err != nil {
		log.Error().Err(err).Msg("shared daemon")
		return 1
	}
	if serveErr != nil {
		log.Error().Err(serveErr).Msg("MCP over HTTP stopped")
		return 1
	}
	log.Info().Msg("MCP over HTTP stopped; bye")
	return 0
}

// runHTTPToken is `monkbrowse http-token [--rotate]`: it prints this
// user's HTTP token on stdout, alone (for scripts), creating it on first
// use; --rotate replaces it (a running serve --http refuses the old one at
// its next request).
func runHTTPToken(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("monkbrowse http-token", flag.ContinueOnError)
	fs.SetOutput(stderr)
	rotate := fs.Bool("rotate", false, "replace the token: AI apps configured with the old one must be given the new one")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "monkbrowse http-token: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	get := control.EnsureHTTPToken
	if *rotate {
		get = control.RotateHTTPToken
	}
	tok, path, err := get("")
	if err != nil {
		fmt.Fprintf(stderr, "monkbrowse http-token: %v\n", err)
		return 1
	}
	fmt.Fprintln(stdout, tok)
	if *rotate {
		fmt.Fprintf(stderr, "monkbrowse http-token: replaced the token in %s; the old one is refused from now on. Give AI apps the new one (for those monkbrowse install --http configured: monkbrowse uninstall, then monkbrowse install --http).\n", path)
	} else {
		fmt.Fprintf(stderr, "monkbrowse http-token: the token in %s; send it as the header Authorization: Bearer <token> to monkbrowse serve --http.\n", path)
	}
	return 0
}
