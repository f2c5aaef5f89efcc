package store

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
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
