package rig

import (
	"bufio"
	"fmt"
	"os/exec"
	"syscall"
	"testing"
)

// TestStartChild: the child reads what is written to its stdin and its
// stdout is read back; with group it leads a process group of its own
// (what a kill of -pid needs to reach the child's children), without it
// stays in ours.
func TestStartChild(t *testing.T) {
	for _, group := range []bool{false, true} {
		cmd := exec.Command("sh", "-c", "read x; echo got $x")
		in, out := StartChild(&TB{TB: t}, cmd, group)
		fmt.Fprintln(in, "ping")
		if l, _ := bufio.NewReader(out).ReadString('\n'); l != "got ping\n" {
			t.Errorf("group %v: the child said %q", group, l)
		}
		pgid, err := syscall.Getpgid(cmd.Process.Pid)
		if err != nil {
			t.Fatal(err)
		}
		if (pgid == cmd.Process.Pid) != group {
			t.Errorf("group %v: the child's process group is %d, its pid %d", group, pgid, cmd.Process.Pid)
		}
		if err := cmd.Wait(); err != nil {
			t.Errorf("group %v: %v", group, err)
		}
	}
}
