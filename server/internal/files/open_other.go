//go:build !unix

package files

import "os"

func openNoFollow(path string) (*os.File, error) { return os.Open(path) }
