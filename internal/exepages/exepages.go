// Package exepages gives back the pages of the program's own executable
// that the process has mapped (issue 20: idle RSS).
//
// A Go program's code and read-only data (text, rodata, pclntab; about
// 45 MB here) are mapped from the executable file. The kernel maps the
// file's pages into the process around every first touch (fault-around,
// 64 kB), so the few hundred places package initialisation and start-up
// touch leave most of the executable resident: 23-26 MB of an idle phone's
// 33 MB of RSS. An idle phone runs a small part of that code.
//
// Release unmaps those clean, read-only pages from the process
// (madvise MADV_DONTNEED on the executable's mappings that are not
// writable). Nothing is lost: they are the file's pages, they stay in the
// page cache (shared with any other process of the same file, and
// reclaimable by the kernel as it was before), and the next touch maps them
// again with a minor fault, no disk read while they are cached. What it
// changes is what the process holds mapped: RSS counts only what is used
// again since.
package exepages

// Stats says what Release did: the mappings of the executable it advised
// and their size.
type Stats struct {
	Mappings int
	Bytes    int64
}
