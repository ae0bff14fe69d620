package owner

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"

	"github.com/monkbrowse/monkbrowse/server/internal/fakeext"
)

func TestSmokeClickThroughCaller(t *testing.T) {
	o := startOwner(t, Config{})
	e := connect(t, o, fakeext.Options{Secret: testPairing, Label: "Work"})
	if ack := e.Ack(); ack.AssignedLabel != "Work" || ack.AssignedSlug != "work" {
		t.Fatalf("ack %+v", ack)
	}
	out := mustOK(t, call(t, o.Caller(), "browser_click", map[string]any{"element": "Remember me", "ref": "e4"}))
	if !strings.Contains(out, `Clicked e4 in tab 1 of profile "work".`) || !strings.Contains(out, "[checked] [ref=e4]") {
		t.Fatalf("result:\n%s", out)
	}
	if p := e.Page(101); !p.Elements[3].Checked {
		t.Fatal("checkbox not checked in the fake")
	}
}

func TestNoExtensionEverFailsAtOnceWithSetup(t *testing.T) {
	o := startOwner(t, Config{})
	mustErr(t, call(t, o.Caller(), "browser_snapshot", map[string]any{}), "No browser is connected", "install the monkbrowse extension", "options page")
}

func TestPortInUse(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	_, err = Start(context.Background(), Config{Port: port})
	var pe *PortInUseError
	if !errors.As(err, &pe) || pe.Port != port {
		t.Fatalf("want PortInUseError, got %v", err)
	}
	for _, want := range []string{"another program", "--port N", "options page", "remote debugging"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message lacks %q: %s", want, err)
		}
	}
}
