package desktop

import "errors"

// Sentinel errors of package desktop.
var (
	// ErrBadPath is a binary or home path that cannot go into a launcher
	// line (a desktop entry's Exec, a registry command) without changing
	// what it runs.
	ErrBadPath = errors.New("path not usable in a desktop entry")
	// ErrUnsupported is an integration this system does not have.
	ErrUnsupported = errors.New("desktop integration not available on this system")
)
