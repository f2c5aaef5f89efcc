//go:build windows

package main

import (
	"errors"
	"os"

	"golang.org/x/sys/windows"
)

// lockOffset is the byte locked: beyond the pid the file holds, which a
// second start reads (a Windows lock keeps other handles from reading the
// bytes it covers).
const lockOffset = 1 << 20

// tryLock takes an exclusive LockFileEx on one byte of f without waiting;
// held is true when another handle holds it.
func tryLock(f *os.File) (held bool, err error) {
	ol := &windows.Overlapped{Offset: lockOffset}
	err = windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, ol)
	if errors.Is(err, windows.ERROR_LOCK_VIOLATION) || errors.Is(err, windows.ERROR_IO_PENDING) {
		return true, nil
	}
	return false, err
}
