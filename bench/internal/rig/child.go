package rig

import (
	"io"
	"os/exec"
	"syscall"
)

// StartChild starts cmd with a pipe to its standard input and one from its
// standard output. The child is killed when this program dies (Pdeathsig),
// so it never outlives a benchmark that failed; with group it leads a
// process group of its own, so that kill(-pid) takes its children too
// (a browser's helpers).
func StartChild(tb *TB, cmd *exec.Cmd, group bool) (io.WriteCloser, io.ReadCloser) {
	in, err := cmd.StdinPipe()
	if err != nil {
		tb.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: group}
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	return in, out
}
