// Package bench holds the benchmark programs that measure the targets of the
// issues as a user would see them (start-up time, idle memory, binary size,
// API and webhook throughput). They print figures; they never assert.
package bench
