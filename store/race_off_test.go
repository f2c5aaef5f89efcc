//go:build !race

package store

// bigHistory is the size of the history of TestListHistory100k.
const bigHistory = 100_000
