package rig

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// clockTick is USER_HZ, the unit of utime and stime in /proc/<pid>/stat
// (100 on every Linux the phone runs on; sysconf(_SC_CLK_TCK) without cgo).
const clockTick = 100

// CPUOf is the CPU time (utime+stime, fields 14 and 15 of proc(5)) that
// process pid has used so far.
func CPUOf(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name (field 2) may hold spaces: count fields after its ')'.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, fmt.Errorf("/proc/%d/stat: no command name", pid)
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: %d fields", pid, len(f))
	}
	ut, err1 := strconv.ParseUint(f[11], 10, 64) // field 14
	st, err2 := strconv.ParseUint(f[12], 10, 64) // field 15
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("/proc/%d/stat: bad utime/stime", pid)
	}
	return time.Duration(ut+st) * time.Second / clockTick, nil
}

// FindProcess returns the pid of the process whose command line holds all
// of args (testpeer does not hand out the pids of the peers it starts).
func FindProcess(args ...string) (int, error) {
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		b, err := os.ReadFile(filepath.Join(d, "cmdline"))
		if err != nil {
			continue
		}
		parts := strings.Split(string(b), "\x00")
		if containsAll(parts, args) {
			pid, _ := strconv.Atoi(filepath.Base(d))
			return pid, nil
		}
	}
	return 0, fmt.Errorf("no process with arguments %q", args)
}

func containsAll(have, want []string) bool {
	for _, w := range want {
		found := false
		for _, h := range have {
			if h == w {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// RunTimeOf is the CPU time the threads of process pid have run so far, in
// nanoseconds (the first field of /proc/<pid>/task/<tid>/schedstat, the
// scheduler's own sum_exec_runtime): the same time as CPUOf without its
// 10 ms ticks, so a short stretch of a light process reads exactly.
// Threads that have ended are not counted (the Go runtime keeps its threads).
func RunTimeOf(pid int) (time.Duration, error) {
	tasks, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/[0-9]*", pid))
	if err != nil || len(tasks) == 0 {
		return 0, fmt.Errorf("process %d: no threads", pid)
	}
	var sum time.Duration
	for _, t := range tasks {
		b, err := os.ReadFile(filepath.Join(t, "schedstat"))
		if err != nil {
			continue // the thread ended meanwhile
		}
		f := strings.Fields(string(b))
		if len(f) == 0 {
			continue
		}
		ns, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("%s/schedstat: %v", t, err)
		}
		sum += time.Duration(ns)
	}
	return sum, nil
}

// SwitchesOf counts the context switches of process pid's threads so far
// (voluntary_ctxt_switches + nonvoluntary_ctxt_switches of every
// /proc/<pid>/task/<tid>/status): nearly each voluntary one is a thread going
// to sleep, so their rate is the process's wake-ups.
func SwitchesOf(pid int) (int64, error) {
	tasks, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/[0-9]*", pid))
	if err != nil || len(tasks) == 0 {
		return 0, fmt.Errorf("process %d: no threads", pid)
	}
	var sum int64
	for _, t := range tasks {
		b, err := os.ReadFile(filepath.Join(t, "status"))
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(b), "\n") {
			k, v, ok := strings.Cut(line, ":")
			if ok && (k == "voluntary_ctxt_switches" || k == "nonvoluntary_ctxt_switches") {
				n, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
				sum += n
			}
		}
	}
	return sum, nil
}

// Thread is one thread's CPU time (schedstat, ns) and context switches so
// far (voluntary + involuntary, from status).
type Thread struct {
	CPU      time.Duration
	Switches int64
	Wait     string // the system call it sleeps in now, when known (sysmon sleeps in nanosleep, the netpoller in epoll_pwait)
}

// waits names the system calls a Go thread sleeps in (x86-64 numbers).
var waits = map[string]string{"35": "nanosleep", "202": "futex", "232": "epoll_wait", "281": "epoll_pwait", "0": "read", "45": "recvfrom", "7": "poll", "270": "pselect6", "23": "select"}

// ThreadsOf reads every thread of process pid (issue 20: which thread of a
// relay wakes, e.g. the runtime's monitor, sysmon, beside the one that
// carries the packets).
func ThreadsOf(pid int) (map[int]Thread, error) {
	tasks, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/[0-9]*", pid))
	if err != nil || len(tasks) == 0 {
		return nil, fmt.Errorf("process %d: no threads", pid)
	}
	out := map[int]Thread{}
	for _, t := range tasks {
		tid, _ := strconv.Atoi(filepath.Base(t))
		var th Thread
		if b, err := os.ReadFile(filepath.Join(t, "schedstat")); err == nil {
			if f := strings.Fields(string(b)); len(f) > 0 {
				ns, _ := strconv.ParseInt(f[0], 10, 64)
				th.CPU = time.Duration(ns)
			}
		}
		if b, err := os.ReadFile(filepath.Join(t, "syscall")); err == nil {
			if f := strings.Fields(string(b)); len(f) > 0 {
				th.Wait = waits[f[0]]
				if th.Wait == "" {
					th.Wait = "syscall " + f[0]
				}
			}
		}
		b, err := os.ReadFile(filepath.Join(t, "status"))
		if err != nil {
			continue // ended meanwhile
		}
		for _, line := range strings.Split(string(b), "\n") {
			k, v, ok := strings.Cut(line, ":")
			if ok && (k == "voluntary_ctxt_switches" || k == "nonvoluntary_ctxt_switches") {
				n, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
				th.Switches += n
			}
		}
		out[tid] = th
	}
	return out, nil
}
