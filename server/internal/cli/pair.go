package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/monkbrowse/monkbrowse/protocol"
	"github.com/monkbrowse/monkbrowse/server/internal/control"
)

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
