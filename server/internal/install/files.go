package install

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

func fileMode(p string) os.FileMode {
	if st, err := os.Stat(p); err == nil {
		return st.Mode().Perm()
	}
	return 0o644
}

// resolveFile returns the file to read and write for p, the path a client
// reads: p itself, or, when p is a symbolic link, the file it points to, so
// that the link stays a link (a dotfiles folder keeps the change). A link
// that leads outside the person's home, to another user's file, to nothing
// or to something other than a file is refused: install edits the person's
// own configuration, not whatever a link reaches.
func resolveFile(home, p string) (string, error) {
	fi, err := os.Lstat(p)
	if errors.Is(err, os.ErrNotExist) {
		return p, nil
	}
	if err != nil {
		return "", err
	}
	if fi.Mode()&os.ModeSymlink == 0 {
		return p, nil
	}
	target, err := filepath.EvalSymlinks(p)
	if err != nil {
		return "", fmt.Errorf("%s is a link that leads nowhere (%v); left unchanged: fix the link or remove it", p, err)
	}
	realHome, err := filepath.EvalSymlinks(home)
	if err != nil {
		realHome = home
	}
	if rel, err := filepath.Rel(realHome, target); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("%s is a link to %s, which is outside your home folder (%s); monkbrowse edits only files in your home, so it is left unchanged: add the entry there by hand, or replace the link with a copy", p, target, home)
	}
	st, err := os.Stat(target)
	if err != nil {
		return "", err
	}
	if !st.Mode().IsRegular() {
		return "", fmt.Errorf("%s is a link to %s, which is not a file; left unchanged", p, target)
	}
	if uid, mine := ownedByMe(st); !mine {
		return "", fmt.Errorf("%s is a link to %s, which belongs to another user (uid %d); left unchanged: add the entry there as that user, or replace the link with a file of your own", p, target, uid)
	}
	return target, nil
}

// backupSuffix names backups: FILE.monkbrowse-backup-YYYYMMDDTHHMMSSZ.
const backupSuffix = ".monkbrowse-backup-"

// backup copies the file's current bytes (the person's own file) next to
// p, the path the client reads: a new file, 0600, created exclusively, so
// it never follows or replaces a link.
func backup(e Env, p string, raw []byte) (string, error) {
	stamp := e.now().UTC().Format("20060102T150405Z")
	b := p + backupSuffix + stamp
	for i := 2; ; i++ {
		f, err := os.OpenFile(b, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, os.ErrExist) {
			b = fmt.Sprintf("%s%s%s-%d", p, backupSuffix, stamp, i)
			continue
		}
		if err != nil {
			return "", fmt.Errorf("cannot write the backup %s: %w", b, err)
		}
		_, werr := f.Write(raw)
		if cerr := f.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			os.Remove(b)
			return "", fmt.Errorf("cannot write the backup %s: %w", b, werr)
		}
		return b, nil
	}
}

// writeFileAtomic writes through a temporary file in the same directory and
// renames it over p, so a crash never leaves half a configuration. p must
// be the file itself (resolveFile), never a link: the rename would replace
// the link.
func writeFileAtomic(p string, data []byte, mode os.FileMode) error {
	f, err := os.CreateTemp(filepath.Dir(p), "."+filepath.Base(p)+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, werr := f.Write(data)
	cerr := f.Close()
	if werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Chmod(tmp, mode)
	}
	if werr == nil {
		werr = os.Rename(tmp, p)
	}
	if werr != nil {
		os.Remove(tmp)
	}
	return werr
}
