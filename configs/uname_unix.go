//go:build unix

package configs

import "golang.org/x/sys/unix"

// unameVars returns the host's platform.uname() fields as Python names them.
func unameVars() map[string]any {
	var u unix.Utsname
	if err := unix.Uname(&u); err != nil {
		return fallbackUname()
	}
	return map[string]any{
		"system":    unix.ByteSliceToString(u.Sysname[:]),
		"node":      unix.ByteSliceToString(u.Nodename[:]),
		"release":   unix.ByteSliceToString(u.Release[:]),
		"version":   unix.ByteSliceToString(u.Version[:]),
		"machine":   unix.ByteSliceToString(u.Machine[:]),
		"processor": unix.ByteSliceToString(u.Machine[:]),
	}
}
