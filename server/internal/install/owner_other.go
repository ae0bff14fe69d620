//go:build !unix

package install

import "os"

// ownedByMe: Windows files have an owner SID, not a uid; a file in the
// person's profile that they can write is taken as theirs.
func ownedByMe(os.FileInfo) (int, bool) { return -1, true }
