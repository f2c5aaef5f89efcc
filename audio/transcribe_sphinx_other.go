//go:build !linux && !windows

package audio

import (
	"os"
	"syscall"
)

// sphinxProcAttr: no death signal outside Linux (transcribe_sphinx_linux.go).
func sphinxProcAttr() *syscall.SysProcAttr { return nil }

// sphinxStarted: nothing more to do (transcribe_sphinx_windows.go).
func sphinxStarted(*os.Process) error { return nil }
