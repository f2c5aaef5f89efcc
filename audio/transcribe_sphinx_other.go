//go:build !linux

package audio

import "syscall"

// sphinxProcAttr: no death signal outside Linux (transcribe_sphinx_linux.go).
func sphinxProcAttr() *syscall.SysProcAttr { return nil }
