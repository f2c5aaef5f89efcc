package store

import "errors"

// Sentinel errors of the store. Callers test them with errors.Is; the store
// wraps them with the context a reader needs (which id, which key).
var (
	// ErrNotFound: no row with that id or code.
	ErrNotFound = errors.New("not found")
	// ErrNoSecret: the secret is not set.
	ErrNoSecret = errors.New("no such secret")
	// ErrSchemaTooNew: the database was written by a newer version of the
	// phone; it is left untouched rather than migrated down.
	ErrSchemaTooNew = errors.New("database schema is newer than this program knows")
	// ErrUnknownCode: a taxonomy code that does not exist or is retired.
	ErrUnknownCode = errors.New("unknown or retired taxonomy code")
	// ErrInvalid: a value the store refuses (empty code, wrong kind, ...).
	ErrInvalid = errors.New("invalid value")
	// ErrExists: a row with that key already exists.
	ErrExists = errors.New("already exists")
	// ErrSettings: settings.json could not be read or holds a bad value.
	ErrSettings = errors.New("bad settings")
	// ErrJournalFull: the outbox journal holds the outbox's capacity of
	// events already; the caller writes to the outbox directly.
	ErrJournalFull = errors.New("outbox journal full")
)
