package control

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/monkbrowse/monkbrowse/protocol"
)

// One-time pairing codes (issue 24, protocol/paircode.go, DESIGN §8): each
// code `monkbrowse pair` prints is one private file in ~/.monkbrowse,
// pairing-code-<id>, holding the code's key (never the code) and when it
// expires. The owner redeems a code by renaming its file to <name>.used:
// a rename succeeds once, so a code pairs once even when two extensions
// present it at the same moment, and the used name lets the server say
// "already used" rather than "unknown".
const (
	pairCodePrefix = "pairing-code-"
	pairCodeUsed   = ".used"
	// pairCodeKeep is how long a code's file stays after it expired, so
	// that a late paste is told "expired" rather than "unknown".
	pairCodeKeep = 24 * time.Hour
)

type pairCodeFile struct {
	Key     string    `json:"key"`
	Expires time.Time `json:"expires"`
}

// NewPairingCode creates a one-time pairing code under home ("" is $HOME),
// valid for protocol.PairCodeTTL from now, and returns it in display form.
// Codes that expired long ago are removed on the way.
func NewPairingCode(home string, now time.Time) (code string, expires time.Time, err error) {
	dir, err := pairCodeDir(home)
	if err != nil {
		return "", time.Time{}, err
	}
	if err := checkTokenDir(dir); err != nil {
		return "", time.Time{}, pairingDir(err)
	}
	sweepPairCodes(dir, now)
	code = protocol.NewPairCode()
	canon, err := protocol.NormalizePairCode(code)
	if err != nil {
		return "", time.Time{}, err
	}
	expires = now.Add(protocol.PairCodeTTL)
	data, _ := json.Marshal(pairCodeFile{Key: protocol.PairCodeKey(canon), Expires: expires.UTC()})
	if err := writePrivateFile(filepath.Join(dir, pairCodePrefix+protocol.PairCodeID(canon)), string(data), true); err != nil {
		return "", time.Time{}, pairingDir(err)
	}
	return code, expires, nil
}

// PairingCodes looks codes up and redeems them for the owner.
type PairingCodes struct {
	// Home is the home folder ("" is $HOME).
	Home string
	// Now is the clock (nil: time.Now).
	Now func() time.Time
}

// Lookup returns the key of the usable code id, or why it cannot pair:
// protocol.ErrPairCodeUnknown, ErrPairCodeUsed or ErrPairCodeExpired (or
// another error when the folder cannot be read).
func (p PairingCodes) Lookup(id string) (key string, err error) {
	if !protocol.ValidPairCodeID(id) {
		return "", protocol.ErrPairCodeUnknown
	}
	dir, err := pairCodeDir(p.Home)
	if err != nil {
		return "", err
	}
	if err := checkTokenDir(dir); err != nil {
		return "", pairingDir(err)
	}
	path := filepath.Join(dir, pairCodePrefix+id)
	raw, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		if _, uerr := os.Lstat(path + pairCodeUsed); uerr == nil {
			return "", protocol.ErrPairCodeUsed
		}
		return "", protocol.ErrPairCodeUnknown
	}
	if err != nil {
		return "", fmt.Errorf("reading the pairing code: %w", err)
	}
	var f pairCodeFile
	if err := json.Unmarshal(raw, &f); err != nil || f.Key == "" {
		return "", fmt.Errorf("the pairing code's file %s is damaged: run monkbrowse pair again", path)
	}
	if !p.now().Before(f.Expires) {
		return "", protocol.ErrPairCodeExpired
	}
	return f.Key, nil
}

// Redeem marks the code id used. Only one Redeem of a code succeeds; the
// others get protocol.ErrPairCodeUsed.
func (p PairingCodes) Redeem(id string) error {
	if !protocol.ValidPairCodeID(id) {
		return protocol.ErrPairCodeUnknown
	}
	dir, err := pairCodeDir(p.Home)
	if err != nil {
		return err
	}
	path := filepath.Join(dir, pairCodePrefix+id)
	if err := os.Rename(path, path+pairCodeUsed); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return protocol.ErrPairCodeUsed
		}
		return fmt.Errorf("marking the pairing code used: %w", err)
	}
	return nil
}

func (p PairingCodes) now() time.Time {
	if p.Now != nil {
		return p.Now()
	}
	return time.Now()
}

func pairCodeDir(home string) (string, error) {
	path, err := protocol.PairingPath(home)
	if err != nil {
		return "", err
	}
	return filepath.Dir(path), nil
}

// sweepPairCodes removes code files (used or not) that expired more than
// pairCodeKeep ago. Best effort: a file it cannot read or remove stays.
func sweepPairCodes(dir string, now time.Time) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), pairCodePrefix) || !e.Type().IsRegular() {
			continue
		}
		p := filepath.Join(dir, e.Name())
		raw, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		var f pairCodeFile
		if json.Unmarshal(raw, &f) == nil && now.Sub(f.Expires) > pairCodeKeep {
			_ = os.Remove(p)
		}
	}
}

// MemoryPairing is the owner's pairing when ~/.monkbrowse is refused
// (UnsafeDirError): a secret that lives in memory only, for this owner's
// life, and one-time codes the owner prints in its own log (neither the
// native host nor `monkbrowse pair` can reach a secret that is nowhere on
// disk). It implements the owner's PairingCodes.
type MemoryPairing struct {
	secret string
	mu     sync.Mutex
	codes  map[string]*memCode
	// Now is the clock (nil: time.Now).
	Now func() time.Time
}

type memCode struct {
	key     string
	expires time.Time
	used    bool
}

// NewMemoryPairing makes a fresh in-memory secret.
func NewMemoryPairing() (*MemoryPairing, error) {
	s, err := NewToken()
	if err != nil {
		return nil, err
	}
	return &MemoryPairing{secret: s, codes: map[string]*memCode{}}, nil
}

// Secret is the in-memory pairing secret.
func (m *MemoryPairing) Secret() string { return m.secret }

// NewCode makes a one-time code valid for protocol.PairCodeTTL from now.
func (m *MemoryPairing) NewCode(now time.Time) (code string, expires time.Time) {
	code = protocol.NewPairCode()
	canon, _ := protocol.NormalizePairCode(code)
	expires = now.Add(protocol.PairCodeTTL)
	m.mu.Lock()
	defer m.mu.Unlock()
	m.codes[protocol.PairCodeID(canon)] = &memCode{key: protocol.PairCodeKey(canon), expires: expires}
	return code, expires
}

// Lookup is PairingCodes.Lookup.
func (m *MemoryPairing) Lookup(id string) (string, error) {
	now := time.Now()
	if m.Now != nil {
		now = m.Now()
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	c, ok := m.codes[id]
	switch {
	case !ok:
		return "", protocol.ErrPairCodeUnknown
	case c.used:
		return "", protocol.ErrPairCodeUsed
	case !now.Before(c.expires):
		return "", protocol.ErrPairCodeExpired
	}
	return c.key, nil
}

// Redeem is PairingCodes.Redeem.
func (m *MemoryPairing) Redeem(id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	c, ok := m.codes[id]
	if !ok || c.used {
		return protocol.ErrPairCodeUsed
	}
	c.used = true
	return nil
}
