package tools

import (
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

type upload struct {
	name string
	size int64
	data string // base64
}

// readUpload reads the file for browser_upload_file. Only an absolute path
// to a regular file within limit is read; every refusal says why and what to
// do instead.
func readUpload(path string, limit int64) (upload, error) {
	if !filepath.IsAbs(path) {
		return upload{}, fmt.Errorf("browser_upload_file needs an absolute path (starting with / on macOS and Linux, or a drive letter on Windows); %q is relative. Pass the full path of the file.", path)
	}
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return upload{}, fmt.Errorf("There is no file at %s. Check the path (it must exist on the computer running monkbrowse).", path)
	case errors.Is(err, fs.ErrPermission):
		return upload{}, fmt.Errorf("monkbrowse may not read %s (permission denied). Choose a file the user running monkbrowse can read.", path)
	case err != nil:
		return upload{}, fmt.Errorf("monkbrowse could not read %s: %v.", path, err)
	case fi.IsDir():
		return upload{}, fmt.Errorf("%s is a folder; browser_upload_file takes one regular file. Pass the path of a file inside it.", path)
	case !fi.Mode().IsRegular():
		return upload{}, fmt.Errorf("%s is not a regular file (it is a device, pipe or socket); browser_upload_file only reads regular files.", path)
	case fi.Size() > limit:
		return upload{}, fmt.Errorf("%s is %s, more than the upload limit of %s. Choose a smaller file.", path, sizeText(fi.Size()), sizeText(limit))
	}
	f, err := os.Open(path)
	if err != nil {
		return upload{}, fmt.Errorf("monkbrowse could not open %s: %v.", path, err)
	}
	defer f.Close()
	// Read at most limit+1 bytes: the file may have grown since Stat.
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return upload{}, fmt.Errorf("monkbrowse could not read %s: %v.", path, err)
	}
	if int64(len(data)) > limit {
		return upload{}, fmt.Errorf("%s is more than the upload limit of %s. Choose a smaller file.", path, sizeText(limit))
	}
	return upload{name: filepath.Base(path), size: int64(len(data)), data: base64.StdEncoding.EncodeToString(data)}, nil
}

func sizeText(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}
