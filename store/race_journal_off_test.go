//go:build !race

package store

// hugeJournal: see race_journal_on_test.go.
const hugeJournal = 100_000
