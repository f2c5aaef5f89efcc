package rig

import (
	"os"
	"runtime"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// TestThreadsOf: a thread of this process that worked, slept and now
// blocks in read(2) is listed with its CPU time, its context switches and
// the system call it waits in.
func TestThreadsOf(t *testing.T) {
	var p [2]int
	if err := syscall.Pipe2(p[:], syscall.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(p[0])
	defer syscall.Close(p[1])
	tids := make(chan int, 1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		tids <- syscall.Gettid()
		for range 5 {
			time.Sleep(time.Millisecond) // the locked thread sleeps: a voluntary switch each
		}
		var b [1]byte
		_, _, _ = syscall.Syscall(syscall.SYS_READ, uintptr(p[0]), uintptr(unsafe.Pointer(&b[0])), 1)
	}()
	tid := <-tids
	var th Thread
	deadline := time.Now().Add(10 * time.Second)
	for {
		m, err := ThreadsOf(os.Getpid())
		if err != nil {
			t.Fatal(err)
		}
		th = m[tid]
		if th.Wait == "read" || time.Now().After(deadline) {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	if _, err := syscall.Write(p[1], []byte{1}); err != nil {
		t.Fatal(err)
	}
	<-done
	if th.Wait != "read" {
		t.Fatalf("thread %d waits in %q, not read", tid, th.Wait)
	}
	if th.CPU <= 0 || th.Switches < 5 {
		t.Fatalf("thread %d: %v of CPU, %d context switches; want some CPU and at least the 5 sleeps", tid, th.CPU, th.Switches)
	}
}
