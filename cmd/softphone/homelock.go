package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
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
type homeLock struct {
	f         *os.File
	unguarded error // why the file system could not lock it
}

// lockHome takes the home folder's lock, or says which process holds it.
func lockHome(home string) (*homeLock, error) {
	path := filepath.Join(home, lockFileName)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lock of the home folder %s: %w", path, err)
	}
	// A `softphone dial` probing the lock holds it for microseconds
	// (phoneRunning): a few tries tell that from a phone that runs.
	held, err := tryLock(f)
	for try := 0; held && err == nil && try < 10; try++ {
		time.Sleep(lockRetry)
		held, err = tryLock(f)
	}
	if err != nil {
		// The file system keeps no locks (some network and FUSE file
		// systems): the phone runs unguarded rather than not at all, and
		// says so (runPhone logs unguarded).
		return &homeLock{f: f, unguarded: err}, nil
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

// lockRetry is the wait between tries of a lock found held.
const lockRetry = 20 * time.Millisecond

// phoneRunning tells whether a phone may run with the home folder: false
// only when its lock file is there and nobody holds the lock. The
// dial command asks first: after a phone was killed its ui-url and dial-key
// stay, and whatever program listens on that port now would be sent the
// number and the key.
func phoneRunning(home string) bool {
	f, err := os.OpenFile(filepath.Join(home, lockFileName), os.O_RDWR, 0)
	if err != nil {
		// No lock file: a phone of a version before the lock may be running
		// (the program was upgraded under it); the dial goes on as then.
		return true
	}
	defer f.Close() // releases the lock when this took it
	held, err := tryLock(f)
	return held || err != nil // a lock that cannot be tried: let the dial go on and say what it finds
}
