// Package store owns what the phone keeps: settings.json in the home folder,
// secrets in the OS keyring (with a 0600 file as fallback), and the SQLite
// database (contacts, history, taxonomy, recordings, transcripts and the
// webhook outbox). It imports nothing of ours; gorm rows stay inside it and
// callers get the plain structs of types.go.
//
// The schema is a list of versioned migrations (migrate.go, SQL embedded
// from migrations/), applied by OpenDB in one transaction each; the number
// applied is kept in schema_version, and a database with a higher number (or
// a migration this program does not know) is refused with ErrSchemaTooNew
// rather than touched. Moments are stored as Unix nanoseconds and come back
// in UTC; the zero time is stored as 0.
package store
