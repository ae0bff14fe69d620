package owner

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"go.uber.org/goleak"

	"github.com/monkbrowse/monkbrowse/protocol"
	"github.com/monkbrowse/monkbrowse/server/internal/fakeext"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// watchdog bounds anything that could hang; it is not a timing assertion.
const watchdog = 20 * time.Second

// testPairing is the pairing secret of every test owner (startOwner) and
// fake extension (connect).
const testPairing = "test-pairing-secret-0123456789abcdef0123456789abcdef"

func startOwner(t *testing.T, cfg Config) *Owner {
	t.Helper()
	if cfg.PairingSecret == nil {
		cfg.PairingSecret = func() (string, error) { return testPairing, nil }
	}
	if cfg.Addr == "" {
		cfg.Addr = "127.0.0.1:0"
	}
	if cfg.Logger == nil {
		l := zerolog.New(zerolog.NewTestWriter(t)).Level(zerolog.DebugLevel)
		cfg.Logger = &l
	}
	o, err := Start(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), watchdog)
		defer cancel()
		if err := o.Shutdown(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
	})
	return o
}

func wsURL(o *Owner) string { return "ws://" + o.Addr().String() + "/" }

func connect(t *testing.T, o *Owner, opts fakeext.Options) *fakeext.Ext {
	t.Helper()
	opts.URL = wsURL(o)
	ctx, cancel := context.WithTimeout(context.Background(), watchdog)
	defer cancel()
	e, err := fakeext.Connect(ctx, opts)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { _ = e.Close() })
	// The ack is written before the connection is activated: wait until
	// the registry shows it, so that calls find the profile.
	waitFor(t, o, "profile "+e.ProfileID()+" connected", func() bool {
		for _, p := range o.Profiles() {
			if p.ID == e.ProfileID() && p.Connected {
				return true
			}
		}
		return false
	})
	return e
}

// waitFor waits for cond, re-checking at every registry change.
func waitFor(t *testing.T, o *Owner, what string, cond func() bool) {
	t.Helper()
	deadline := time.NewTimer(watchdog)
	defer deadline.Stop()
	for {
		ch := o.Changed()
		if cond() {
			return
		}
		select {
		case <-ch:
		case <-deadline.C:
			t.Fatalf("watchdog: still waiting for %s", what)
		}
	}
}

func call(t *testing.T, c protocol.Caller, name string, args any) protocol.CallToolResult {
	t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), watchdog)
	defer cancel()
	res, err := c.CallTool(ctx, protocol.CallTool{Name: name, Args: raw})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res
}

func text(r protocol.CallToolResult) string {
	var b strings.Builder
	for _, c := range r.Content {
		b.WriteString(c.Text)
	}
	return b.String()
}

func mustOK(t *testing.T, r protocol.CallToolResult) string {
	t.Helper()
	if r.IsError {
		t.Fatalf("tool error: %s", text(r))
	}
	return text(r)
}

func mustErr(t *testing.T, r protocol.CallToolResult, parts ...string) string {
	t.Helper()
	if !r.IsError {
		t.Fatalf("want a tool error, got: %s", text(r))
	}
	s := text(r)
	for _, p := range parts {
		if !strings.Contains(s, p) {
			t.Errorf("error %q lacks %q", s, p)
		}
	}
	return s
}
