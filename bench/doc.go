// Package bench holds the benchmark programs that measure the targets of the
// issues as a user would see them (start-up time, idle memory, binary size,
// API and webhook throughput, a call's CPU and media timing, the SIP UAS's
// CPU per call and memory). Each figure is printed beside an anchor measured
// in the same run (baresip, a bare fiber server, the same call unloaded).
// They print figures; they never assert. What they share is in
// bench/internal/rig.
package bench
