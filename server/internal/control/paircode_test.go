package control

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/monkbrowse/monkbrowse/protocol"
)

func codeID(t *testing.T, code string) string {
	t.Helper()
	c, err := protocol.NormalizePairCode(code)
	if err != nil {
		t.Fatal(err)
	}
	return protocol.PairCodeID(c)
}

// TestPairingCodeLifecycle: a fresh code's key is found by its id; the
// file holds neither the code nor the secret; the code redeems once (the
// second time, and at lookup after, it is "already used"); an unknown id
// is unknown; after PairCodeTTL the code is expired.
func TestPairingCodeLifecycle(t *testing.T) {
	home := t.TempDir()
	now := time.Date(2026, 12, 2, 18, 0, 0, 0, time.UTC)
	code, exp, err := NewPairingCode(home, now)
	if err != nil {
		t.Fatal(err)
	}
	if !exp.Equal(now.Add(protocol.PairCodeTTL)) {
		t.Fatalf("expires %v", exp)
	}
	id := codeID(t, code)
	store := PairingCodes{Home: home, Now: func() time.Time { return now.Add(protocol.PairCodeTTL - time.Second) }}
	key, err := store.Lookup(id)
	canon, _ := protocol.NormalizePairCode(code)
	if err != nil || key != protocol.PairCodeKey(canon) {
		t.Fatalf("Lookup = %q, %v", key, err)
	}
	path := filepath.Join(home, protocol.TokenDirName, pairCodePrefix+id)
	raw, _ := os.ReadFile(path)
	if strings.Contains(string(raw), canon) || strings.Contains(string(raw), code) {
		t.Fatalf("the code's file holds the code: %s", raw)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("code file %v %v", fi, err)
	}
	if _, err := store.Lookup(strings.Repeat("0", protocol.PairCodeIDLen)); !errors.Is(err, protocol.ErrPairCodeUnknown) {
		t.Fatalf("unknown id: %v", err)
	}
	if _, err := store.Lookup("../../etc/passwd"); !errors.Is(err, protocol.ErrPairCodeUnknown) {
		t.Fatalf("path id: %v", err)
	}
	late := PairingCodes{Home: home, Now: func() time.Time { return now.Add(protocol.PairCodeTTL) }}
	if _, err := late.Lookup(id); !errors.Is(err, protocol.ErrPairCodeExpired) {
		t.Fatalf("at expiry: %v", err)
	}
	if err := store.Redeem(id); err != nil {
		t.Fatal(err)
	}
	if err := store.Redeem(id); !errors.Is(err, protocol.ErrPairCodeUsed) {
		t.Fatalf("second redeem: %v", err)
	}
	if _, err := store.Lookup(id); !errors.Is(err, protocol.ErrPairCodeUsed) {
		t.Fatalf("lookup after redeem: %v", err)
	}
	// A day after, pair sweeps the old files away.
	if _, _, err := NewPairingCode(home, now.Add(protocol.PairCodeTTL+pairCodeKeep+time.Second)); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(path + pairCodeUsed); !os.IsNotExist(err) {
		t.Fatalf("the old used code stayed: %v", err)
	}
}

// TestPairingCodeRedeemsOnce: of many concurrent redemptions of one code,
// exactly one succeeds.
func TestPairingCodeRedeemsOnce(t *testing.T) {
	home := t.TempDir()
	code, _, err := NewPairingCode(home, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	id := codeID(t, code)
	store := PairingCodes{Home: home}
	var wg sync.WaitGroup
	var mu sync.Mutex
	won := 0
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if store.Redeem(id) == nil {
				mu.Lock()
				won++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if won != 1 {
		t.Fatalf("%d redemptions succeeded", won)
	}
}

// TestMemoryPairing: the refused-folder pairing keeps its secret and its
// codes in memory with the same rules: once, until expiry, unknown ids
// unknown.
func TestMemoryPairing(t *testing.T) {
	m, err := NewMemoryPairing()
	if err != nil || len(m.Secret()) != 2*TokenBytes {
		t.Fatalf("%v %q", err, m.Secret())
	}
	now := time.Now()
	code, exp := m.NewCode(now)
	id := codeID(t, code)
	canon, _ := protocol.NormalizePairCode(code)
	if key, err := m.Lookup(id); err != nil || key != protocol.PairCodeKey(canon) || !exp.Equal(now.Add(protocol.PairCodeTTL)) {
		t.Fatalf("lookup %q %v", key, err)
	}
	if _, err := m.Lookup(strings.Repeat("0", protocol.PairCodeIDLen)); !errors.Is(err, protocol.ErrPairCodeUnknown) {
		t.Fatal(err)
	}
	m.Now = func() time.Time { return exp }
	if _, err := m.Lookup(id); !errors.Is(err, protocol.ErrPairCodeExpired) {
		t.Fatal(err)
	}
	m.Now = nil
	if err := m.Redeem(id); err != nil {
		t.Fatal(err)
	}
	if err := m.Redeem(id); !errors.Is(err, protocol.ErrPairCodeUsed) {
		t.Fatal(err)
	}
	if _, err := m.Lookup(id); !errors.Is(err, protocol.ErrPairCodeUsed) {
		t.Fatal(err)
	}
}
