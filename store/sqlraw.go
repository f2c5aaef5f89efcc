package store

import (
	"context"
	"database/sql"
	"fmt"
)

// The hot paths (webhook outbox, history pages) talk to database/sql
// directly: gorm's statement building and reflective row mapping cost more
// there than SQLite itself. Everything else goes through gorm.
//
// The driver (glebarez/go-sqlite) parses a statement's SQL again on every
// execution, prepared or not, so these statements are kept short and simple
// rather than prepared: parsing is a good part of what they cost.

// raw returns the *sql.DB under gorm.
func (db *DB) raw() (*sql.DB, error) {
	sdb, err := db.g.DB()
	if err != nil {
		return nil, fmt.Errorf("database handle: %w", err)
	}
	return sdb, nil
}

// inTx runs fn in one transaction on the raw handle (BEGIN IMMEDIATE, as the
// DSN asks), committing when fn returns nil and rolling back otherwise.
func (db *DB) inTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	sdb, err := db.raw()
	if err != nil {
		return err
	}
	tx, err := sdb.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}
