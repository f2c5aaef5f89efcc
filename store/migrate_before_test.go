package store

import (
	"slices"
	"testing"

	"github.com/go-gormigrate/gormigrate/v2"
)

// openBefore opens path as the program did before migration id: only the
// migrations listed before it run. The list is put back as soon as the
// database is open (it is read only there), so a failing test leaves the
// package's migrations whole for the tests after it.
func openBefore(t *testing.T, path, id string) *DB {
	t.Helper()
	i := slices.IndexFunc(migrations, func(m *gormigrate.Migration) bool { return m.ID == id })
	if i < 0 {
		t.Fatalf("migration %s is not listed", id)
	}
	all, allVersion := migrations, schemaVersion
	migrations, schemaVersion = all[:i], i
	db, err := OpenDB(path)
	migrations, schemaVersion = all, allVersion
	if err != nil {
		t.Fatalf("OpenDB before %s: %v", id, err)
	}
	return db
}

// writeOldHistory writes an entry into a database opened by openBefore with
// the columns every schema had: the phone's own statements name columns
// the old schema may not have yet (seq, 0023). An entry without an Outcome
// is open (a call in progress).
func writeOldHistory(t *testing.T, db *DB, e HistoryEntry) {
	t.Helper()
	err := db.g.Exec(`INSERT INTO history (id, call_id, number, name, uri, outcome, declined, open, started_at, ended_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, "id-"+e.CallID, e.CallID, e.Number, e.Name, e.URI, e.Outcome, e.Declined,
		e.Outcome == "", ts(e.StartedAt), ts(e.EndedAt)).Error
	if err != nil {
		t.Fatal(err)
	}
}
