package audio

import (
	"os"
	"syscall"
)

// sphinxProcAttr has the recogniser killed when the phone dies: a phone
// killed with SIGKILL (or crashing) left pocketsphinx running on for the
// rest of the channel (minutes of both cores for an hour's call), and the
// next start ran the same transcript again beside it. PR_SET_PDEATHSIG
// (prctl(2)) is tied to the thread that started the process, which the Go
// runtime keeps.
func sphinxProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}

// sphinxStarted: the death signal is set at the start already
// (transcribe_sphinx_windows.go puts the recogniser in a job).
func sphinxStarted(*os.Process) error { return nil }
