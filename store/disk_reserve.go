package store

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
)

// A full disk at start. SQLite in WAL mode needs its -shm file (32 KiB) the
// moment the database is opened; a clean shutdown deletes it, so a phone
// started again on a full disk (the computer restarted because the disk was
// full, the phone started at login) could not open its database and exited
// with "disk I/O error (4874)" (SQLITE_IOERR_SHMSIZE): no calls, and no word
// of the cause. So the phone keeps a reserve beside the database
// (<db>-reserve, 256 KiB of incompressible bytes, written while there is
// space): when the database cannot be opened and the disk is full, the
// reserve is given back and the open tried again; the phone then runs in
// the disk-full state (the page's banner), as when the disk fills while it
// runs. The next start with space writes a new reserve. Without a reserve
// (a first start on a full disk) the error says the disk is full.

// reserveSize is what the reserve holds: the -shm file and the first WAL
// frames of the start (closing a crash's calls) with room to spare.
const reserveSize = 256 << 10

func reservePath(dbPath string) string { return dbPath + "-reserve" }

// keepReserve writes the reserve when it is missing or short. A failure
// (no space now) leaves none: the phone works without it.
func keepReserve(dbPath string) {
	p := reservePath(dbPath)
	if st, err := os.Lstat(p); err == nil && st.Mode().IsRegular() && st.Size() == reserveSize {
		return
	}
	f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return
	}
	b := make([]byte, reserveSize)
	r := rand.NewChaCha8([32]byte{}) // not zeros: a compressing file system would store those in nothing
	_, _ = r.Read(b)
	_, err = f.Write(b)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(p)
	}
}

// releaseReserve gives the reserve back when the disk is full; it tells
// whether it did.
func releaseReserve(dbPath string) bool {
	if !diskFullAt(filepath.Dir(dbPath)) {
		return false
	}
	return os.Remove(reservePath(dbPath)) == nil
}

// diskFullAt tells whether a small file cannot be written in dir for want
// of space.
func diskFullAt(dir string) bool {
	return IsDiskFull(probeDir(dir))
}

// probeDir writes and removes a small file in dir.
func probeDir(dir string) error {
	f, err := os.CreateTemp(dir, ".disk-probe-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	_, err = f.Write(make([]byte, diskProbeSize))
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// errDiskFullAtOpen words an error of opening the database on a full disk.
var errDiskFullAtOpen = errors.New("the disk is full: free some space (old recordings, other files) and start the phone again")

// openErr is err, said to be the full disk's when it is.
func openErr(dbPath string, err error) error {
	if IsDiskFull(err) || diskFullAt(filepath.Dir(dbPath)) {
		return fmt.Errorf("%w (%w)", errDiskFullAtOpen, err)
	}
	return err
}
