package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// One phone per home folder. Two phones on one home would share the
// database, the webhook outbox and its journal (each sender delivering the
// other's events, each replay truncating the other's journal), overwrite
// each other's settings.json (a change made on one page lost at the other's
// next save), remove each other's temporary files as leftovers of a crash,
// and replace each other's dial-key. So the phone holds an exclusive lock on
// <home>/softphone.lock while it runs. The lock belongs to the open file,
// not to the file on disk: the system drops it when the process ends, a
// kill -9 or a power cut included, so a lock is never left behind (the
// file stays and is locked again by the next start).

// lockFileName is the lock's file in the home folder.
const lockFileName = "softphone.lock"

// errHomeInUse says another phone holds the home folder's lock.
var errHomeInUse = errors.New("another softphone is already running with this home folder")

// homeLock is the held lock; release closes it (the process's end does too).
type homeLock struct{ f *os.File }

// lockHome takes the home folder's lock, or says which process holds it.
func lockHome(home string) (*homeLock, error) {
	path := filepath.Join(home, lockFileName)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lock of the home folder %s: %w", path, err)
	}
	held, err := tryLock(f)
	if err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("lock of the home folder %s: %w", path, err)
	}
	if held {
		b := make([]byte, 32)
		n, _ := f.ReadAt(b, 0)
		_ = f.Close()
		who := ""
		if pid, err := strconv.Atoi(strings.TrimSpace(string(b[:n]))); err == nil && pid > 0 {
			who = fmt.Sprintf(" (process %d)", pid)
		}
		return nil, fmt.Errorf("%w %s%s: use its phone page, or stop it before starting another", errHomeInUse, home, who)
	}
	// Who holds it, for the message of a second start; not needed for the
	// lock itself, so a failure here (a full disk) does not stop the start.
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return &homeLock{f: f}, nil
}

func (l *homeLock) release() { _ = l.f.Close() }
