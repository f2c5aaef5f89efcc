package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

func openTestDB(t testing.TB) *DB {
	t.Helper()
	db, err := OpenDB(filepath.Join(t.TempDir(), "softphone.db"))
	if err != nil {
		t.Fatalf("OpenDB: %v", err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

func TestOpenDBFreshAndReopen(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "softphone.db")
	db, err := OpenDB(path)
	if err != nil {
		t.Fatalf("OpenDB fresh: %v", err)
	}
	v, err := db.SchemaVersion(ctx)
	if err != nil || v != schemaVersion {
		t.Fatalf("schema version = %d, %v; want %d", v, err, schemaVersion)
	}
	c, err := db.CreateContact(ctx, Contact{Name: "Ada", Number: "+49 30 1234"})
	if err != nil {
		t.Fatal(err)
	}
	var mode string
	if err := db.g.Raw("PRAGMA journal_mode").Scan(&mode).Error; err != nil || mode != "wal" {
		t.Errorf("journal_mode = %q, %v; want wal", mode, err)
	}
	var fk int
	if err := db.g.Raw("PRAGMA foreign_keys").Scan(&fk).Error; err != nil || fk != 1 {
		t.Errorf("foreign_keys = %d, %v; want 1", fk, err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	db, err = OpenDB(path)
	if err != nil {
		t.Fatalf("OpenDB again: %v", err)
	}
	defer db.Close()
	got, err := db.GetContact(ctx, c.ID)
	if err != nil || got != c {
		t.Fatalf("contact after reopen = %+v, %v; want %+v", got, err, c)
	}
	tax, err := db.ListTaxonomy(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(tax) != len(defaultTaxonomy) {
		t.Fatalf("taxonomy after reopen has %d entries, want %d (seeded once)", len(tax), len(defaultTaxonomy))
	}
}

func TestOpenDBSchemaTooNew(t *testing.T) {
	path := filepath.Join(t.TempDir(), "softphone.db")
	db, err := OpenDB(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.g.Exec("UPDATE schema_version SET version = ?", schemaVersion+1).Error; err != nil {
		t.Fatal(err)
	}
	db.Close()
	if _, err := OpenDB(path); !errors.Is(err, ErrSchemaTooNew) {
		t.Fatalf("OpenDB of a newer schema: %v, want ErrSchemaTooNew", err)
	}
}

func TestOpenDBUnknownMigrationRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "softphone.db")
	db, err := OpenDB(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.g.Exec("INSERT INTO migrations (id) VALUES ('9999_from_the_future')").Error; err != nil {
		t.Fatal(err)
	}
	db.Close()
	if _, err := OpenDB(path); !errors.Is(err, ErrSchemaTooNew) {
		t.Fatalf("OpenDB with an unknown migration: %v, want ErrSchemaTooNew", err)
	}
}

func TestOpenDBFileMode(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "home")
	path := filepath.Join(dir, "softphone.db")
	db, err := OpenDB(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.CreateContact(context.Background(), Contact{Name: "x"}); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(path + "*")
	if len(files) < 2 {
		t.Fatalf("files = %v, want the database and its WAL", files)
	}
	for _, f := range files {
		fi, err := os.Stat(f)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v, want 0600", f, fi.Mode().Perm())
		}
	}
}

// TestDBConcurrentWriters: calls starting, ending, being tagged and listed at
// once never fail with "database is locked" (WAL, busy timeout, BEGIN IMMEDIATE).
func TestDBConcurrentWriters(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)
	const workers, calls = 6, 15
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range calls {
				id := fmt.Sprintf("w%d-%d", w, i)
				steps := []func() error{
					func() error { return db.StartHistory(ctx, HistoryEntry{ID: id, CallID: id, Number: "200"}) },
					func() error {
						_, err := db.EnqueueOutbox(ctx, OutboxEvent{CallID: id, Event: "call-started"}, 1000)
						return err
					},
					func() error { return db.SetHistoryTags(ctx, id, []string{"sales", "callback"}) },
					func() error { _, err := db.ListHistory(ctx, HistoryFilter{Limit: 20}); return err },
					func() error { return db.FinishHistory(ctx, HistoryEntry{CallID: id, Outcome: "answered"}) },
					func() error {
						due, err := db.DueOutbox(ctx, time.Now().Add(time.Second), 5)
						for _, e := range due {
							if err := db.OutboxDone(ctx, e.Seq, 200, true, ""); err != nil && !errors.Is(err, ErrNotFound) {
								return err
							}
						}
						return err
					},
				}
				for _, step := range steps {
					if err := step(); err != nil {
						t.Error(err)
						return
					}
				}
			}
		})
	}
	wg.Wait()
	list, err := db.ListHistory(ctx, HistoryFilter{Limit: 1000})
	if err != nil || len(list) != workers*calls {
		t.Fatalf("%d entries, %v; want %d", len(list), err, workers*calls)
	}
	for _, e := range list {
		if e.Open || len(e.Tags) != 2 {
			t.Fatalf("entry %+v", e)
		}
	}
}
