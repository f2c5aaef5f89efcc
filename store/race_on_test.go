//go:build race

package store

// bigHistory is smaller under the race detector: it slows the SQLite engine
// (pure Go, instrumented) some 70-fold, and filling 100,000 rows alone would
// take over a minute. The test has no concurrency for the detector to check;
// run it without -race for the full 100,000 rows.
const bigHistory = 10_000
