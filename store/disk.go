package store

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/softphone/softphone/internal/diskfull"
)

// A full disk is a state (issue 14): the writers of history and webhooks
// tell the store the outcome of each write (NoteWrite); the first write that
// fails for want of space makes the state "full" (the page shows a banner),
// the first that succeeds ends it. Entering the state checkpoints the WAL
// and truncates it (journal_size_limit keeps it small afterwards), so space
// freed by deleting recordings is not eaten again by the WAL. While full,
// DiskFull probes at most every diskProbeEvery whether space is back, so
// the banner goes away even when nothing else writes.

// diskProbeEvery is the least time between two probes while full.
const diskProbeEvery = 5 * time.Second

// diskProbeSize is what a probe writes (and removes at once): a few pages,
// as much as a history write needs.
const diskProbeSize = 64 << 10

// diskState is the disk-full state of the database's folder.
type diskState struct {
	mu       sync.Mutex
	full     bool
	probedAt time.Time
	watchers []func(full bool)

	checkpointing atomic.Bool // a checkpoint runs
}

// IsDiskFull tells whether err says the disk (or the quota) is full: ENOSPC
// from a file, SQLITE_FULL from the database, an exceeded quota, and the
// Windows text of ERROR_DISK_FULL ("not enough space on the disk").
func IsDiskFull(err error) bool {
	return diskfull.Is(err) || err != nil && strings.Contains(strings.ToLower(err.Error()), "database or disk is full")
}

// NoteWrite hears the outcome of one write to the home folder: a write that
// failed for want of space makes the state full, one that succeeded ends it.
// Other failures change nothing.
func (db *DB) NoteWrite(err error) {
	switch {
	case err == nil:
		db.setDiskFull(false)
	case IsDiskFull(err):
		db.setDiskFull(true)
	}
}

// DiskFull tells whether the disk is full now. While it is, it probes (at
// most every diskProbeEvery) whether a small write succeeds again.
func (db *DB) DiskFull() bool {
	d := &db.disk
	d.mu.Lock()
	full, probe := d.full, d.full && time.Since(d.probedAt) >= diskProbeEvery
	if probe {
		d.probedAt = time.Now()
	}
	d.mu.Unlock()
	if probe && db.probeDisk() == nil {
		db.setDiskFull(false)
		return false
	}
	return full
}

// OnDiskFull calls fn (on the writer's goroutine: it must be quick) every
// time the state changes.
func (db *DB) OnDiskFull(fn func(full bool)) {
	db.disk.mu.Lock()
	db.disk.watchers = append(db.disk.watchers, fn)
	db.disk.mu.Unlock()
}

func (db *DB) setDiskFull(full bool) {
	d := &db.disk
	d.mu.Lock()
	if d.full == full {
		d.mu.Unlock()
		return
	}
	d.full = full
	d.probedAt = time.Now()
	ws := append([]func(bool){}, d.watchers...)
	d.mu.Unlock()
	// Both ways, give the WAL's space back: entering, so that what the
	// user frees stays free; leaving, to write the pages that waited. In
	// the background: a checkpoint waits for readers, the writer need not.
	if db.disk.checkpointing.CompareAndSwap(false, true) {
		go func() {
			defer db.disk.checkpointing.Store(false)
			db.checkpoint()
		}()
	}
	for _, fn := range ws {
		fn(full)
	}
}

// checkpoint copies the WAL into the database and truncates it to zero.
func (db *DB) checkpoint() {
	sdb, err := db.raw()
	if err != nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, _ = sdb.ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)")
}

// probeDisk writes and removes a small file beside the database.
func (db *DB) probeDisk() error {
	return probeDir(filepath.Dir(db.journal.path))
}
