package install

import (
	"fmt"
	"os"
	"path/filepath"
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

// backup copies the file's current bytes next to it.
func backup(e Env, p string, raw []byte) (string, error) {
	b := p + ".monkbrowse-backup-" + e.now().UTC().Format("20060102T150405Z")
	for i := 2; exists(b); i++ {
		b = fmt.Sprintf("%s.monkbrowse-backup-%s-%d", p, e.now().UTC().Format("20060102T150405Z"), i)
	}
	if err := os.WriteFile(b, raw, fileMode(p)); err != nil {
		return "", fmt.Errorf("cannot write the backup %s: %w", b, err)
	}
	return b, nil
}

// writeFileAtomic writes through a temporary file in the same directory and
// renames it over p, so a crash never leaves half a configuration.
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
