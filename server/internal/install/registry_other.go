//go:build !windows

package install

// OSRegistry is nil off Windows: browsers there read host manifests from
// folders (HostDirs).
func OSRegistry() Registry { return nil }
