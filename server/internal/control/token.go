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
	// Pairing: the refusal is about the pairing secret, not the control
	// token.
	Pairing bool
}

func (e *UnsafeDirError) Error() string {
	if e.Pairing {
		return fmt.Sprintf("%s %s, so monkbrowse does not keep its pairing secret there: the extension cannot pair through the secret file or the native host, only with the one-time code the running monkbrowse prints in its log (your AI app's MCP server log). "+
			"Fix it by removing %s (it is recreated as a private folder) and restarting your AI app.", e.Dir, e.Why, e.Dir)
	}
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
	if err := writePrivateFile(path, token, false); err != nil {
		return "", "", err
	}
	return token, path, nil
}

// writePrivateFile writes content (plus a newline) to path under the token
// folder's rules: the folder is refused when it is a symbolic link, not a
// folder, or another user's; it is created (or tightened to) 0700 and
// owner-only on Windows; the file is written 0600 and owner-only to a
// temporary file in the same folder, synced, then put in place. With
// exclusive the file is put in place only if none exists (a hard link,
// which fails on an existing name; the error wraps fs.ErrExist), else it
// is renamed over the old one.
func writePrivateFile(path, content string, exclusive bool) (err error) {
	dir := filepath.Dir(path)
	// Refused before anything is created or chmodded: a symlink there (its
	// target would be chmodded and written) or a folder another user owns.
	if err := checkTokenDir(dir); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("control: creating %s: %w", dir, err)
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return fmt.Errorf("control: restricting %s to its owner: %w", dir, err)
	}
	// Windows: permission bits mean nothing; an owner-only ACL does it.
	if err := restrict(dir, true); err != nil {
		return err
	}
	name := filepath.Base(path)
	f, err := os.CreateTemp(dir, "."+name+"-*")
	if err != nil {
		return fmt.Errorf("control: writing %s: %w", path, err)
	}
	tmp := f.Name()
	defer func() {
		if err != nil || exclusive {
			os.Remove(tmp)
		}
	}()
	// CreateTemp already creates the file 0600; Chmod makes it explicit
	// whatever the umask. The owner-only ACL goes on before the content is
	// written (a rename or a link keeps it).
	if err = f.Chmod(0o600); err == nil {
		err = restrict(tmp, false)
	}
	if err == nil {
		if _, err = f.WriteString(content + "\n"); err == nil {
			err = f.Sync()
		}
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("control: writing %s: %w", path, err)
	}
	if exclusive {
		if err = os.Link(tmp, path); err != nil {
			return fmt.Errorf("control: installing %s: %w", path, err)
		}
	} else if err = os.Rename(tmp, path); err != nil {
		return fmt.Errorf("control: installing %s: %w", path, err)
	}
	// Make the rename itself durable.
	if d, derr := os.Open(dir); derr == nil {
		d.Sync()
		d.Close()
	}
	return nil
}
