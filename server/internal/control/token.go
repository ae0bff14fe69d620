package control

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"

	"github.com/monkbrowse/monkbrowse/protocol"
)

// restrict is restrictToOwner; tests replace it to see when it is called.
var restrict = restrictToOwner

// TokenBytes is the size of the random control token; the file holds it as
// 2*TokenBytes hex characters.
const TokenBytes = 32

// NewToken returns a fresh random token in hex.
func NewToken() (string, error) {
	b := make([]byte, TokenBytes)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("control: generating the control token: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// UnsafeDirError says why the token folder is refused; the token then lives
// in memory only (forwarders cannot join).
type UnsafeDirError struct {
	Dir, Why string
}

func (e *UnsafeDirError) Error() string {
	return fmt.Sprintf("%s %s, so monkbrowse does not keep its control token there: the token stays in memory only and other AI apps cannot share this browser connection. "+
		"Fix it by removing %s (it is recreated as a private folder) and restarting your AI app.", e.Dir, e.Why, e.Dir)
}

// WriteToken makes a fresh token and writes it to the token file under home
// ("" means $HOME; see protocol.TokenPath). The directory is created 0700
// (and tightened to 0700 if it exists); the file is written 0600 and
// atomically: a temporary file in the same directory, synced, then renamed
// over the old one, so a forwarder reading at the same moment sees either
// the old token or the new one, never a torn one.
func WriteToken(home string) (token, path string, err error) {
	path, err = protocol.TokenPath(home)
	if err != nil {
		return "", "", err
	}
	token, err = NewToken()
	if err != nil {
		return "", "", err
	}
	dir := filepath.Dir(path)
	// Refused before anything is created or chmodded: a symlink there (its
	// target would be chmodded and written) or a folder another user owns.
	if err := checkTokenDir(dir); err != nil {
		return "", "", err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", "", fmt.Errorf("control: creating %s: %w", dir, err)
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return "", "", fmt.Errorf("control: restricting %s to its owner: %w", dir, err)
	}
	// Windows: permission bits mean nothing; an owner-only ACL does it.
	if err := restrict(dir, true); err != nil {
		return "", "", err
	}
	f, err := os.CreateTemp(dir, ".control-token-*")
	if err != nil {
		return "", "", fmt.Errorf("control: writing the control token: %w", err)
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			os.Remove(tmp)
		}
	}()
	// CreateTemp already creates the file 0600; Chmod makes it explicit
	// whatever the umask. The owner-only ACL goes on before the token is
	// written (a rename keeps it).
	if err = f.Chmod(0o600); err == nil {
		err = restrict(tmp, false)
	}
	if err == nil {
		if _, err = f.WriteString(token + "\n"); err == nil {
			err = f.Sync()
		}
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", "", fmt.Errorf("control: writing the control token: %w", err)
	}
	if err = os.Rename(tmp, path); err != nil {
		return "", "", fmt.Errorf("control: installing the control token: %w", err)
	}
	// Make the rename itself durable.
	if d, derr := os.Open(dir); derr == nil {
		d.Sync()
		d.Close()
	}
	return token, path, nil
}
