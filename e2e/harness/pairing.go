package harness

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"

	"github.com/monkbrowse/monkbrowse/protocol"
)

// Pairing (issue 24): every monkbrowse this process starts and every
// Chromium it launches share one pairing secret, as the processes of one
// OS user do. StartServer writes it into the server's Home before the
// server starts; Launch gives Chromium a home holding the same secret and
// registers monkbrowse's native-messaging host in the profile (`monkbrowse
// install --native-host-only --browser-data-dir`), so the real extension
// pairs through the real host with no manual step.

var (
	secretOnce sync.Once
	runSecret  string
)

// PairingSecret is this test process's pairing secret.
func PairingSecret() string {
	secretOnce.Do(func() {
		b := make([]byte, 32)
		_, _ = rand.Read(b)
		runSecret = hex.EncodeToString(b)
	})
	return runSecret
}

// SeedPairing writes PairingSecret into home's pairing file (0700 folder,
// 0600 file), unless a secret is there already.
func SeedPairing(home string) error {
	path, err := protocol.PairingPath(home)
	if err != nil {
		return err
	}
	if _, err := protocol.ReadPairingSecret(path); err == nil {
		return nil
	} else if !errors.Is(err, protocol.ErrNoPairingSecret) {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("harness: seeding the pairing secret: %w", err)
	}
	if err := os.WriteFile(path, []byte(PairingSecret()+"\n"), 0o600); err != nil {
		return fmt.Errorf("harness: seeding the pairing secret: %w", err)
	}
	return nil
}

// InstallNativeHost registers bin's pairing host in the browser profile dir
// the way a person's `monkbrowse install` does. The host it registers is a
// two-line script that runs bin with HOME=home: Chromium itself must keep
// the test process's HOME (with a fresh one its extension service worker
// does not start), and the host must read the secret under home.
func InstallNativeHost(ctx context.Context, bin, home, dir string, allowIDs ...string) error {
	host := filepath.Join(home, "monkbrowse-pairing-host")
	script := fmt.Sprintf("#!/bin/sh\nHOME=%s exec %s \"$@\"\n", shellQuote(home), shellQuote(bin))
	if err := os.WriteFile(host, []byte(script), 0o700); err != nil {
		return fmt.Errorf("harness: writing the pairing host script: %w", err)
	}
	args := []string{"install", "--native-host-only", "--browser-data-dir", dir, "--command", host}
	for _, id := range allowIDs {
		args = append(args, "--allow-extension-id", id)
	}
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append(os.Environ(), "HOME="+home)
	if out, err := cmd.CombinedOutput(); err != nil {
		if strings.Contains(string(out), "flag provided but not defined: -native-host-only") {
			// A build from before pairing (bench/compare's old side): its
			// extension connects without one, so there is nothing to register.
			return nil
		}
		return fmt.Errorf("harness: monkbrowse install --native-host-only: %v\n%s", err, out)
	}
	return nil
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
