//go:build race

package store

// hugeJournal is the journal of TestHugeJournalBoundedReplay under the race
// detector: below the capacity, since storing 10,000 events in the pure-Go
// SQLite instrumented by the detector takes over 10 s. The bound itself is
// then proven by cmd/softphone's TestHugeJournalStart (the binary is built
// without -race) and by this test without -race.
const hugeJournal = 3_000
