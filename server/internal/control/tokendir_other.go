//go:build !unix

package control

import (
	"errors"
	"io/fs"
	"os"
)

func checkTokenDir(dir string) error {
	fi, err := os.Lstat(dir)
	if errors.Is(err, fs.ErrNotExist) || err != nil {
		return nil
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		return &UnsafeDirError{Dir: dir, Why: "is a symbolic link"}
	}
	return nil
}

// fileUID is unknown here (Windows: the file's ACL is checked instead).
func fileUID(fs.FileInfo) (int, bool) { return 0, false }
