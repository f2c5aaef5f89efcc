package desktop

import "errors"

// Sentinel errors of package desktop.
var (
	// ErrBadPath is a binary or home path that cannot go into a launcher
	// line (a desktop entry's Exec, a registry command) without changing
	// what it runs.
	ErrBadPath = errors.New("path not usable in a desktop entry")
	// ErrNotOurs is a file or bundle in the place of ours that another
	// program put there: it is left alone.
	ErrNotOurs = errors.New("belongs to another program; left alone")
	// ErrUnsupported is an integration this system does not have.
	ErrUnsupported = errors.New("desktop integration not available on this system")
)
