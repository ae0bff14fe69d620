//go:build !windows

package control

// restrictToOwner does nothing where permission bits apply: the folder is
// 0700 and the file 0600 (WriteToken sets both).
func restrictToOwner(string, bool) error { return nil }
