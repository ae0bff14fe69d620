package proc

import (
	"os"
	"testing"

	"github.com/rs/zerolog"

	"github.com/monkbrowse/monkbrowse/protocol"
)

// TestDefaulted: zero fields become this process's; set ones are kept.
func TestDefaulted(t *testing.T) {
	d := Self{}.Defaulted()
	if d.Version != protocol.Version || d.UID != os.Getuid() || d.Logger == nil {
		t.Fatalf("defaults %+v", d)
	}
	l := zerolog.Nop()
	s := Self{Version: "9.9.9", UID: 4242, Logger: &l}.Defaulted()
	if s.Version != "9.9.9" || s.UID != 4242 || s.Logger != &l {
		t.Fatalf("set fields changed: %+v", s)
	}
}
