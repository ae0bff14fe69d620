//go:build windows

package control

import (
	"fmt"

	"golang.org/x/sys/windows"
)

// restrictToOwner gives path (the token folder, or the token file before
// anything is written to it) a protected DACL with one entry: full control
// for the current user. Nothing is inherited from the parent folder, so
// other users, and groups that the profile folder lets in, cannot read the
// token (issue 12; Unix permission bits mean nothing here). A folder's
// entry is inherited by what is created in it.
func restrictToOwner(path string, dir bool) error {
	tok := windows.GetCurrentProcessToken()
	user, err := tok.GetTokenUser()
	if err != nil {
		return fmt.Errorf("control: reading the current user: %w", err)
	}
	inherit := uint32(windows.NO_INHERITANCE)
	if dir {
		inherit = windows.SUB_CONTAINERS_AND_OBJECTS_INHERIT
	}
	acl, err := windows.ACLFromEntries([]windows.EXPLICIT_ACCESS{{
		AccessPermissions: windows.GENERIC_ALL,
		AccessMode:        windows.SET_ACCESS,
		Inheritance:       inherit,
		Trustee: windows.TRUSTEE{
			TrusteeForm:  windows.TRUSTEE_IS_SID,
			TrusteeType:  windows.TRUSTEE_IS_USER,
			TrusteeValue: windows.TrusteeValueFromSID(user.User.Sid),
		},
	}}, nil)
	if err != nil {
		return fmt.Errorf("control: building an owner-only ACL: %w", err)
	}
	if err := windows.SetNamedSecurityInfo(path, windows.SE_FILE_OBJECT,
		windows.DACL_SECURITY_INFORMATION|windows.PROTECTED_DACL_SECURITY_INFORMATION, nil, nil, acl, nil); err != nil {
		return fmt.Errorf("control: restricting %s to its owner: %w", path, err)
	}
	return nil
}
