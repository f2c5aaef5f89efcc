package main

import (
	"log/slog"

	"github.com/softphone/softphone/internal/exepages"
)

// releaseExePages unmaps the executable's clean pages from the process
// (they stay in the page cache; what runs next maps back what it uses).
func releaseExePages(log *slog.Logger) {
	if _, err := exepages.Release(); err != nil {
		log.Debug("executable pages not released", "err", err)
	}
}

// releaseWhenIdle is freeMemAfterCalls' hook. At the first release after
// calls, compact tidies what stays of them: the SIP trace's last messages
// are copied together, so the spans of the Go heap they were spread over
// are free for the next release, 32 s later, to hand back; SQLite's page
// caches give back the pages the calls wrote (0.5 MB after 1,000 calls).
// The executable's pages are released at the last release of a quiet
// spell only (2 s after the start, 34 s after the last call), when the
// calls' code is no longer wanted, not 2 s after each call, where the next
// call would map back what it needs every time; and after a collection of
// an idle phone, which maps back the stack maps of every goroutine's
// frames (about 3 MB of pclntab, by the kernel's fault-around).
func releaseWhenIdle(log *slog.Logger, compact func()) func(release) {
	return func(r release) {
		switch r {
		case releaseQuiet:
			compact()
		case releaseLast, releaseIdleGC:
			releaseExePages(log)
		}
	}
}
