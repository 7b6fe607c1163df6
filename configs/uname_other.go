//go:build !unix

package configs

// unameVars returns the host's platform.uname() fields as far as Go knows them without uname(2).
func unameVars() map[string]any { return fallbackUname() }
