package protocol

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Token file location, relative to the user's home directory. The owner
// writes a fresh token there each time it wins the election (DESIGN §5.4);
// forwarders read it and present it in fwd_hello to prove they run as the
// same user.
const (
	TokenDirName  = ".monkbrowse"
	TokenFileName = "control-token"
)

// TokenPath returns the control token's path under home, or under the
// current user's home directory ($HOME) when home is empty.
func TokenPath(home string) (string, error) {
	if home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("protocol: finding the home directory for the control token: %w", err)
		}
		home = h
	}
	return filepath.Join(home, TokenDirName, TokenFileName), nil
}

// ErrNoToken is wrapped by ReadToken when the token file does not exist or
// is empty: no monkbrowse owner has run as this user (with this HOME).
var ErrNoToken = errors.New("protocol: no control token")

// ReadToken reads the control token at path, without surrounding
// whitespace.
func ReadToken(path string) (string, error) {
	return readSecretFile(path, ErrNoToken, "the control token", "")
}

// The pairing secret (issue 24): one per OS user, created on the first run
// next to the control token and kept until `monkbrowse pair --reset`. Both
// ends of the extension port prove they hold it; any program of the same
// user (the extension's native-messaging host, the project's fake extension,
// the bench) reads it from this file.
const PairingFileName = "pairing-secret"

// PairingPath returns the pairing secret's path under home, or under the
// current user's home directory when home is empty.
func PairingPath(home string) (string, error) {
	tok, err := TokenPath(home)
	if err != nil {
		return "", err
	}
	return filepath.Join(filepath.Dir(tok), PairingFileName), nil
}

// ErrNoPairingSecret is wrapped by ReadPairingSecret when the file does not
// exist or is empty: no monkbrowse has run as this user (with this HOME).
var ErrNoPairingSecret = errors.New("protocol: no pairing secret")

// ReadPairingSecret reads the pairing secret at path, without surrounding
// whitespace.
func ReadPairingSecret(path string) (string, error) {
	return readSecretFile(path, ErrNoPairingSecret, "the pairing secret", " (run monkbrowse once, or monkbrowse pair, to create it)")
}

// readSecretFile reads a one-line secret file without surrounding
// whitespace; a missing or empty file is absent (wrapped), with hint after
// "does not exist".
func readSecretFile(path string, absent error, what, hint string) (string, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("%w: %s does not exist%s", absent, path, hint)
	}
	if err != nil {
		return "", fmt.Errorf("protocol: reading %s: %w", what, err)
	}
	v := strings.TrimSpace(string(data))
	if v == "" {
		return "", fmt.Errorf("%w: %s is empty", absent, path)
	}
	return v, nil
}
