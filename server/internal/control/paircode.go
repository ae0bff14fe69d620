package control

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
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
