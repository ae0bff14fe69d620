package control

import (
	"errors"
	"io/fs"
	"path/filepath"

	"github.com/monkbrowse/monkbrowse/protocol"
)

// The pairing secret (issue 24, DESIGN §5.2): one per OS user in
// ~/.monkbrowse/pairing-secret, under the control token's rules
// (writePrivateFile). Unlike the control token it outlives the process:
// it is created once and replaced only by ResetPairingSecret.

// EnsurePairingSecret returns this user's pairing secret under home ("" is
// $HOME), creating it when there is none. Two processes starting at once
// agree: the file is put in place only if absent (writePrivateFile's
// exclusive link), and the one that loses reads the winner's. A refused
// folder is an *UnsafeDirError; the caller then has no secret on disk.
func EnsurePairingSecret(home string) (secret, path string, err error) {
	path, err = protocol.PairingPath(home)
	if err != nil {
		return "", "", err
	}
	if err := checkTokenDir(filepath.Dir(path)); err != nil {
		return "", "", pairingDir(err)
	}
	if s, err := protocol.ReadPairingSecret(path); err == nil {
		return s, path, nil
	} else if !errors.Is(err, protocol.ErrNoPairingSecret) {
		return "", "", err
	}
	fresh, err := NewToken()
	if err != nil {
		return "", "", err
	}
	switch err := writePrivateFile(path, fresh, true); {
	case err == nil:
		return fresh, path, nil
	case errors.Is(err, fs.ErrExist):
		// Another process created it first (or an empty file is there:
		// ReadPairingSecret says so).
		s, rerr := protocol.ReadPairingSecret(path)
		return s, path, rerr
	default:
		return "", "", pairingDir(err)
	}
}

// ResetPairingSecret replaces the pairing secret with a fresh one (`monkbrowse
// pair --reset`): every extension must pair again. The old file is replaced
// by a rename, never rewritten in place.
func ResetPairingSecret(home string) (secret, path string, err error) {
	path, err = protocol.PairingPath(home)
	if err != nil {
		return "", "", err
	}
	secret, err = NewToken()
	if err != nil {
		return "", "", err
	}
	if err := writePrivateFile(path, secret, false); err != nil {
		return "", "", pairingDir(err)
	}
	return secret, path, nil
}

// pairingDir rewords an *UnsafeDirError for the pairing secret.
func pairingDir(err error) error {
	var ue *UnsafeDirError
	if errors.As(err, &ue) {
		return &UnsafeDirError{Dir: ue.Dir, Why: ue.Why, Pairing: true}
	}
	return err
}
