package control

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/monkbrowse/monkbrowse/protocol"
)

// The HTTP token (issue 45): one per OS user in ~/.monkbrowse/http-token,
// under the pairing secret's rules (writePrivateFile: a private folder, a
// 0600 file put in place atomically). `monkbrowse serve --http` creates it
// on its first run and asks every request for it as a bearer token;
// `monkbrowse http-token` prints it, `--rotate` replaces it.

// HTTPTokenFileName is the HTTP token's file in the token folder.
const HTTPTokenFileName = "http-token"

// ErrNoHTTPToken is wrapped by ReadHTTPToken when there is none yet.
var ErrNoHTTPToken = errors.New("control: no HTTP token")

// HTTPTokenPath returns the HTTP token's path under home ("" is $HOME).
func HTTPTokenPath(home string) (string, error) {
	tok, err := protocol.TokenPath(home)
	if err != nil {
		return "", err
	}
	return filepath.Join(filepath.Dir(tok), HTTPTokenFileName), nil
}

// ReadHTTPToken reads the HTTP token under home without creating it; the
// folder is checked first, so a token in a folder monkbrowse refuses is
// never used.
func ReadHTTPToken(home string) (token, path string, err error) {
	path, err = HTTPTokenPath(home)
	if err != nil {
		return "", "", err
	}
	if err := checkTokenDir(filepath.Dir(path)); err != nil {
		return "", path, httpTokenDir(err)
	}
	tok, err := protocol.ReadPairingSecret(path)
	if errors.Is(err, protocol.ErrNoPairingSecret) {
		return "", path, fmt.Errorf("%w: %s does not exist or is empty (monkbrowse serve --http or monkbrowse http-token creates it)", ErrNoHTTPToken, path)
	}
	return tok, path, err
}

// EnsureHTTPToken returns this user's HTTP token under home, creating it
// when there is none. Two processes starting at once agree, as for the
// pairing secret: the file is put in place only if absent.
func EnsureHTTPToken(home string) (token, path string, err error) {
	token, path, err = ReadHTTPToken(home)
	if err == nil || !errors.Is(err, ErrNoHTTPToken) {
		return token, path, err
	}
	fresh, err := NewToken()
	if err != nil {
		return "", "", err
	}
	switch err := writePrivateFile(path, fresh, true); {
	case err == nil:
		return fresh, path, nil
	case errors.Is(err, fs.ErrExist):
		return ReadHTTPToken(home)
	default:
		return "", "", httpTokenDir(err)
	}
}

// RotateHTTPToken replaces the HTTP token with a fresh one (`monkbrowse
// http-token --rotate`): the file is replaced by a rename, and a running
// server checks every request against the file, so the old token stops
// working at once.
func RotateHTTPToken(home string) (token, path string, err error) {
	path, err = HTTPTokenPath(home)
	if err != nil {
		return "", "", err
	}
	token, err = NewToken()
	if err != nil {
		return "", "", err
	}
	if err := writePrivateFile(path, token, false); err != nil {
		return "", "", httpTokenDir(err)
	}
	return token, path, nil
}

// httpTokenDir rewords an *UnsafeDirError for the HTTP token.
func httpTokenDir(err error) error {
	var ue *UnsafeDirError
	if errors.As(err, &ue) {
		return fmt.Errorf("%s %s, so monkbrowse does not keep its HTTP token there and does not serve HTTP. "+
			"Fix it by removing %s (it is recreated as a private folder) and run the command again", ue.Dir, ue.Why, ue.Dir)
	}
	return err
}

// HTTPTokenFile is the HTTP token file as `monkbrowse doctor` shows it.
type HTTPTokenFile struct {
	Path string
	// Exists: the file is there (its content is not read).
	Exists bool
	Mode   fs.FileMode // its permission bits
	// UID owns it; UIDKnown is false where the OS does not say (Windows).
	UID      int
	UIDKnown bool
}

// StatHTTPToken reports the HTTP token file under home ("" is $HOME)
// without reading or creating it.
func StatHTTPToken(home string) (HTTPTokenFile, error) {
	path, err := HTTPTokenPath(home)
	if err != nil {
		return HTTPTokenFile{}, err
	}
	f := HTTPTokenFile{Path: path}
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return f, nil
	}
	if err != nil {
		return f, err
	}
	f.Exists, f.Mode = true, fi.Mode().Perm()
	f.UID, f.UIDKnown = fileUID(fi)
	return f, nil
}
