package e2e

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/monkbrowse/monkbrowse/e2e/harness"
)

// extStatus reads the extension's status record through its service worker.
func extStatus(ctx context.Context, b *harness.Browser) (harness.ExtStatus, error) {
	raw, err := harness.EvalServiceWorker[string](ctx, b, `chrome.storage.local.get('status').then(r => JSON.stringify(r.status || {}))`)
	var st harness.ExtStatus
	if err == nil {
		err = json.Unmarshal([]byte(raw), &st)
	}
	return st, err
}

// TestSettingsAppliedBeforeFirstStatus (issue 12, settings at any moment):
// right after Chrome starts, before the extension has reported any status,
// the port is changed twice (first to a port where nothing listens, then to
// the server's); the extension connects to the server's port at once —
// within seconds, not after a slow retry. Several launches, since the
// window is a race.
func TestSettingsAppliedBeforeFirstStatus(t *testing.T) {
	p := need(t)
	ctx := testContext(t, 4*time.Minute)
	port, err := harness.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	ctl, _ := harness.FreePort()
	srv, err := harness.StartServer(ctx, harness.ServerConfig{Bin: p.bin, Port: port, ControlPort: ctl, Home: mkdir(t, p, "home"), Name: "owner-settings", Log: logSink()})
	if err != nil {
		t.Fatal(err)
	}
	trackServer(srv)
	defer srv.Close()
	for i := range 4 {
		b, err := harness.Launch(ctx, harness.BrowserConfig{ExecPath: p.chromium, Monkbrowse: p.bin, Extension: p.ext, Output: logSink(), Name: "chromium-settings"})
		if err != nil {
			t.Fatal(err)
		}
		dead, _ := harness.FreePort()
		if err := b.SetSettings(ctx, dead, "early"); err != nil {
			b.Close()
			t.Fatal(err)
		}
		if err := b.SetSettings(ctx, port, "early"); err != nil {
			b.Close()
			t.Fatal(err)
		}
		set := time.Now()
		var st harness.ExtStatus
		for {
			st, err = extStatus(ctx, b)
			if err == nil && st.State == "connected" && st.Port == port {
				break
			}
			if time.Since(set) > 15*time.Second {
				b.Close()
				t.Fatalf("launch %d: 15 s after the port changed the extension is not connected to it: %+v %v", i, st, err)
			}
			time.Sleep(100 * time.Millisecond)
		}
		t.Logf("launch %d: connected %s after the port changed", i, time.Since(set).Round(time.Millisecond))
		b.Close()
	}
}
