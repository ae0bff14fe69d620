package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/monkbrowse/monkbrowse/protocol"
	"github.com/monkbrowse/monkbrowse/server/internal/control"
	"github.com/monkbrowse/monkbrowse/server/internal/httpmcp"
	"github.com/monkbrowse/monkbrowse/server/internal/install"
	"github.com/monkbrowse/monkbrowse/server/internal/owner"
)

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
