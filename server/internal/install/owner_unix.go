//go:build unix

package install

import (
	"os"
	"syscall"
)

// ownedByMe reports the file's owner and whether it is this process's user.
func ownedByMe(fi os.FileInfo) (int, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return -1, true
	}
	return int(st.Uid), int(st.Uid) == os.Geteuid()
}
