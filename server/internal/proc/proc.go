// Package proc is what the long-lived parts of a monkbrowse process (the
// owner, the control server and the daemon) know of the process they run
// in: its version, its OS user and its logger. Each part's Config embeds a
// Self, and the defaults of those fields are written here once (issue 39).
package proc

import (
	"os"

	"github.com/rs/zerolog"

	"github.com/monkbrowse/monkbrowse/protocol"
)

// Self is the process a part runs in. The zero value is this process as
// it is: Defaulted fills every zero field.
type Self struct {
	// Version is what the part announces to the other side (hello_ack,
	// fwd_hello, status). Empty: protocol.Version.
	Version string
	// UID is this process's OS user: connections of another user's
	// programs are refused (DESIGN §8). 0: os.Getuid().
	UID int
	// Logger receives the part's logs. Nil discards them.
	Logger *zerolog.Logger
}

// Defaulted returns s with its zero fields set: protocol.Version,
// os.Getuid() and a logger that discards.
func (s Self) Defaulted() Self {
	if s.Version == "" {
		s.Version = protocol.Version
	}
	if s.UID == 0 {
		s.UID = os.Getuid()
	}
	if s.Logger == nil {
		nop := zerolog.Nop()
		s.Logger = &nop
	}
	return s
}
