//go:build unix

package control

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// checkTokenDir refuses a token folder that is a symbolic link, not a
// folder, or owned by another user. A folder that does not exist yet is
// fine (it is created 0700).
func checkTokenDir(dir string) error {
	fi, err := os.Lstat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("control: checking %s: %w", dir, err)
	}
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		target, _ := os.Readlink(dir)
		return &UnsafeDirError{Dir: dir, Why: fmt.Sprintf("is a symbolic link (to %s)", target)}
	case !fi.IsDir():
		return &UnsafeDirError{Dir: dir, Why: "is not a folder"}
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
		return &UnsafeDirError{Dir: dir, Why: fmt.Sprintf("belongs to another user (uid %d, not %d)", st.Uid, os.Getuid())}
	}
	return nil
}

// fileUID is the OS user owning fi's file.
func fileUID(fi fs.FileInfo) (int, bool) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return int(st.Uid), true
	}
	return 0, false
}
