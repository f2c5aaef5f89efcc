//go:build !linux

package exepages

// Release does nothing where the program runs on another system than
// Linux.
func Release() (Stats, error) { return Stats{}, nil }
