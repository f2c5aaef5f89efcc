package store

import (
	"embed"
	"errors"
	"fmt"

	"github.com/go-gormigrate/gormigrate/v2"
	"gorm.io/gorm"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// migrations lists every schema change, oldest first. Never edit or reorder a
// shipped migration: add a new one. Its position (1-based) is the schema
// version written to schema_version.
var migrations = []*gormigrate.Migration{
	{ID: "0001_init", Migrate: sqlFile("migrations/0001_init.sql")},
	{ID: "0002_seed_taxonomy", Migrate: seedTaxonomy},
	{ID: "0003_history_search", Migrate: sqlFile("migrations/0003_history_search.sql")},
	{ID: "0004_durability", Migrate: sqlFile("migrations/0004_durability.sql")},
	{ID: "0006_contact_watch", Migrate: sqlFile("migrations/0006_contact_watch.sql")},
	{ID: "0012_history_page", Migrate: sqlFile("migrations/0012_history_page.sql")},
	{ID: "0007_history_secure", Migrate: sqlFile("migrations/0007_history_secure.sql")},
	{ID: "0016_history_sip_status", Migrate: sqlFile("migrations/0016_history_sip_status.sql")},
	{ID: "0020_history_write_triggers", Migrate: sqlFile("migrations/0020_history_write_triggers.sql")},
	{ID: "0021_history_search_pending", Migrate: sqlFile("migrations/0021_history_search_pending.sql")},
	{ID: "0022_history_partial_indexes", Migrate: sqlFile("migrations/0022_history_partial_indexes.sql")},
	{ID: "0023_history_order", Migrate: sqlFile("migrations/0023_history_order.sql")},
	{ID: "0024_transcripts_waiting", Migrate: sqlFile("migrations/0024_transcripts_waiting.sql")},
}

// schemaVersion is the newest schema this program knows.
var schemaVersion = len(migrations)

// sqlFile runs one embedded SQL file.
func sqlFile(name string) gormigrate.MigrateFunc {
	return func(tx *gorm.DB) error {
		b, err := migrationFS.ReadFile(name)
		if err != nil {
			return err
		}
		return tx.Exec(string(b)).Error
	}
}

// migrate refuses a schema newer than schemaVersion, then applies what is
// missing, each migration and its version bump in one transaction.
func migrate(g *gorm.DB) error {
	if g.Migrator().HasTable("schema_version") {
		v, err := readSchemaVersion(g)
		if err != nil {
			return err
		}
		if v > schemaVersion {
			return fmt.Errorf("%w: database has version %d, this program knows %d", ErrSchemaTooNew, v, schemaVersion)
		}
	}
	ms := make([]*gormigrate.Migration, len(migrations))
	for i, m := range migrations {
		version, run := i+1, m.Migrate
		ms[i] = &gormigrate.Migration{ID: m.ID, Migrate: func(tx *gorm.DB) error {
			if err := run(tx); err != nil {
				return fmt.Errorf("migration %s: %w", m.ID, err)
			}
			return tx.Exec("UPDATE schema_version SET version = ? WHERE id = 1", version).Error
		}}
	}
	m := gormigrate.New(g, &gormigrate.Options{
		TableName:                 "migrations",
		IDColumnName:              "id",
		IDColumnSize:              255,
		UseTransaction:            true,
		ValidateUnknownMigrations: true,
	}, ms)
	if err := m.Migrate(); err != nil {
		if errors.Is(err, gormigrate.ErrUnknownPastMigration) {
			return fmt.Errorf("%w: %v", ErrSchemaTooNew, err)
		}
		return err
	}
	return nil
}

func readSchemaVersion(g *gorm.DB) (int, error) {
	var v int
	if err := g.Raw("SELECT version FROM schema_version WHERE id = 1").Scan(&v).Error; err != nil {
		return 0, fmt.Errorf("read schema version: %w", err)
	}
	return v, nil
}
