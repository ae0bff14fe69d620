//go:build unix

package files

import (
	"os"
	"syscall"
)

// openNoFollow opens a path whose symlinks were resolved already: a last
// component that became a link since is refused, and a pipe swapped in does
// not block the open.
func openNoFollow(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
}
