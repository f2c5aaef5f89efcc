// Package store owns what the phone keeps: settings.json in the home folder,
// secrets in the OS keyring (with a 0600 file as fallback), and the SQLite
// database (contacts, history, taxonomy, recordings, transcripts and the
// webhook outbox). It imports nothing of ours; gorm rows stay inside it and
// callers get the plain structs of types.go.
package store
